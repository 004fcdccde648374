/**
 * The stability wait (wait_until 'stable'): after `load`, the capture is taken as soon as the page has
 * been still for a settle window, instead of after a fixed network-quiet window every page pays for.
 */
import { TimeoutError, type HTTPRequest, type Page } from 'puppeteer';

import type { WaitUntil } from '../../shared/domain/wait-until';
import type { CaptureSettings } from './capture-options';
import { stabilityProbeScript, stabilityTrackerScript } from './in-page-scripts';

/**
 * Timers up to this long hold the capture (a fetch started from setTimeout(…, 1000) after load); longer
 * ones and intervals do not, or a ticking clock or a banner due in 30 s would hold every capture.
 */
export const SHORT_TIMER_MS = 2_000;
/** While the page is busy (a timer pending, a request in flight) it is asked again this often. */
const BUSY_POLL_MS = 20;

export const stabilityTracker = stabilityTrackerScript(SHORT_TIMER_MS);
const stabilityProbe = stabilityProbeScript(SHORT_TIMER_MS);

/** How a wait after `load` ended: how long it took, and whether the cap cut it short. */
export interface SettleReport {
  ms: number;
  capped: boolean;
}

interface Probe {
  busy: boolean;
  quietMs: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves with the evaluation, or with null after ms. A page whose main thread is stuck (a script busy
 * for seconds) cannot answer, and then counts as not settled rather than holding the capture.
 */
async function evaluateWithin(page: Page, script: string, ms: number): Promise<unknown> {
  const evaluation = page.evaluate(script);
  evaluation.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([evaluation, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Watches one page's requests from before its navigation (a request started while the document parsed
 * may still be in flight after `load`) and waits for stability on demand. The page's side (timers,
 * mutations, fonts, image decoding, short animations) comes from the tracker, installed by preparePage.
 */
export class PageStability {
  private readonly inFlight = new Set<HTTPRequest>();
  private lastNetworkActivity = Date.now();
  private readonly onRequest = (request: HTTPRequest): void => {
    this.inFlight.add(request);
    this.lastNetworkActivity = Date.now();
  };
  private readonly onRequestDone = (request: HTTPRequest): void => {
    this.inFlight.delete(request);
    this.lastNetworkActivity = Date.now();
  };

  constructor(
    private readonly page: Page,
    private readonly settleMs: number,
  ) {
    page.on('request', this.onRequest);
    page.on('requestfinished', this.onRequestDone);
    page.on('requestfailed', this.onRequestDone);
  }

  /**
   * Waits until the page is stable for the settle window, or at most maxWaitMs: polling, streaming,
   * long-poll requests and endless timer chains never settle and are captured at the cap. A navigation
   * that replaces the document meanwhile fails the evaluation, which the caller handles like any other
   * navigation race.
   */
  async waitForStable(maxWaitMs: number): Promise<SettleReport> {
    const started = Date.now();
    const deadline = started + maxWaitMs;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) return { ms: Date.now() - started, capped: true };
      const probe = (await evaluateWithin(this.page, stabilityProbe, left)) as Probe | null;
      if (probe === null) return { ms: Date.now() - started, capped: true };
      const networkQuietMs = this.inFlight.size === 0 ? Date.now() - this.lastNetworkActivity : -1;
      if (probe.busy || networkQuietMs < 0) {
        await sleep(Math.min(BUSY_POLL_MS, left));
        continue;
      }
      const quietMs = Math.min(probe.quietMs, networkQuietMs);
      if (quietMs >= this.settleMs) return { ms: Date.now() - started, capped: false };
      // Asked again when the window would be over if nothing happens meanwhile.
      await sleep(Math.min(this.settleMs - quietMs, left));
    }
  }

  dispose(): void {
    this.page.off('request', this.onRequest);
    this.page.off('requestfinished', this.onRequestDone);
    this.page.off('requestfailed', this.onRequestDone);
  }
}

/**
 * wait_until 'network_idle': waits until the network has been quiet for idleMs, but never longer than
 * maxWaitMs: pages that poll or stream never go quiet and must still be captured. Resolves to whether
 * the network went quiet.
 */
export async function waitForNetworkQuiet(page: Page, idleMs: number, maxWaitMs: number): Promise<boolean> {
  if (maxWaitMs <= 0) return false;
  try {
    await page.waitForNetworkIdle({ idleTime: idleMs, timeout: maxWaitMs });
    return true;
  } catch (error) {
    if (!(error instanceof TimeoutError)) throw error;
    return false;
  }
}

/**
 * The waits after the navigation event for one page and one wait_until choice, with what they cost
 * added up (the capture's settle time, reported with its result). Must be created before the first
 * navigation, so requests started while the document loads are counted.
 */
export class PageSettler {
  readonly report: SettleReport = { ms: 0, capped: false };
  private readonly stability: PageStability | null;

  constructor(
    private readonly page: Page,
    readonly waitUntil: WaitUntil,
    private readonly settings: Pick<CaptureSettings, 'settleWindowMs' | 'networkIdleMs'>,
  ) {
    this.stability = waitUntil === 'stable' ? new PageStability(page, settings.settleWindowMs) : null;
  }

  /** The puppeteer event goto() waits for. */
  get navigationEvent(): 'load' | 'domcontentloaded' {
    return this.waitUntil === 'domcontentloaded' ? 'domcontentloaded' : 'load';
  }

  /**
   * After the navigation event: nothing for load/domcontentloaded, else the chosen wait, at most
   * maxWaitMs. Each wait resolves to what it cost.
   */
  async afterLoad(maxWaitMs: number): Promise<SettleReport> {
    if (this.stability) return this.add(await this.stability.waitForStable(maxWaitMs));
    if (this.waitUntil !== 'network_idle') return { ms: 0, capped: false };
    const started = Date.now();
    const quiet = await waitForNetworkQuiet(this.page, this.settings.networkIdleMs, maxWaitMs);
    return this.add({ ms: Date.now() - started, capped: !quiet });
  }

  /**
   * After something that may start more work (a selector appearing, a scenario step): only the stability
   * wait runs again. It costs a probe or two on a page that is still, and network_idle keeps its old
   * behaviour of waiting only after load and after the lazy scroll.
   */
  async afterChange(maxWaitMs: number): Promise<SettleReport> {
    return this.stability ? this.add(await this.stability.waitForStable(maxWaitMs)) : { ms: 0, capped: false };
  }

  /**
   * After the full-page scroll. network_idle pays its quiet window only when the scroll requested
   * something (most pages request nothing when scrolled); the stability wait is cheap when nothing moved.
   */
  async afterScroll(scrolled: boolean, requested: number, maxWaitMs: number): Promise<SettleReport> {
    if (scrolled && (this.stability || (this.waitUntil === 'network_idle' && requested > 0))) {
      return this.afterLoad(maxWaitMs);
    }
    return { ms: 0, capped: false };
  }

  dispose(): void {
    this.stability?.dispose();
  }

  /** Adds one wait to the total and returns it. */
  private add(wait: SettleReport): SettleReport {
    this.report.ms += wait.ms;
    this.report.capped ||= wait.capped;
    return wait;
  }
}
