/**
 * The building blocks of a capture over a puppeteer Page, shared by one-shot captures and scenario pages.
 */
import type { Page } from 'puppeteer';

import { CaptureFailure, type CaptureResult } from './capture.port';
import { disableServiceWorkersScript, documentHeightScript, hideSelectorsScript, revealLazyContentScript } from './in-page-scripts';
import { isValidCssSelector } from '../../shared/css-selector/css-selector';
import { stabilityTracker } from './page-stability';
import { pngSize } from './png-size';

export interface PageSetup {
  viewportWidth: number;
  viewportHeight: number;
  deviceScaleFactor: number;
  darkMode: boolean;
  /** Installs the stability wait's in-page tracker (wait_until 'stable'); other waits do not need it. */
  trackStability?: boolean;
}

/**
 * Must run before the first navigation: dialogs, media emulation and the service-worker removal have to
 * be in place for the load. The independent CDP calls go out together, so the set-up costs one round-trip.
 */
export async function preparePage(page: Page, setup: PageSetup): Promise<void> {
  // An unanswered alert()/confirm()/prompt() blocks the page, and its load event, forever. A
  // beforeunload prompt is accepted instead: dismissing it would cancel the navigation the capture or
  // scenario asked for, and leave goto() waiting out its timeout.
  page.on('dialog', (dialog) => {
    const answer = dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss();
    answer.catch(() => undefined);
  });
  await Promise.all([
    page.evaluateOnNewDocument(disableServiceWorkersScript),
    setup.trackStability ? page.evaluateOnNewDocument(stabilityTracker) : undefined,
    page.setViewport({
      width: setup.viewportWidth,
      height: setup.viewportHeight,
      deviceScaleFactor: setup.deviceScaleFactor,
    }),
    setup.darkMode ? page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]) : undefined,
  ]);
}

function invalidSelectorFailure(invalid: unknown): CaptureFailure | null {
  return Array.isArray(invalid) && invalid.length > 0 ? new CaptureFailure('page', `Invalid CSS selector: ${String(invalid[0])}`) : null;
}

/**
 * Only standard CSS is accepted, not puppeteer's extensions (::-p-text, >>>), so scenarios stay portable.
 * Checked here in Node, not in the page: asking the page would fail whenever a navigation (a form post a
 * click just started) replaces the document mid-check.
 */
export function assertValidSelector(selector: string): void {
  if (!isValidCssSelector(selector)) throw new CaptureFailure('page', `Invalid CSS selector: ${selector}`);
}

export async function hideElements(page: Page, selectors: readonly string[]): Promise<void> {
  if (selectors.length === 0) return;
  const failure = invalidSelectorFailure(await page.evaluate(hideSelectorsScript(selectors)));
  if (failure) throw failure;
}

/** Returns whether the page was tall enough to scroll, i.e. whether lazy content may have started loading. */
/** Scrolling for lazy content is a courtesy, not worth a large share of a capture's budget (captures and scenario shots alike). */
export const LAZY_SCROLL_BUDGET_MS = 2_000;

export async function revealLazyContent(page: Page, maxHeight: number, budgetMs: number): Promise<boolean> {
  if (budgetMs <= 0) return false;
  return (await page.evaluate(revealLazyContentScript(maxHeight, budgetMs))) === true;
}

async function documentHeight(page: Page): Promise<number> {
  const height = await page.evaluate(documentHeightScript);
  return typeof height === 'number' && Number.isFinite(height) ? height : 0;
}

/**
 * Full page: the viewport's width × the document's height, cut at maxFullPageHeight, and never shorter
 * than the viewport. The width stays the viewport's so the client gets the width it asked for.
 * Otherwise exactly the viewport. Sizes are CSS pixels; the PNG is deviceScaleFactor times larger.
 */
export async function takeScreenshot(page: Page, options: { fullPage: boolean; maxFullPageHeight: number; fastPngEncoding: boolean }): Promise<CaptureResult> {
  const viewport = page.viewport();
  if (!viewport) throw new Error('takeScreenshot needs a page with an explicit viewport');
  let data: Uint8Array;
  if (options.fullPage) {
    const height = Math.min(Math.max(await documentHeight(page), viewport.height), options.maxFullPageHeight);
    data = await page.screenshot({
      type: 'png',
      clip: { x: 0, y: 0, width: viewport.width, height },
      // Renders beyond the viewport without resizing it, so 100vh layouts and media queries keep
      // the viewport the client asked for.
      captureBeyondViewport: true,
      optimizeForSpeed: options.fastPngEncoding,
    });
  } else {
    data = await page.screenshot({
      type: 'png',
      captureBeyondViewport: false,
      optimizeForSpeed: options.fastPngEncoding,
    });
  }
  // puppeteer 24 returns a Uint8Array; the port promises a Buffer.
  const png = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return { png, ...pngSize(png) };
}
