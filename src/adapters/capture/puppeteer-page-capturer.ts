import type { OnModuleDestroy } from '@nestjs/common';
import type { Page } from 'puppeteer';

import { BrowserPool, type BrowserPoolDeps, type ContextLease, type PoolStats } from './browser-pool';
import {
  PageCapturer,
  type CapturePage,
  type CaptureRequest,
  type CaptureResult,
  type PageOptions,
} from './capture.port';
import { resolveCaptureSettings, type CaptureSettings } from './capture-options';
import { toCaptureFailure } from './capture-errors';
import { assertSaneRequest, CaptureRun } from './capture-run';
import { preparePage } from './page-steps';
import { PuppeteerCapturePage } from './puppeteer-capture-page';

/**
 * The PageCapturer backed by a pool of headless Chromium browsers. Every capture and every scenario page
 * gets its own incognito context, so no cookies, storage or cache leak between clients.
 */
export class PuppeteerPageCapturer extends PageCapturer implements OnModuleDestroy {
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
    return this.pool.withContext((lease) => new CaptureRun(lease, request, this.settings).execute());
  }

  withPage<T>(opts: PageOptions, fn: (page: CapturePage) => Promise<T>): Promise<T> {
    return this.pool.withContext(async (lease) => {
      const page = await this.openPage(lease, opts);
      return fn(new PuppeteerCapturePage(page, lease, this.settings));
    });
  }

  /** Launches the browsers ahead of the first job. */
  warmUp(): Promise<void> {
    return this.pool.warmUp();
  }

  /** For health checks and tests: live browsers, their process ids, captures running and waiting. */
  stats(): PoolStats {
    return this.pool.stats();
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async openPage(lease: ContextLease, opts: PageOptions): Promise<Page> {
    try {
      const page = await Promise.race([lease.context.newPage(), lease.lost]);
      await preparePage(page, {
        viewportWidth: opts.viewportWidth,
        viewportHeight: opts.viewportHeight,
        deviceScaleFactor: opts.deviceScaleFactor ?? 1,
        darkMode: opts.darkMode ?? false,
      });
      return page;
    } catch (error) {
      throw toCaptureFailure(error, {
        timeoutMessage: 'Timed out opening a browser tab',
        browserLost: lease.isLost(),
      });
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.close();
  }
}
