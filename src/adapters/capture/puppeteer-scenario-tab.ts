import type { KeyInput, Page } from 'puppeteer';

import { notAnsweredMessage } from '../../shared/domain/capture-timeout';
import type { ContextLease } from './browser-pool';
import { CaptureFailure, type ScenarioTab, type CaptureResult, type ScrollTarget } from '../../modules/screenshots/application/capture.port';
import type { CaptureSettings } from './capture-options';
import type { WaitUntil } from '../../shared/domain/wait-until';
import { PAGE_CRASHED_MESSAGE, toCaptureFailure } from './capture-errors';
import { fillTargetScript, focusAndSelectAllScript, scrollToBottomScript } from './in-page-scripts';
import { NavigationEgress } from './navigation-egress';
import { assertValidSelector, LAZY_SCROLL_BUDGET_MS, revealLazyContent, takeScreenshot } from './page-steps';
import { navigate, PICTURE_RESERVE_MS } from './navigation';
import { PageSettler } from './page-stability';
import type { OriginStorage, SessionCookie, SessionState } from '../../shared/domain/session-state';

/** Reads the document's origin and its two storages (items as {name, value}); null where storage is closed to it. */
const readStorageScript = `(() => {
  const items = (store) => { const out = []; for (let i = 0; i < store.length; i++) { const name = store.key(i); out.push({ name, value: store.getItem(name) ?? '' }); } return out; };
  try { return { origin: location.origin, localStorage: items(localStorage), sessionStorage: items(sessionStorage) }; } catch (e) { return null; }
})()`;

/** How long after a click a navigation may take to start and still count as caused by it. */
const NAVIGATION_START_WINDOW_MS = 150;

function locate(page: Page, selector: string, timeoutMs: number) {
  return page.locator(selector).setTimeout(timeoutMs);
}

/** Spelled through inference: the element type puppeteer names lives in the DOM lib, which we do not load. */
type ElementLocator = ReturnType<typeof locate>;

/**
 * A scenario's view of a browser tab. Element actions go through puppeteer locators, which wait for
 * the element to be attached, visible, enabled and still before acting, as a person would.
 * Each action is bounded by timeoutMs (default: the capture timeout) and fails with a CaptureFailure.
 */
export class PuppeteerScenarioTab implements ScenarioTab {
  private readonly crashed: Promise<never>;
  private readonly egress: NavigationEgress;
  /** Created with the page, before its first navigation: see PageSettler. */
  private readonly settler: PageSettler;
  /** The storage of each origin the main frame showed, read before each step that may leave it (browserState). */
  private readonly storageByOrigin = new Map<string, OriginStorage>();

  constructor(
    private readonly page: Page,
    private readonly lease: ContextLease,
    private readonly settings: CaptureSettings,
    waitUntil: WaitUntil = 'stable',
  ) {
    this.crashed = new Promise<never>((_, reject) => {
      page.once('error', () => reject(new CaptureFailure('page', PAGE_CRASHED_MESSAGE)));
    });
    this.crashed.catch(() => undefined);
    this.egress = new NavigationEgress(page, lease.egress);
    this.settler = new PageSettler(page, waitUntil, settings);
  }

  goto(url: string, timeoutMs = this.settings.timeoutMs): Promise<void> {
    return this.act(notAnsweredMessage(timeoutMs), async () => {
      await this.keepStorage();
      const started = Date.now();
      // A document that answered is gone on with even when some of what it loads never answers (navigation.ts).
      const navigation = await navigate(this.page, url, {
        waitUntil: this.settler.navigationEvent,
        deadline: started + timeoutMs,
        reserveMs: Math.min(PICTURE_RESERVE_MS, timeoutMs / 3),
      }).catch((error: unknown) => {
        throw this.egress.explainNavigationError(error, url) ?? error;
      });
      this.egress.checkResponse(navigation.response);
      this.settler.ignoreHung(navigation.hung);
      this.lease.loaded();
      const left = timeoutMs - (Date.now() - started);
      await this.settler.afterLoad(Math.min(this.settings.networkIdleMaxWaitMs, left));
    });
  }

  /**
   * Fills a text field (input, textarea, contenteditable) the way a paste or an input method does: once it is
   * enabled, focus it, select what it holds and insert the whole value in one trusted `input` event. Puppeteer's
   * locator fill instead scrolls it into view, waits for its box to hold still over two animation frames (both
   * only matter to a pointer) and types key by key, two renderer round-trips per character: in a renderer
   * starved of CPU, 21 characters took 1.4 s of a 2 s step budget. Anything else (a select, a checkbox, clearing
   * with an empty value) keeps puppeteer's fill.
   */
  fill(selector: string, value: string, timeoutMs = this.settings.timeoutMs): Promise<void> {
    return this.onElement(selector, 'editable', timeoutMs, async (locator) => {
      const started = Date.now();
      const left = (): number => Math.max(1, timeoutMs - (Date.now() - started));
      const target = (): Promise<string> => this.page.evaluate(fillTargetScript(selector)) as Promise<string>;
      // One plain evaluation first: usually the field is there and enabled, and waitFor* would first inject
      // puppeteer's helper script into the page, itself slow in a busy renderer.
      let found = await target();
      if (found === 'missing' || found === 'disabled') {
        await this.page.waitForFunction(`(${fillTargetScript(selector)}) !== 'missing' && (${fillTargetScript(selector)}) !== 'disabled'`, {
          timeout: left(),
          polling: 'mutation',
        });
        found = await target();
      }
      if (value === '' || found !== 'text') {
        await locator.setTimeout(left()).fill(value);
        return;
      }
      if (!(await this.page.evaluate(focusAndSelectAllScript(selector)))) throw new CaptureFailure('page', `No element matches "${selector}"`);
      await this.page.keyboard.sendCharacter(value);
    });
  }

  /**
   * Clicks like a person: once the element is visible and enabled. A click that starts a navigation (a
   * link, a form post) is followed until the new document has loaded, so the next step sees it.
   */
  click(selector: string, timeoutMs = this.settings.timeoutMs): Promise<void> {
    return this.onElement(selector, 'clickable', timeoutMs, async (locator) => {
      const mainFrame = this.page.mainFrame();
      // Watched from before the click: a fast navigation may be over before the click call returns.
      let navigating = false;
      let loaded = false;
      let onLoaded: () => void = () => undefined;
      const loadedOnce = new Promise<void>((resolve) => (onLoaded = resolve));
      const onRequest = (request: { isNavigationRequest(): boolean; frame(): unknown }): void => {
        if (request.isNavigationRequest() && request.frame() === mainFrame) {
          navigating = true;
          loaded = false;
        }
      };
      const onLoad = (): void => {
        if (!navigating) return;
        loaded = true;
        onLoaded();
      };
      await this.keepStorage();
      this.page.on('request', onRequest);
      this.page.on('load', onLoad);
      try {
        await locator.click();
        // A navigation starts within a task or two of the click; give it a short window to show itself.
        await new Promise((resolve) => setTimeout(resolve, NAVIGATION_START_WINDOW_MS));
        if (navigating && !loaded) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            loadedOnce,
            new Promise<never>(
              (_, reject) =>
                (timer = setTimeout(
                  () => reject(new CaptureFailure('page', `Navigation after clicking "${selector}" did not finish within ${timeoutMs} ms`)),
                  timeoutMs,
                )),
            ),
          ]).finally(() => clearTimeout(timer));
        }
      } finally {
        this.page.off('request', onRequest);
        this.page.off('load', onLoad);
      }
    });
  }

  hover(selector: string, timeoutMs = this.settings.timeoutMs): Promise<void> {
    return this.onElement(selector, 'visible', timeoutMs, (locator) => locator.hover());
  }

  waitForSelector(selector: string, timeoutMs = this.settings.timeoutMs): Promise<void> {
    return this.act(`Timed out after ${timeoutMs} ms waiting for selector "${selector}"`, async () => {
      assertValidSelector(selector);
      const started = Date.now();
      await this.page.waitForSelector(selector, { timeout: timeoutMs });
      // What appeared may have started more (its images, a fetch); the next step should see it done.
      const left = timeoutMs - (Date.now() - started);
      await this.settler.afterChange(Math.min(this.settings.networkIdleMaxWaitMs, left));
    });
  }

  press(key: string): Promise<void> {
    // puppeteer rejects names it does not know ("Unknown key"), which becomes a page failure.
    return this.act(`Timed out pressing "${key}"`, async () => {
      // Enter may submit a form and leave the document: its storage is read first.
      await this.keepStorage();
      await this.page.keyboard.press(key as KeyInput);
    });
  }

  select(selector: string, value: string, timeoutMs = this.settings.timeoutMs): Promise<void> {
    return this.act(this.elementTimeout(selector, 'present', timeoutMs), async () => {
      assertValidSelector(selector);
      await this.page.waitForSelector(selector, { timeout: timeoutMs });
      const selected = await this.page.select(selector, value);
      if (!selected.includes(value)) {
        throw new CaptureFailure('page', `No option with value "${value}" in "${selector}"`);
      }
    });
  }

  scrollTo(target: ScrollTarget, timeoutMs = this.settings.timeoutMs): Promise<void> {
    if (target === 'bottom') {
      return this.act('Timed out scrolling to the bottom', async () => {
        await this.page.evaluate(scrollToBottomScript);
      });
    }
    return this.act(this.elementTimeout(target.selector, 'present', timeoutMs), async () => {
      assertValidSelector(target.selector);
      const element = await this.page.waitForSelector(target.selector, { timeout: timeoutMs });
      if (!element) throw new CaptureFailure('page', `No element matches "${target.selector}"`);
      try {
        await element.scrollIntoView();
      } finally {
        await element.dispose();
      }
    });
  }

  screenshot(opts: { fullPage: boolean }): Promise<CaptureResult> {
    return this.act(`Page did not finish rendering within ${this.settings.timeoutMs} ms`, async () => {
      const { maxFullPageHeight, networkIdleMaxWaitMs, fastPngEncoding } = this.settings;
      // The steps before (a click, typing) may have started work whose result the picture should show.
      const settled = await this.settler.afterChange(networkIdleMaxWaitMs);
      let afterScroll = { ms: 0, capped: false };
      if (opts.fullPage) {
        let requested = 0;
        const countRequest = (): void => {
          requested += 1;
        };
        this.page.on('request', countRequest);
        try {
          const scrolled = await revealLazyContent(this.page, maxFullPageHeight, LAZY_SCROLL_BUDGET_MS);
          afterScroll = await this.settler.afterScroll(scrolled, requested, networkIdleMaxWaitMs);
        } finally {
          this.page.off('request', countRequest);
        }
      }
      // A step (a click on a link, a form post) may have led to a destination the policy refused.
      this.egress.assertDocumentAllowed();
      const result = await takeScreenshot(this.page, { fullPage: opts.fullPage, maxFullPageHeight, fastPngEncoding });
      this.egress.assertDocumentAllowed();
      // This picture's own waits (a navigation's are not reported with any picture).
      return { ...result, settle: { ms: settled.ms + afterScroll.ms, capped: settled.capped || afterScroll.capped } };
    });
  }

  url(): string {
    return this.page.url();
  }

  browserState(): Promise<SessionState> {
    return this.act('Timed out reading the browser state', async () => {
      await this.keepStorage();
      const cookies: SessionCookie[] = (await this.page.browserContext().cookies()).map((c) => ({
        name: c.name,
        value: c.value,
        domain: c.domain.replace(/^\./, ''),
        hostOnly: !c.domain.startsWith('.'),
        path: c.path,
        expires: c.session || c.expires <= 0 ? null : Math.floor(c.expires),
        secure: c.secure,
        httpOnly: c.httpOnly ?? false,
        ...(c.sameSite === 'Strict' || c.sameSite === 'Lax' || c.sameSite === 'None' ? { sameSite: c.sameSite } : {}),
      }));
      return { cookies, origins: [...this.storageByOrigin.values()] };
    });
  }

  /**
   * Reads the current document's storage into storageByOrigin (best effort: a document mid-navigation, or an
   * opaque origin, has none to read). Steps that may leave the document call it first, so a login that ends on
   * another origin still keeps the storage of the one it started on.
   */
  private async keepStorage(): Promise<void> {
    try {
      const read = (await this.page.evaluate(readStorageScript)) as OriginStorage | null;
      if (read && read.origin.startsWith('http')) this.storageByOrigin.set(read.origin, read);
    } catch {
      // Nothing readable now (about:blank, a navigation under way): what was kept before stays.
    }
  }

  private onElement(selector: string, state: string, timeoutMs: number, action: (locator: ElementLocator) => Promise<void>): Promise<void> {
    return this.act(this.elementTimeout(selector, state, timeoutMs), async () => {
      assertValidSelector(selector);
      await action(locate(this.page, selector, timeoutMs));
    });
  }

  private elementTimeout(selector: string, state: string, timeoutMs: number): string {
    return `Timed out after ${timeoutMs} ms waiting for "${selector}" to be ${state}`;
  }

  /** Races the action against a renderer crash and a lost browser, and classifies whatever goes wrong. */
  private async act<T>(timeoutMessage: string, action: () => Promise<T>): Promise<T> {
    const work = action();
    work.catch(() => undefined);
    try {
      return await Promise.race([work, this.crashed, this.lease.lost]);
    } catch (error) {
      throw toCaptureFailure(error, { timeoutMessage, browserLost: this.lease.isLost() });
    }
  }
}
