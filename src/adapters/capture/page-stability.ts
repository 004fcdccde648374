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
/**
 * Past the cap, a capture keeps waiting while a request the page started after load is in flight and younger than
 * this: the next link of a chain (a fetch that starts another), late fonts queued behind Chromium's six
 * connections per host. A request older than this is a long poll or a stream, which never ends.
 */
export const LATE_REQUEST_MAX_AGE_MS = 5_000;
/** How often the cap's extension looks again at the requests in flight. */
const LATE_REQUEST_POLL_MS = 250;

/** A request as the capture report names it: host/path, no query string or fragment (they may carry tokens). */
export function requestLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.host ? `${parsed.host}${parsed.pathname}` : `${parsed.protocol}${parsed.pathname.slice(0, 60)}`;
  } catch {
    return url.slice(0, 100);
  }
}

export const stabilityTracker = stabilityTrackerScript(SHORT_TIMER_MS);
const stabilityProbe = stabilityProbeScript(SHORT_TIMER_MS);

/** How a wait after `load` ended: how long it took, and whether the cap cut it short. */
export interface SettleReport {
  ms: number;
  capped: boolean;
}

/** A wait's end, with what the page answered to the script it was given to read once still (see waitForStable). */
export interface SettledRead extends SettleReport {
  /** Present only when the wait settled on the probe that read it. */
  read?: unknown;
}

interface Probe {
  busy: boolean;
  quietMs: number;
  read?: unknown;
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
  /** Each request in flight, with when it started (Date.now()). */
  private readonly inFlight = new Map<HTTPRequest, number>();
  private lastNetworkActivity = Date.now();
  private readonly onRequest = (request: HTTPRequest): void => {
    this.inFlight.set(request, Date.now());
    this.lastNetworkActivity = Date.now();
  };
  private readonly onRequestDone = (request: HTTPRequest): void => {
    if (this.hung.has(request)) return;
    this.inFlight.delete(request);
    this.lastNetworkActivity = Date.now();
  };
  /** Requests the navigation gave up on (navigation.ts): they no longer hold the page's stability. */
  private readonly hung = new WeakSet<HTTPRequest>();

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
   *
   * `read`: a script the probe that finds the page still evaluates in the same task, its value returned with the
   * wait's end — the capture report's, when nothing is to happen between this wait and the picture: one round trip
   * to the renderer fewer per capture (+1.5 % of a batch's throughput on a small page, both builds alternated;
   * docs/benchmark.md, seventh session). Absent when the wait ends at its cap or the network was busy again after that probe.
   * `windowMs`: how long the page must have been still (the settle window by default; longer to give up on a selector).
   */
  async waitForStable(maxWaitMs: number, read?: string, windowMs = this.settleMs): Promise<SettledRead> {
    const probeScript = read === undefined ? stabilityProbe : stabilityProbeScript(SHORT_TIMER_MS, { quietMs: this.settleMs, script: read });
    const started = Date.now();
    const deadline = started + maxWaitMs;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) return { ms: Date.now() - started, capped: true };
      // The page is asked only once the network has been quiet for the window: before that, whatever it answers,
      // the wait goes on (a request in flight, or one that ended less than a window ago). Right after load that
      // saves a round trip to the renderer per capture, and a page with a long poll is not asked every 20 ms for
      // nothing. Images are still decoded as they arrive: the tracker starts each decode at the image's load.
      const networkQuietBefore = this.networkQuietMs();
      if (networkQuietBefore < windowMs) {
        await sleep(Math.min(networkQuietBefore < 0 ? BUSY_POLL_MS : windowMs - networkQuietBefore, left));
        continue;
      }
      const probe = (await evaluateWithin(this.page, probeScript, left)) as Probe | null;
      if (probe === null) return { ms: Date.now() - started, capped: true };
      const networkQuietMs = this.networkQuietMs();
      if (probe.busy || networkQuietMs < 0) {
        await sleep(Math.min(BUSY_POLL_MS, left));
        continue;
      }
      const quietMs = Math.min(probe.quietMs, networkQuietMs);
      if (quietMs >= windowMs) return { ms: Date.now() - started, capped: false, ...('read' in probe ? { read: probe.read } : {}) };
      // Asked again when the window would be over if nothing happens meanwhile.
      await sleep(Math.min(windowMs - quietMs, left));
    }
  }

  /** Leaves these requests out from now on: they never answered, and the capture goes on without them. */
  ignore(requests: readonly HTTPRequest[]): void {
    for (const request of requests) {
      this.hung.add(request);
      this.inFlight.delete(request);
    }
  }

  /** How long since the last request started or ended; -1 while one is in flight. */
  private networkQuietMs(): number {
    return this.inFlight.size === 0 ? Date.now() - this.lastNetworkActivity : -1;
  }

  /** Up to `limit` requests in flight, oldest first, as host/path (no query string: it may carry tokens). */
  pending(limit: number): string[] {
    return [...this.inFlight.keys()].slice(0, limit).map((request) => requestLabel(request.url()));
  }

  /** The requests in flight that started at or after `since` and are younger than maxAgeMs. */
  youngRequestsInFlight(since: number, maxAgeMs: number): HTTPRequest[] {
    const now = Date.now();
    return [...this.inFlight].filter(([, started]) => started >= since && now - started < maxAgeMs).map(([request]) => request);
  }

  /** Whether one of these requests is still in flight and younger than maxAgeMs. */
  anyStillInFlight(requests: readonly HTTPRequest[], maxAgeMs: number): boolean {
    const now = Date.now();
    return requests.some((request) => {
      const started = this.inFlight.get(request);
      return started !== undefined && now - started < maxAgeMs;
    });
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
  /** When the first wait after the navigation event began (requests started after it are "late"). */
  private loadedAt: number | null = null;
  /** The last wait ended at its cap, and what was in flight then (the capture report's settled and pending). */
  private lastCapped = false;
  private pendingAtCap: string[] = [];

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
  async afterLoad(maxWaitMs: number, lateMaxWaitMs = 0, read?: string): Promise<SettledRead> {
    this.loadedAt ??= Date.now();
    if (this.stability) return this.add(await this.stable(this.stability, maxWaitMs, lateMaxWaitMs, read));
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
  async afterChange(maxWaitMs: number, lateMaxWaitMs = 0): Promise<SettleReport> {
    return this.stability ? this.add(await this.stable(this.stability, maxWaitMs, lateMaxWaitMs)) : { ms: 0, capped: false };
  }

  /**
   * Whether the page stays still (the stability wait's sense; for the other wait_until choices, the network) for
   * windowMs within maxWaitMs: how a wait for a selector knows that no more is coming. Not counted in the report.
   */
  async stillFor(windowMs: number, maxWaitMs: number): Promise<boolean> {
    if (maxWaitMs <= 0) return false;
    if (this.stability) return !(await this.stability.waitForStable(maxWaitMs, undefined, windowMs)).capped;
    return waitForNetworkQuiet(this.page, windowMs, maxWaitMs);
  }

  /** The navigation ended without its event: these requests never answered and no longer hold the waits. */
  ignoreHung(requests: readonly HTTPRequest[]): void {
    this.stability?.ignore(requests);
  }

  /** Whether the last wait ended with the page still (false: at its cap, with work going on). */
  get settled(): boolean {
    return !this.lastCapped;
  }

  /** Up to 5 requests in flight when the last wait hit its cap (none when it settled, or without the stability wait). */
  get pending(): string[] {
    return this.lastCapped ? [...this.pendingAtCap] : [];
  }

  /**
   * The stability wait, at most maxWaitMs. When the cap fires, the requests then in flight that the page started
   * after load and that are young (LATE_REQUEST_MAX_AGE_MS) are waited for, up to lateMaxWaitMs in all, then one
   * more short settle: the late link of a chain of fetches, late fonts. A stream or long poll ages out; a polling
   * page pays at most one short request and one step, since later requests are not waited for.
   */
  private async stable(stability: PageStability, maxWaitMs: number, lateMaxWaitMs: number, read?: string): Promise<SettledRead> {
    const first = await stability.waitForStable(maxWaitMs, read);
    // Settled at once: what it read is the page as it is now. Past the cap the page is read by the caller instead.
    if (!first.capped) return first;
    let ms = first.ms;
    let capped: boolean = first.capped;
    const awaited = capped && ms < lateMaxWaitMs ? stability.youngRequestsInFlight(this.loadedAt ?? 0, LATE_REQUEST_MAX_AGE_MS) : [];
    if (awaited.length > 0) {
      const step = async (): Promise<void> => {
        const next = await stability.waitForStable(Math.min(LATE_REQUEST_POLL_MS, lateMaxWaitMs - ms));
        ms += next.ms;
        capped = next.capped;
      };
      while (capped && ms < lateMaxWaitMs && stability.anyStillInFlight(awaited, LATE_REQUEST_MAX_AGE_MS)) await step();
      // What the awaited requests brought may need a moment to settle (a render, the next fetch it triggers).
      if (capped && ms < lateMaxWaitMs && !stability.anyStillInFlight(awaited, LATE_REQUEST_MAX_AGE_MS)) await step();
    }
    if (capped) this.pendingAtCap = stability.pending(5);
    return { ms, capped };
  }

  /**
   * After the full-page scroll. network_idle pays its quiet window only when the scroll requested
   * something (most pages request nothing when scrolled); the stability wait is cheap when nothing moved.
   */
  async afterScroll(scrolled: boolean, requested: number, maxWaitMs: number, lateMaxWaitMs = 0): Promise<SettleReport> {
    if (scrolled && (this.stability || (this.waitUntil === 'network_idle' && requested > 0))) {
      return this.afterLoad(maxWaitMs, lateMaxWaitMs);
    }
    return { ms: 0, capped: false };
  }

  dispose(): void {
    this.stability?.dispose();
  }

  /** Adds one wait to the total and returns it. */
  private add<T extends SettleReport>(wait: T): T {
    this.report.ms += wait.ms;
    this.report.capped ||= wait.capped;
    this.lastCapped = wait.capped;
    return wait;
  }
}
