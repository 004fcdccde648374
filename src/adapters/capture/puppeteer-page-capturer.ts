import type { BeforeApplicationShutdown } from '@nestjs/common';
import type { Page } from 'puppeteer';

import { BrowserPool, type BrowserPoolDeps, type ContextLease, type PoolStats } from './browser-pool';
import {
  CaptureFailure,
  PageCapturer,
  type CaptureLoad,
  type ScenarioTab,
  type CaptureRequest,
  type CaptureResult,
  type PageOptions,
} from '../../modules/screenshots/application/capture.port';
import { resolveCaptureSettings, type CaptureSettings } from './capture-options';
import { toCaptureFailure } from './capture-errors';
import { assertSaneRequest, CaptureRun } from './capture-run';
import { preparePage } from './page-steps';
import { PuppeteerScenarioTab } from './puppeteer-scenario-tab';
import { within } from '../../shared/domain/within';
import { maskProxy } from '../../shared/domain/proxy-url';

/** Opening a tab takes milliseconds; a browser that needs longer is wedged. */
const OPEN_TAB_MS = 10_000;

/**
 * The PageCapturer backed by a pool of headless Chromium browsers. Every capture and every scenario page
 * gets its own incognito context, so no cookies, storage or cache leak between clients.
 */
export class PuppeteerPageCapturer extends PageCapturer implements BeforeApplicationShutdown {
  readonly settings: CaptureSettings;
  private readonly pool: BrowserPool;

  /** `deps` lets tests replace collaborators such as the egress proxy's host resolver. */
  constructor(settings: Partial<CaptureSettings> = {}, deps: BrowserPoolDeps = {}) {
    super();
    this.settings = resolveCaptureSettings(settings);
    this.pool = new BrowserPool(this.settings, deps);
  }

  async capture(request: CaptureRequest): Promise<CaptureResult> {
    assertSaneRequest(request);
    const proxy = request.proxy ? maskProxy(request.proxy) : null;
    const result = await this.pool.withContext((lease) => new CaptureRun(lease, request, this.settings).execute(), { upstream: request.proxy });
    // The report says which proxy the page went through (masked), null when it went straight out.
    return result.report ? { ...result, report: { ...result.report, proxy } } : result;
  }

  withPage<T>(opts: PageOptions, fn: (page: ScenarioTab) => Promise<T>): Promise<T> {
    const openBy = opts.openTimeoutMs === undefined ? undefined : Date.now() + opts.openTimeoutMs;
    return this.pool.withContext(
      async (lease) => {
        const page = await this.openPage(lease, opts, openBy);
        return fn(new PuppeteerScenarioTab(page, lease, this.settings, opts.waitUntil));
      },
      { openBy },
    );
  }

  /** Launches the browsers ahead of the first job. */
  warmUp(): Promise<void> {
    return this.pool.warmUp();
  }

  /** For health checks and tests: live browsers, their process ids, captures running and waiting. */
  stats(): PoolStats {
    return this.pool.stats();
  }

  /** For tests: browsers whose prewarmed spare is ready for the next capture. */
  readySpares(): number {
    return this.pool.readySpares;
  }

  /** For tests and leak checks: listeners of the egress proxy open now (a spare's, and one per capture running). */
  openEgressListeners(): number {
    return this.pool.openEgressListeners;
  }

  load(): CaptureLoad {
    const { browsers, busyBrowsers, inFlight, waiting } = this.pool.stats();
    return { busyBrowsers, idleBrowsers: browsers - busyBrowsers, inFlight, waiting };
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /**
   * A new tab, set up, within OPEN_TAB_MS and by `openBy` (the caller's time left). Giving up is an
   * infrastructure failure: no page has been asked for yet, so it cannot be the page's fault. A tab that
   * opens later belongs to the lease's context, which is closed when the lease ends.
   */
  private async openPage(lease: ContextLease, opts: PageOptions, openBy: number | undefined): Promise<Page> {
    const ms = Math.max(1, Math.min(OPEN_TAB_MS, openBy === undefined ? OPEN_TAB_MS : openBy - Date.now()));
    const opening = (async () => {
      const page = await lease.openPage();
      await preparePage(page, opts);
      return page;
    })();
    opening.catch(() => undefined);
    try {
      return await within(Promise.race([opening, lease.lost]), ms, () => new CaptureFailure('infrastructure', 'Timed out opening a browser tab'));
    } catch (error) {
      throw toCaptureFailure(error, {
        timeoutMessage: 'Timed out opening a browser tab',
        browserLost: lease.isLost(),
      });
    }
  }

  /**
   * Runs after every module's onModuleDestroy, so after the job dispatcher has stopped taking jobs, given the
   * running ones their grace (SHUTDOWN_GRACE_MS) and handed the rest back to the queue: a capture still running
   * now belongs to an attempt already given up, so the browsers close at once. One cut off by the close never
   * settles, so our own shutdown is never recorded as its job's failure (see BrowserPool.drain).
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.pool.drain(0);
  }
}
