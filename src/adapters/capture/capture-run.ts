import type { ElementHandle, HTTPResponse, Page } from 'puppeteer';

import { notAnsweredMessage } from '../../shared/domain/capture-timeout';
import type { ContextLease } from './browser-pool';
import {
  CaptureFailure,
  LoggedOutFailure,
  type CaptureReport,
  type CaptureRequest,
  type CaptureResult,
  type CaptureTiming,
} from '../../modules/screenshots/application/capture.port';
import type { CaptureSettings } from './capture-options';
import { isNavigationRace, PAGE_CRASHED_MESSAGE, toCaptureFailure } from './capture-errors';
import {
  boxesScript,
  fullPageModeScript,
  ImageOrigin,
  readyStateCompleteScript,
  reportScript,
  unfoldScrollContainerScript,
  visibleTextScript,
} from './in-page-scripts';
import { CookieBanners } from './cookie-banners';
import { NavigationEgress } from './navigation-egress';
import {
  addStyleSheet,
  assertValidSelector,
  clickElement,
  hideElements,
  LAZY_SCROLL_BUDGET_MS,
  layoutZoom,
  pageLayoutOf,
  type PageLayout,
  preparePage,
  removeElements,
  revealLazyContent,
  runScripts,
} from './page-steps';
import { takeOutput } from './page-content';
import { resizeOutput, scaleBoxes } from './output-resize';
import { PageSettler, requestLabel } from './page-stability';
import { navigate, PICTURE_RESERVE_MS } from './navigation';
import { type CaptureObservations, captureWarnings } from '../../shared/domain/capture-warnings';
import { fullPageMaxHeight } from './tall-page';
import { within } from '../../shared/domain/within';
import { imageFormatOf, isImageFormat, isVideoFormat } from '../../shared/domain/output-format';
import type { ResolvedOutput } from '../../shared/domain/capture-option-rules';

type Phase = 'opening' | 'navigation' | 'settling' | 'selector' | 'scripts' | 'click' | 'element' | 'rendering';

/** Which part of CaptureTiming the time spent in each phase goes to. */
const TIMED_AS: Record<Phase, keyof CaptureTiming> = {
  opening: 'navigationMs',
  navigation: 'navigationMs',
  settling: 'settleMs',
  selector: 'settleMs',
  // The client's own scripts and clicks work on the page before the picture: waits for it, timed as such.
  scripts: 'settleMs',
  click: 'settleMs',
  element: 'settleMs',
  rendering: 'renderMs',
};

/**
 * The longest a wait after load may go on past the stability cap while requests the page started after load are
 * in flight (PageSettler): a chain of requests is waited for, within the capture's own budget.
 */
const LATE_REQUESTS_MAX_WAIT_MS = 10_000;

/**
 * A selector (wait_for_selector, selector) not there once the page has been still this long is given up on: the
 * page has nothing more coming, so the capture fails now in words instead of waiting out its whole time limit. An
 * element that comes while the page still works (requests, DOM changes, short timers) is waited for as before.
 */
export const SELECTOR_GIVE_UP_STILL_MS = 3_000;

/** The words of a selector given up on once the page was still (the dashboard shows them beside the option's field). */
export function selectorAbsentMessage(option: 'wait_for_selector' | 'selector', selector: string, stillMs: number): string {
  return `No element matches ${option} "${selector}": the page finished loading and stayed still for ${stillMs / 1000} s without one`;
}

/** fail_on_status: whether this status fails the capture (true: any 4xx or 5xx). */
export function failsOnStatus(status: number | null, failOn: CaptureRequest['failOnStatus']): boolean {
  if (status === null || failOn === undefined) return false;
  return failOn === true ? status >= 400 && status <= 599 : failOn.includes(status);
}

/** A page that keeps navigating by itself after 'load' (script or meta redirects) gets this many tries. */
const MAX_DOCUMENTS = 3;

/** What a stitched full page leaves of the capture's time for stacking and encoding its parts. */
const STITCH_RESERVE_MS = 2_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Chromium cannot render beyond this in either direction (its maximum texture size). */
const MAX_VIEWPORT_SIDE = 16_384;

/**
 * The API validates requests; this guard exists so a request that slipped through fails once as the
 * page's fault, instead of as a protocol error that would be retried as infrastructure.
 */
export function assertSaneRequest(request: CaptureRequest): void {
  const problems: string[] = [];
  const side = (name: string, value: number): void => {
    if (!Number.isInteger(value) || value < 1 || value > MAX_VIEWPORT_SIDE) {
      problems.push(`${name} must be an integer from 1 to ${MAX_VIEWPORT_SIDE}`);
    }
  };
  side('viewportWidth', request.viewportWidth);
  side('viewportHeight', request.viewportHeight);
  if (!(request.deviceScaleFactor >= 1 && request.deviceScaleFactor <= 5)) {
    problems.push('deviceScaleFactor must be from 1 to 5 (the API allows 1..3; device presets go up to 4.5)');
  }
  if (!(request.delayMs >= 0)) problems.push('delayMs must not be negative');
  if (problems.length > 0) {
    throw new CaptureFailure('page', `Invalid capture request: ${problems.join('; ')}`);
  }
}

/**
 * One capture in a leased context, bounded as a whole by settings.timeoutMs. When the budget runs out
 * the run stops waiting and reports a page failure; the pool then closes the context, which also
 * stops whatever the page was still doing.
 */
/** The visible text as the page answered it: '' when it answered something else. */
function textOf(read: unknown): string {
  return typeof read === 'string' ? read : '';
}

export class CaptureRun {
  private phase: Phase = 'opening';
  private phaseStartedAt = 0;
  private readonly timing: CaptureTiming = { navigationMs: 0, settleMs: 0, renderMs: 0 };
  private deadline = 0;
  /** The budget of the whole capture: the request's timeout_ms, never above the capturer's own. */
  private readonly timeoutMs: number;
  /** The main document's last HTTP status (redirects excluded), and when its navigation event fired. */
  private httpStatus: number | null = null;
  private loadedAt = 0;
  /** Requests the navigation gave up on (host/path), and whether the document parsed to its end (navigation.ts). */
  private hungRequests: string[] = [];
  private parsed = true;
  /** What the capture noticed on its way that the report's warnings are made of (beside what the report reads). */
  private scrollContainer: CaptureObservations['scrollContainer'] = null;
  private consentUnanswered = false;
  private unpaintedIframes = 0;
  private readonly crashed: Promise<never>;
  private reportCrash!: (failure: CaptureFailure) => void;

  constructor(
    private readonly lease: ContextLease,
    private readonly request: CaptureRequest,
    private readonly settings: CaptureSettings,
  ) {
    this.crashed = new Promise<never>((_, reject) => {
      this.reportCrash = reject;
    });
    this.crashed.catch(() => undefined);
    this.timeoutMs = Math.min(request.timeoutMs ?? settings.timeoutMs, settings.timeoutMs);
  }

  async execute(): Promise<CaptureResult> {
    this.deadline = Date.now() + this.timeoutMs;
    this.phaseStartedAt = performance.now();
    const work = this.steps();
    // After a timeout or crash nobody awaits the steps any more; their late failure is expected.
    work.catch(() => undefined);
    try {
      return await within(Promise.race([work, this.crashed, this.lease.lost]), this.timeoutMs, () => new CaptureFailure('page', this.timeoutMessage()));
    } catch (error) {
      throw toCaptureFailure(error, {
        timeoutMessage: this.timeoutMessage(),
        browserLost: this.lease.isLost(),
      });
    }
  }

  private async steps(): Promise<CaptureResult> {
    const page = await this.lease.openPage();
    page.on('error', () => this.reportCrash(new CaptureFailure('page', PAGE_CRASHED_MESSAGE)));
    // The main document's status after redirects; a document the page navigates to by itself replaces it.
    page.on('response', (response: HTTPResponse) => {
      const status = response.status();
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame() && (status < 300 || status > 399)) this.httpStatus = status;
    });
    await preparePage(page, { ...this.request, siteUrl: this.request.url });

    const banners = this.request.blockCookieBanners ? await CookieBanners.install(page) : null;
    const egress = new NavigationEgress(page, this.lease.egress);
    const settler = new PageSettler(page, this.request.waitUntil ?? 'stable', this.settings);

    this.enter('navigation');
    // An HTTP error status is not a failure: like commercial services we capture the error page. A
    // refusal by the egress proxy (the URL or a redirect leads somewhere the policy forbids) is one. A document that
    // answered is captured even when some of what it loads never answers (navigation.ts).
    const navigation = await navigate(page, this.request.url, {
      waitUntil: settler.navigationEvent,
      deadline: this.deadline,
      // A short time limit keeps a share of itself for the picture, not the default's fixed 3 s.
      reserveMs: Math.min(PICTURE_RESERVE_MS, this.timeoutMs / 3),
    }).catch((error: unknown) => {
      throw egress.explainNavigationError(error, this.request.url) ?? error;
    });
    const { response } = navigation;
    egress.checkResponse(response);
    this.hungRequests = navigation.hung.map((request) => requestLabel(request.url()));
    this.parsed = navigation.parsed;
    settler.ignoreHung(navigation.hung);
    this.loadedAt = performance.now();
    this.lease.loaded();
    if (response && (response.status() < 300 || response.status() > 399)) this.httpStatus = response.status();
    // Before any wait: a page the client does not want captured costs no more than its load.
    if (failsOnStatus(this.httpStatus, this.request.failOnStatus)) throw new CaptureFailure('page', `The page answered HTTP ${this.httpStatus}`);

    for (let document = 1; ; document++) {
      try {
        return await this.captureLoadedDocument(page, egress, settler, banners);
      } catch (error) {
        if (document >= MAX_DOCUMENTS || !isNavigationRace(error)) throw error;
        this.enter('navigation');
        await page.waitForFunction(readyStateCompleteScript, { timeout: this.remaining() });
      }
    }
  }

  private async captureLoadedDocument(page: Page, egress: NavigationEgress, settler: PageSettler, banners: CookieBanners | null): Promise<CaptureResult> {
    const { request, settings } = this;
    // The report's evaluation, made by the settle wait's last probe when nothing is to change the page after it.
    // Of an element exactly when a selector is asked for (without a match the capture fails).
    const textRead = this.textRead(Boolean(request.selector));
    const readAtSettle = this.stillFromSettleToPicture(banners) ? reportScript(textRead?.beforePicture ? textRead.script : null) : undefined;
    this.enter('settling');
    const afterLoad = await settler.afterLoad(this.budget(settings.networkIdleMaxWaitMs), this.budget(LATE_REQUESTS_MAX_WAIT_MS), readAtSettle);
    if (banners) {
      // A consent dialog being answered: wait for the answer (bounded), then for what it changed.
      this.consentUnanswered = !(await banners.answered(this.budget(settings.networkIdleMaxWaitMs)));
      await settler.afterChange(this.budget(settings.networkIdleMaxWaitMs));
    }

    // A saved session's logged-in mark, looked for once the page settled (a login page it redirected to has none).
    const loggedIn = request.session?.loggedInSelector;
    if (loggedIn) {
      assertValidSelector(loggedIn);
      if (!(await page.$(loggedIn))) throw new LoggedOutFailure(loggedIn);
    }

    if (request.waitForSelector) {
      this.enter('selector');
      assertValidSelector(request.waitForSelector);
      await this.awaitSelector(page, settler, request.waitForSelector, 'wait_for_selector');
      // What appeared with the selector may have started more (its images, a fetch): settle again.
      this.enter('settling');
      await settler.afterChange(this.budget(settings.networkIdleMaxWaitMs));
    }

    if (request.scripts.length > 0) {
      this.enter('scripts');
      await runScripts(page, request.scripts);
      // What the scripts changed may load more (images, fetches): settle as after any change.
      this.enter('settling');
      await settler.afterChange(this.budget(settings.networkIdleMaxWaitMs));
    }
    for (const selector of request.click) {
      this.enter('click');
      await clickElement(page, selector);
      this.enter('settling');
      await settler.afterChange(this.budget(settings.networkIdleMaxWaitMs));
    }

    this.enter('rendering');
    await hideElements(page, request.hideSelectors);
    await removeElements(page, request.removeSelectors);
    if (request.css || request.removeSelectors.length > 0) {
      if (request.css) await addStyleSheet(page, request.css);
      // The sheet, or what moved up into the space removed elements freed, may start loading fonts or images:
      // settle again (a probe or two when it does not).
      this.enter('settling');
      await settler.afterChange(this.budget(settings.networkIdleMaxWaitMs));
      this.enter('rendering');
    }
    let element: ElementHandle | undefined;
    if (request.selector) {
      this.enter('element');
      assertValidSelector(request.selector);
      element = await this.awaitSelector(page, settler, request.selector, 'selector');
    }
    // Scrolling for lazy content and the client's delay_ms are waits for the page, timed as such.
    this.enter('settling');
    // A PDF prints the whole document and a video scrolls through it, so their lazy content is revealed as for a
    // full-page image.
    if (!element && !request.clip && (request.fullPage || wholeDocument(request.output))) {
      // Lazy images and infinite lists start loading when scrolled into view: settle once more after
      // the scroll (see PageSettler.afterScroll for when that costs anything).
      let requested = 0;
      const countRequest = (): void => {
        requested += 1;
      };
      page.on('request', countRequest);
      try {
        // An app shell scrolls inside an element, not as a document: that element is unfolded first, so the walk
        // and the picture see its whole content.
        if (request.fullPageScrollSelector) assertValidSelector(request.fullPageScrollSelector);
        const unfolded = (await page.evaluate(unfoldScrollContainerScript(request.fullPageScrollSelector ?? null))) as {
          selector: string;
          whole: boolean;
        } | null;
        if (unfolded) this.scrollContainer = { selector: unfolded.selector, whole: unfolded.whole };
        const scrolled = await revealLazyContent(page, settings.maxFullPageHeight, this.budget(LAZY_SCROLL_BUDGET_MS));
        await settler.afterScroll(scrolled, requested, this.budget(settings.networkIdleMaxWaitMs), this.budget(LATE_REQUESTS_MAX_WAIT_MS));
      } finally {
        page.off('request', countRequest);
      }
    }
    if (request.delayMs > 0) await sleep(Math.min(request.delayMs, this.remaining()));
    this.enter('rendering');
    // The page may have navigated itself (script, meta refresh) to a refused destination after load.
    egress.assertDocumentAllowed();
    const ignoreBoxes = await this.measureIgnoredBoxes(page, element !== undefined);
    // The layout is read once, here, after everything that can change the page's height (scripts, clicks, hidden
    // and removed elements, the style sheet, the lazy-content scroll, delay_ms): the report's page height and
    // truncation and the full-page picture's size come from the same reading.
    const {
      report,
      layout,
      text: readWithFacts,
    } = await this.report(
      page,
      settler,
      element !== undefined,
      textRead?.beforePicture ? textRead.script : null,
      afterLoad.read, // present only when readAtSettle was given and the wait read it
    );
    const stitch = await this.needsStitching(page, element !== undefined, layout);
    const picture = await takeOutput(page, {
      stitch: stitch ? { deadline: this.deadline - STITCH_RESERVE_MS } : undefined,
      contents: request.contents,
      fullPage: request.fullPage,
      element,
      clip: request.clip,
      maxFullPageHeight: settings.maxFullPageHeight,
      fastPngEncoding: settings.fastPngEncoding,
      ffmpegPath: settings.ffmpegPath,
      output: request.output,
      layout,
    });
    const result = await resizeOutput(picture, request);
    // ...or while the screenshot was being taken: then the picture may show the refusal, not the page.
    egress.assertDocumentAllowed();
    const text = textRead ? textOf(textRead.beforePicture ? readWithFacts : await page.evaluate(textRead.script)) : undefined;
    this.enter('rendering'); // books the screenshot's own time, which no later phase change would
    return {
      ...result,
      settle: { ...settler.report },
      timing: { ...this.timing },
      report,
      ...(ignoreBoxes ? { ignoreBoxes: scaleBoxes(ignoreBoxes, picture, result) } : {}),
      ...(text !== undefined ? { text } : {}),
    };
  }

  /**
   * Text changes: the visible text (so it is the text the picture shows, for an element capture the element's),
   * without the change_ignore_selectors. Images only. Read with the report's facts, in the same evaluation, when
   * that only reads the page; with change_ignore_selectors it briefly takes those elements out of the layout, so it
   * runs right after the picture instead, which then never sees it.
   */
  private textRead(ofElement: boolean): { script: string; beforePicture: boolean } | null {
    const { request } = this;
    if (!request.keepText || request.output?.format === 'pdf') return null;
    const ignore = request.ignoreSelectors ?? [];
    return { script: visibleTextScript(ignore, ofElement && request.selector ? request.selector : null), beforePicture: ignore.length === 0 };
  }

  /**
   * Whether nothing the request asks for can change the page between the settle wait after load and the picture, so
   * the report may be read by that wait's last probe (PageStability.waitForStable): no consent answer, selector
   * wait, script, click, hidden or removed element, style sheet, element, lazy-content scroll (full page, PDF) or
   * delay. With wait_until other than `stable` there is no probe and the report is read on its own as before.
   */
  private stillFromSettleToPicture(banners: CookieBanners | null): boolean {
    const { request } = this;
    const scrollsForLazyContent = !request.clip && (request.fullPage || wholeDocument(request.output));
    return (
      banners === null &&
      !request.waitForSelector &&
      request.scripts.length === 0 &&
      request.click.length === 0 &&
      request.hideSelectors.length === 0 &&
      request.removeSelectors.length === 0 &&
      !request.css &&
      !request.selector &&
      !scrollsForLazyContent &&
      !(request.delayMs > 0)
    );
  }

  /**
   * The capture report, read just before the picture, and the page's layout, which the full-page picture is sized
   * by (one evaluation: the title, the page's full height and its layout width, and the visible text when it can
   * be read then: one round trip to the page fewer per capture). `readAtSettle`: the same evaluation's value as the
   * settle wait's last probe read it (stillFromSettleToPicture), when it did; then the page is not asked again.
   */
  private async report(
    page: Page,
    settler: PageSettler,
    ofElement: boolean,
    textScript: string | null,
    readAtSettle: unknown,
  ): Promise<{ report: CaptureReport; layout: PageLayout; text: unknown }> {
    const { request, settings } = this;
    const read = readAtSettle ?? (await page.evaluate(reportScript(textScript)));
    const { facts, text: readWithFacts } = read as {
      facts: { title: unknown; height: unknown; width: unknown; looping?: unknown; consent?: unknown };
      text?: unknown;
    };
    const layout = pageLayoutOf(facts);
    const pageHeight = Math.round(layout.height);
    const format = request.output?.format ?? 'png';
    const viewport = page.viewport();
    const fullPageImage = request.fullPage && isImageFormat(format) && !ofElement && !request.clip;
    // A page laid out wider than a phone's viewport is shown zoomed out (takeScreenshot), fitting more of its px.
    const zoom = viewport ? layoutZoom(layout, viewport.width) : 1;
    const maxHeight = viewport
      ? fullPageMaxHeight(imageFormatOf(format), viewport.width, viewport.deviceScaleFactor ?? 1, settings.maxFullPageHeight) / zoom
      : Infinity;
    const truncated = fullPageImage && pageHeight > maxHeight;
    const hung = this.hungRequests.length > 0 || !this.parsed;
    const report: CaptureReport = {
      httpStatus: this.httpStatus,
      finalUrl: page.url(),
      title: typeof facts.title === 'string' ? facts.title.slice(0, 1000) : '',
      pageHeight,
      truncated,
      settled: settler.settled && !hung,
      waitedMs: Math.round(performance.now() - this.loadedAt),
      pending: [...new Set([...this.hungRequests, ...settler.pending])].slice(0, 5),
      warnings: captureWarnings({
        hungRequests: this.hungRequests,
        parsed: this.parsed,
        animationRunning: facts.looping === true,
        scrollContainer: this.scrollContainer,
        unpaintedIframes: this.unpaintedIframes,
        cut: truncated ? { pageHeight, maxHeight } : null,
        consent: this.consentUnanswered ? 'unanswered' : facts.consent === true && !request.blockCookieBanners ? 'not_asked' : null,
      }),
    };
    return { report, layout, text: readWithFacts };
  }

  /**
   * Whether the full page must be taken viewport by viewport (stitched-page.ts): content the reveal saw shown is
   * hidden again, or frames below the first screen would be blank. Only for a full-page image at the page's own
   * zoom; a phone showing a wider layout keeps the one-surface picture, and its frames are flagged instead.
   */
  private async needsStitching(page: Page, ofElement: boolean, layout: PageLayout): Promise<boolean> {
    const { request } = this;
    if (!request.fullPage || ofElement || request.clip || wholeDocument(request.output)) return false;
    const mode = (await page.evaluate(fullPageModeScript)) as { rehidden: number; framesBelow: number };
    const viewport = page.viewport();
    const atOwnZoom = viewport !== null && layoutZoom(layout, viewport.width) === 1;
    if (!atOwnZoom) this.unpaintedIframes = mode.framesBelow;
    return atOwnZoom && (mode.rehidden > 0 || mode.framesBelow > 0);
  }

  /** Change history's ignored regions, measured just before the picture (in its pixels); none for a PDF. */
  private async measureIgnoredBoxes(page: Page, ofElement: boolean): Promise<CaptureResult['ignoreBoxes']> {
    const { request } = this;
    if (!request.ignoreSelectors?.length || request.output?.format === 'pdf') return undefined;
    const origin: ImageOrigin =
      ofElement && request.selector
        ? { kind: 'element', selector: request.selector }
        : request.clip
          ? { kind: 'clip', x: request.clip.x, y: request.clip.y }
          : request.fullPage
            ? { kind: 'document' }
            : { kind: 'viewport' };
    return page.evaluate(boxesScript(request.ignoreSelectors, origin)) as Promise<CaptureResult['ignoreBoxes']>;
  }

  /** Phases change at every step, so the time spent is booked here rather than around each await. */
  private enter(phase: Phase): void {
    const now = performance.now();
    this.timing[TIMED_AS[this.phase]] += now - this.phaseStartedAt;
    this.phase = phase;
    this.phaseStartedAt = now;
  }

  /**
   * The first element matching the selector: waited for while the page works, given up on (CaptureFailure naming the
   * option) once the page has been still for SELECTOR_GIVE_UP_STILL_MS without one; the capture's deadline bounds both.
   */
  private async awaitSelector(page: Page, settler: PageSettler, selector: string, option: 'wait_for_selector' | 'selector'): Promise<ElementHandle> {
    let found = false;
    const appeared = page.waitForSelector(selector, { timeout: this.remaining() }).then((element) => {
      found = true;
      return element;
    });
    appeared.catch(() => undefined);
    const givenUp = (async (): Promise<null> => {
      while (!found) {
        const still = await settler.stillFor(SELECTOR_GIVE_UP_STILL_MS, this.remaining() - 1);
        if (found) break;
        if (still && (await page.$(selector)) === null) {
          throw new CaptureFailure('page', selectorAbsentMessage(option, selector, SELECTOR_GIVE_UP_STILL_MS));
        }
        if (!still && this.deadline - Date.now() <= 1) break;
      }
      return null;
    })();
    givenUp.catch(() => undefined);
    const element = (await Promise.race([appeared, givenUp])) ?? (await appeared);
    if (!element) throw new CaptureFailure('page', `No element matches selector "${selector}"`);
    return element;
  }

  /** Never 0: puppeteer reads a timeout of 0 as "wait forever". */
  private remaining(): number {
    return Math.max(1, this.deadline - Date.now());
  }

  private budget(ms: number): number {
    return Math.min(ms, this.deadline - Date.now());
  }

  private timeoutMessage(): string {
    const ms = this.timeoutMs;
    switch (this.phase) {
      case 'opening':
      case 'navigation':
        // Past the document's answer the navigation ends by itself before the deadline (navigation.ts): a timeout
        // here is a page that never answered.
        return notAnsweredMessage(ms);
      case 'selector':
        return `Timed out after ${ms} ms waiting for selector "${this.request.waitForSelector ?? ''}"`;
      case 'element':
        return `Timed out after ${ms} ms waiting for an element matching selector "${this.request.selector ?? ''}"`;
      case 'scripts':
        return `The scripts did not finish within ${ms} ms`;
      case 'click':
        return `Timed out after ${ms} ms clicking`;
      case 'settling':
      case 'rendering':
        return `Page did not finish rendering within ${ms} ms`;
    }
  }
}

/** Outputs that show the whole document without being a full-page picture: a printed PDF, a scrolling video. */
function wholeDocument(output: ResolvedOutput | undefined): boolean {
  return output?.format === 'pdf' || isVideoFormat(output?.format);
}
