/**
 * The building blocks of a capture over a puppeteer Page, shared by one-shot captures and scenario pages.
 */
import { recordScrollVideo } from './scroll-video';
import type { ElementHandle, HTTPRequest, Page } from 'puppeteer';

import { CaptureFailure, type CaptureResult, type Emulation } from '../../modules/screenshots/application/capture.port';
import { addStyleSheetScript, disableServiceWorkersScript, fullPageLayoutScript, hideSelectorsScript } from './in-page-scripts';
import { isValidCssSelector } from '../../shared/css-selector/css-selector';
import { stabilityTracker } from './page-stability';
import { imageSize } from 'image-size';
import type { ResolvedOutput } from '../../shared/domain/capture-option-rules';
import type { Clip } from '../../shared/domain/page-options';
import type { WaitUntil } from '../../shared/domain/wait-until';
import type { MediaType } from '../../shared/domain/page-options';
import { errorMessage } from '../../shared/domain/error-message';
import { isNavigationRace } from './capture-errors';
import { browserRefusal, CaptureSecrets, CookieSpec, isFirstParty } from '../../shared/domain/capture-secrets';
import { requestBlocker, type BlockingChoice, type RequestBlocker } from './ad-blocking';
import { fullPageImage, fullPageMaxHeight } from './tall-page';
import { stitchedFullPage } from './stitched-page';
import { pdfPageInches, printWithOptions } from './pdf-options';
import { imageFormatOf } from '../../shared/domain/output-format';
import type { OriginStorage, SessionState } from '../../shared/domain/session-state';

/**
 * What a page is set up with before its first navigation. Both callers hand over their whole request (a capture's
 * CaptureRequest, a scenario's PageOptions): a page option added here is read from either without touching them.
 */
export interface PageSetup extends BlockingChoice {
  viewportWidth: number;
  viewportHeight: number;
  deviceScaleFactor?: number;
  darkMode?: boolean;
  /** 'stable' (the default) installs the stability wait's in-page tracker; other waits do not need it. */
  waitUntil?: WaitUntil;
  /** Device and browser emulation beyond the viewport; none by default. */
  emulation?: Emulation;
  /** Resource types aborted before they are requested. */
  blockResources?: readonly string[];
  /** Headers, cookies and Basic credentials, for `siteUrl`'s host and its subdomains only. */
  secrets?: CaptureSecrets;
  /** The website's URL: whose host is first party for `secrets`. */
  siteUrl?: string;
  /** prefers-reduced-motion: reduce. */
  reducedMotion?: boolean;
  /** The CSS media type; unset, Chromium's own (screen; print for a PDF). */
  mediaType?: MediaType;
  /** URL patterns (`*` for any characters) never requested. */
  blockRequests?: readonly string[];
  /** A saved session: its cookies (each to its own host) and its origins' storage. */
  session?: { state: SessionState };
}

/**
 * Must run before the first navigation: dialogs, media emulation and the service-worker removal have to
 * be in place for the load. The independent CDP calls go out together, so the set-up costs one round-trip.
 */
export async function preparePage(page: Page, setup: PageSetup): Promise<void> {
  // A value saved before the API refused it (a CR/LF user agent in an old row) never reaches Chromium, which
  // fails such a call like a lost browser (retried, "the browser crashed") or drops the request (a blank page):
  // the page's fault, named, once.
  const refusal = browserRefusal({ secrets: setup.secrets, userAgent: setup.emulation?.userAgent ?? undefined });
  if (refusal) throw new CaptureFailure('page', refusal);
  // An unanswered alert()/confirm()/prompt() blocks the page, and its load event, forever. A
  // beforeunload prompt is accepted instead: dismissing it would cancel the navigation the capture or
  // scenario asked for, and leave goto() waiting out its timeout.
  page.on('dialog', (dialog) => {
    const answer = dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss();
    answer.catch(() => undefined);
  });
  await Promise.all([
    // One script, one call: both must run before any of the page's own.
    page.evaluateOnNewDocument(
      (setup.waitUntil ?? 'stable') === 'stable' ? `${disableServiceWorkersScript};\n${stabilityTracker}` : disableServiceWorkersScript,
    ),
    page.setViewport({
      width: setup.viewportWidth,
      height: setup.viewportHeight,
      deviceScaleFactor: setup.deviceScaleFactor ?? 1,
      isMobile: setup.emulation?.mobile ?? false,
      hasTouch: setup.emulation?.touch ?? false,
    }),
    emulateMedia(page, setup),
    setup.blockRequests?.length ? blockUrls(page, setup.blockRequests) : undefined,
    setup.emulation ? emulate(page, setup.emulation) : undefined,
    requestBlocker(setup).then((blocker) => interceptRequests(page, setup, blocker)),
    setup.session ? startSession(page, setup.session.state) : undefined,
  ]);
  // After the session's cookies: a capture's own `cookies` are nearer to the request and win a name they share.
  if (setup.secrets?.cookies?.length && setup.siteUrl) await setCookies(page, setup.secrets.cookies, new URL(setup.siteUrl).hostname);
}

/**
 * A saved session's state (docs/sessions.md). Its cookies go into this capture's own browser context as they were
 * kept — a host-only cookie by URL, so the browser sends it to that host alone, a domain cookie to the domain and its
 * subdomains — and the browser's cookie jar sends each only where it belongs. The storage is written by a script
 * that runs before any of the page's own, in a document of the origin it was kept for only, and only where the page
 * has not set the item itself (a later navigation of the same tab keeps what the page changed).
 */
async function startSession(page: Page, state: SessionState): Promise<void> {
  const work: Array<Promise<unknown>> = [];
  if (state.cookies.length > 0) {
    // Through the protocol: puppeteer's setCookie makes every cookie a domain cookie, and a host-only cookie keeps
    // its flag only when given by URL.
    const cookies = state.cookies.map((c) => ({
      name: c.name,
      value: c.value,
      // An address or a single-label host (localhost) has no subdomains: set by URL too.
      ...(c.hostOnly || !/[a-z]/i.test(c.domain) || !c.domain.includes('.')
        ? { url: `${c.secure ? 'https' : 'http'}://${c.domain}${c.path}` }
        : { domain: `.${c.domain}` }),
      path: c.path,
      secure: c.secure,
      httpOnly: c.httpOnly,
      ...(c.expires !== null ? { expires: c.expires } : {}),
      ...(c.sameSite !== undefined ? { sameSite: c.sameSite } : {}),
    }));
    work.push(page.createCDPSession().then((session) => session.send('Network.setCookies', { cookies })));
  }
  const stored = state.origins.filter((o) => o.localStorage.length + o.sessionStorage.length > 0);
  if (stored.length > 0) work.push(page.evaluateOnNewDocument(sessionStorageScript(stored)));
  await Promise.all(work);
}

/** The in-page script that writes a session's storage for the document's own origin (JSON-encoded data, no code). */
function sessionStorageScript(origins: readonly OriginStorage[]): string {
  const byOrigin = Object.fromEntries(origins.map((o) => [o.origin, { l: o.localStorage, s: o.sessionStorage }]));
  return `(() => {
  const all = ${JSON.stringify(byOrigin)};
  let mine;
  try { mine = all[location.origin]; } catch (e) { return; }
  if (!mine) return;
  const put = (store, items) => { try { for (const it of items) if (store.getItem(it.name) === null) store.setItem(it.name, it.value); } catch (e) {} };
  put(localStorage, mine.l);
  put(sessionStorage, mine.s);
})();`;
}

/**
 * dark_mode, reduced_motion and media_type. Chromium's Emulation.setEmulatedMedia sets the media type and the media
 * features together (a call without one clears it), and puppeteer sends each as a call of its own: with a media
 * type, both go in one call on a session of their own, so neither undoes the other.
 */
async function emulateMedia(page: Page, setup: PageSetup): Promise<void> {
  const features = [
    ...(setup.darkMode ? [{ name: 'prefers-color-scheme', value: 'dark' }] : []),
    ...(setup.reducedMotion ? [{ name: 'prefers-reduced-motion', value: 'reduce' }] : []),
  ];
  if (!setup.mediaType) {
    if (features.length > 0) await page.emulateMediaFeatures(features);
    return;
  }
  const session = await page.createCDPSession();
  await session.send('Emulation.setEmulatedMedia', { media: setup.mediaType, features });
}

/**
 * block_requests: Chromium's own blocked-URL list (Network.setBlockedURLs, `*` wildcards), checked in the browser
 * before a request leaves: no interception round-trip per request, and the page sees a request blocked by the client.
 */
async function blockUrls(page: Page, patterns: readonly string[]): Promise<void> {
  const session = await page.createCDPSession();
  await session.send('Network.enable');
  await session.send('Network.setBlockedURLs', { urls: [...patterns] });
}

/**
 * User agent, locale and time zone. The locale needs two protocol calls puppeteer has no API for
 * (Emulation.setLocaleOverride for Intl and navigator.language, acceptLanguage on the user-agent override for
 * the header), sent on a session of their own that stays attached for the page's life.
 */
async function emulate(page: Page, emulation: Emulation): Promise<void> {
  const work: Array<Promise<unknown>> = [];
  if (emulation.timezone) work.push(page.emulateTimezone(emulation.timezone));
  if (emulation.locale) {
    const session = await page.createCDPSession();
    const userAgent = emulation.userAgent ?? (await page.browser().userAgent());
    work.push(session.send('Emulation.setLocaleOverride', { locale: emulation.locale }));
    work.push(session.send('Network.setUserAgentOverride', { userAgent, acceptLanguage: emulation.locale }));
  } else if (emulation.userAgent) {
    work.push(page.setUserAgent({ userAgent: emulation.userAgent }));
  }
  await Promise.all(work);
}

/**
 * Request interception, only when something needs it (it pauses every request for a round-trip): blocked resource
 * types and ad/tracker requests are aborted, and the website's own host and its subdomains get the extra headers
 * and Basic credentials — never a third party, whatever the page loads or redirects to.
 */
async function interceptRequests(page: Page, setup: PageSetup, blocker: RequestBlocker | null): Promise<void> {
  const blocked = new Set(setup.blockResources ?? []);
  const extra = firstPartyHeaders(setup.secrets);
  const siteHost = setup.siteUrl ? new URL(setup.siteUrl).hostname : null;
  if (blocked.size === 0 && !blocker && (!extra || !siteHost)) return;
  page.on('request', (request) => {
    if (request.isInterceptResolutionHandled()) return;
    let answer: Promise<void>;
    if (blocked.has(request.resourceType())) answer = request.abort('blockedbyclient');
    else if (blocker && isBlockedByList(blocker, request, page, setup.siteUrl)) answer = request.abort('blockedbyclient');
    else if (extra && siteHost && isFirstParty(hostOf(request.url()), siteHost)) answer = request.continue({ headers: { ...request.headers(), ...extra } });
    else answer = request.continue();
    answer.catch(() => undefined);
  });
  await page.setRequestInterception(true);
}

/** The page's own document is never blocked (the user asked for it); frames and subresources are matched. */
function isBlockedByList(blocker: RequestBlocker, request: HTTPRequest, page: Page, siteUrl: string | undefined): boolean {
  const frame = request.frame();
  if (request.isNavigationRequest() && frame === page.mainFrame()) return false;
  const type = request.resourceType() === 'document' ? 'sub_frame' : request.resourceType();
  // The document making the request decides what is third party; before its first commit a frame is about:blank.
  const source = frame?.url() ?? '';
  return blocker.blocks(request.url(), type, source.startsWith('http') ? source : (siteUrl ?? request.url()));
}

function firstPartyHeaders(secrets: CaptureSecrets | undefined): Record<string, string> | null {
  if (!secrets?.headers && !secrets?.httpAuth) return null;
  const auth = secrets.httpAuth;
  return {
    ...secrets.headers,
    ...(auth ? { Authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` } : {}),
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/** The website's cookies, in this capture's own browser context (gone with it); the domain defaults to its host. */
async function setCookies(page: Page, cookies: readonly CookieSpec[], siteHost: string): Promise<void> {
  await page.browserContext().setCookie(
    ...cookies.map((c) => ({
      name: c.name,
      value: c.value,
      domain: c.domain ?? siteHost,
      path: c.path ?? '/',
      ...(c.secure !== undefined ? { secure: c.secure } : {}),
      ...(c.httpOnly !== undefined ? { httpOnly: c.httpOnly } : {}),
      ...(c.sameSite !== undefined ? { sameSite: c.sameSite } : {}),
    })),
  );
}

/** Adds a style sheet (the `css` option) the page's CSP cannot refuse: a constructed sheet, not a <style>. */
export async function addStyleSheet(page: Page, css: string): Promise<void> {
  await page.evaluate(addStyleSheetScript(css));
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

/** remove_selectors: display none (the space is freed), by a constructed sheet as for hiding. */
export async function removeElements(page: Page, selectors: readonly string[]): Promise<void> {
  if (selectors.length === 0) return;
  const failure = invalidSelectorFailure(await page.evaluate(hideSelectorsScript(selectors, 'display: none !important;')));
  if (failure) throw failure;
}

/** The first line of an error from the page, bounded: a job's error names it without a stack trace. */
function pageErrorText(error: unknown): string {
  // puppeteer rebuilds the page's error with its name ("ReferenceError") apart from its message.
  const text = error instanceof Error ? `${error.name}: ${error.message}` : errorMessage(error);
  return (text.split('\n')[0] ?? '').slice(0, 300);
}

/**
 * scripts: each runs in the page's main world as the body of an async function (it may await; its promise is
 * waited for), in order. Its result is dropped (a DOM node or window cannot cross back). A script that throws or
 * rejects fails the capture naming it; the page replacing its document while one runs is a navigation race (the
 * capture run follows the new document).
 */
export async function runScripts(page: Page, scripts: readonly string[]): Promise<void> {
  for (const [index, script] of scripts.entries()) {
    try {
      await page.evaluate(`(async () => { await (async () => {\n${script}\n})(); })()`);
    } catch (error) {
      if (isNavigationRace(error)) throw error;
      throw new CaptureFailure('page', `scripts[${index}] failed: ${pageErrorText(error)}`);
    }
  }
}

/** click: the first element matching the selector, clicked at its centre (scrolled into view first). */
export async function clickElement(page: Page, selector: string): Promise<void> {
  assertValidSelector(selector);
  const element = await page.$(selector);
  if (!element) throw new CaptureFailure('page', `Click target not found: ${selector}`);
  try {
    await element.click();
  } catch (error) {
    if (isNavigationRace(error)) throw error;
    throw new CaptureFailure('page', `Could not click ${selector}: ${pageErrorText(error)}`);
  } finally {
    await element.dispose().catch(() => undefined);
  }
}

/** The full-page reveal lives in its own module; captures and scenario pages reach it from here. */
export { LAZY_SCROLL_BUDGET_MS, revealLazyContent } from './lazy-reveal';

/** The document's height and the layout viewport's width, CSS px (fullPageLayoutScript's, or pageFactsScript's). */
export interface PageLayout {
  height: number;
  width: number;
}

/** The layout an in-page script answered, each side 0 when it is not a finite number. */
export function pageLayoutOf(answer: { height: unknown; width: unknown }): PageLayout {
  const finite = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  return { height: finite(answer.height), width: finite(answer.width) };
}

/**
 * The zoom a phone shows the layout at: a page without a mobile viewport meta is laid out 980 px wide (wider than
 * the device) and shown zoomed out to the device's width, so its full page is the layout's width and height at that
 * zoom — the device's width, no cut right side, no blank band below. Elsewhere the layout is the viewport's width
 * and the zoom 1.
 */
export function layoutZoom(layout: PageLayout, viewportWidth: number): number {
  return layout.width > viewportWidth ? viewportWidth / layout.width : 1;
}

const CSS_PX_PER_INCH = 96;

const PNG_OUTPUT: ResolvedOutput = { format: 'png', quality: null, pdf: null, omitBackground: false };

export interface ScreenshotSetup {
  fullPage: boolean;
  /**
   * Full page: take it viewport by viewport while each part is in view (stitched-page.ts), parts after `deadline`
   * without waiting for them. For pages that hide content revealed on scroll, or have frames below the first screen.
   */
  stitch?: { deadline: number };
  /** Only this element (already waited for), scrolled into view; fullPage is ignored. */
  element?: ElementHandle;
  /** Only this rectangle, CSS px; fullPage is ignored. */
  clip?: Clip | null;
  maxFullPageHeight: number;
  fastPngEncoding: boolean;
  /** The ffmpeg that encodes videos (FFMPEG_PATH); unset: `ffmpeg` on the PATH. */
  ffmpegPath?: string | null;
  /** Default: a PNG. */
  output?: ResolvedOutput;
  /**
   * Full page: the layout as the caller has just read it, when nothing can have changed the page since (a capture
   * reads it once for its report and its picture alike, so the two agree); read here when absent.
   */
  layout?: PageLayout;
}

/**
 * Images: full page is the viewport's width × the document's height, cut at maxFullPageHeight, and never
 * shorter than the viewport; the width stays the viewport's so the client gets the width it asked for.
 * Otherwise exactly the viewport. Sizes are CSS pixels; the image is deviceScaleFactor times larger, and its
 * real size is read back from the file. PDF: see printPdf.
 */
export async function takeScreenshot(page: Page, setup: ScreenshotSetup): Promise<CaptureResult> {
  const output = setup.output ?? PNG_OUTPUT;
  if (output.pdf) return printPdf(page, output.pdf, setup.fastPngEncoding);
  if (output.video) {
    return recordScrollVideo(page, output.video, {
      ffmpegPath: setup.ffmpegPath,
      fastPngEncoding: setup.fastPngEncoding,
      maxDistance: setup.maxFullPageHeight,
    });
  }
  const format = imageFormatOf(output.format);
  const viewport = page.viewport();
  if (!viewport) throw new Error('takeScreenshot needs a page with an explicit viewport');
  const common = {
    type: format,
    ...(output.quality !== null ? { quality: output.quality } : {}),
    omitBackground: output.omitBackground,
    optimizeForSpeed: setup.fastPngEncoding,
  } as const;
  let data: Uint8Array;
  if (setup.element) {
    const box = await setup.element.boundingBox();
    if (!box || box.width < 1 || box.height < 1) throw new CaptureFailure('page', 'The element matching selector has no size to capture');
    data = await setup.element.screenshot({ ...common }); // scrolled into view first (puppeteer's default)
  } else if (setup.clip) {
    data = await page.screenshot({ ...common, clip: setup.clip, captureBeyondViewport: true });
  } else if (setup.fullPage) {
    const layout = setup.layout ?? pageLayoutOf((await page.evaluate(fullPageLayoutScript)) as { height: unknown; width: unknown });
    const zoom = layoutZoom(layout, viewport.width);
    const deviceScaleFactor = viewport.deviceScaleFactor ?? 1;
    // The image's bounds are in the picture's CSS px: a zoomed-out layout (a phone without a viewport meta) fits
    // more of its own px in them.
    const maxHeight = fullPageMaxHeight(format, viewport.width, deviceScaleFactor, setup.maxFullPageHeight) / zoom;
    const height = Math.min(Math.max(layout.height, viewport.height / zoom), maxHeight);
    // Renders beyond the viewport without resizing it (so 100vh layouts and media queries keep the viewport the
    // client asked for), in tiles beyond Chromium's texture limit.
    data =
      setup.stitch && zoom === 1
        ? await stitchedFullPage(page, common, {
            width: viewport.width,
            height,
            viewportHeight: viewport.height,
            deviceScaleFactor,
            deadline: setup.stitch.deadline,
          })
        : await fullPageImage(page, common, viewport.width / zoom, height, deviceScaleFactor, zoom);
  } else {
    data = await page.screenshot({ ...common, captureBeyondViewport: false });
  }
  // puppeteer 24 returns a Uint8Array; the port promises a Buffer.
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return { data: bytes, format, ...pixelSize(bytes) };
}

/** Read back from the file rather than computed from the request: catches any mismatch in what Chromium made. */
function pixelSize(image: Buffer): { width: number; height: number } {
  const { width, height } = imageSize(image);
  if (!width || !height) throw new Error('Chromium produced an image without a size');
  return { width, height };
}

/**
 * A PDF of the page as print media, on the chosen paper. The first viewport is captured as a PNG first (the
 * screen as the client's viewport shows it): the thumbnail is made from it, since nothing here renders PDF.
 */
async function printPdf(page: Page, pdf: NonNullable<ResolvedOutput['pdf']>, fastPngEncoding: boolean): Promise<CaptureResult> {
  const preview = await page.screenshot({ type: 'png', captureBeyondViewport: false, optimizeForSpeed: fastPngEncoding });
  const data = await printWithOptions(page, pdf);
  const { width, height } = pdfPageInches(pdf);
  return {
    data: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    format: 'pdf',
    width: Math.round(width * CSS_PX_PER_INCH),
    height: Math.round(height * CSS_PX_PER_INCH),
    preview: Buffer.from(preview.buffer, preview.byteOffset, preview.byteLength),
  };
}
