import type { SavedSessions } from '../../screenshots/application/saved-sessions.port';
import { Logger } from '@nestjs/common';
import { CaptureFailure, ScenarioTab, CaptureResult, PageCapturer, PageOptions } from '../../screenshots/application/capture.port';
import { AppConfig } from '../../../config/app-config';
import { UrlPolicy } from '../../../shared/url-policy';
import { JobRepository } from '../../jobs/application/ports';
import { ScreenshotRepository } from '../../screenshots/application/ports';
import { ScreenshotKeeper } from '../../screenshots/application/screenshot-keeper';
import { JobProps } from '../../jobs/domain/job';
import { WebsiteRepository } from '../../websites/application/ports';
import { WebsiteProps } from '../../websites/domain/website';
import { StepRecord } from '../domain/execution';
import { Step } from '../domain/steps';
import { sealStepSecrets, StoredStep } from '../domain/step-secrets';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { randomBytes } from 'node:crypto';
import { ScenarioRunner } from './scenario-runner';

/**
 * The runner against fakes of every port: time limits and error texts without Chromium or a database.
 * The fake page answers at once unless a test scripts it otherwise.
 */

const PNG: CaptureResult = { data: Buffer.from('png'), format: 'png', width: 800, height: 600 };
const never = <T>(): Promise<T> => new Promise<T>(() => undefined);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const secretBox = new SecretBox(randomBytes(32));

const WEBSITE: WebsiteProps = {
  id: 7,
  accountId: 3,
  name: 'site',
  url: 'https://example.com/',
  viewportWidth: 800,
  viewportHeight: 600,
  changeThreshold: 0.001,
  changeIgnoreSelectors: [],
  alertWhen: {},
  ignoreText: [],
  fullPage: false,
  status: 'active',
  captureOptions: {},
  lastScreenshotAt: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

function job(steps: StoredStep[]): JobProps {
  return {
    id: 'exec-1',
    type: 'scenario',
    accountId: 3,
    websiteId: WEBSITE.id,
    status: 'running',
    source: 'api',
    options: { steps },
    idempotencyKey: null,
    attempts: 1,
    error: null,
    resultId: null,
    scenarioId: 11,
    scheduleId: null,
    result: null,
    createdAt: new Date(0),
    startedAt: new Date(0),
    finishedAt: null,
  };
}

function fakePage(overrides: Partial<ScenarioTab> = {}): ScenarioTab {
  return {
    goto: async () => undefined,
    fill: async () => undefined,
    click: async () => undefined,
    waitForSelector: async () => undefined,
    hover: async () => undefined,
    press: async () => undefined,
    select: async () => undefined,
    scrollTo: async () => undefined,
    screenshot: async () => PNG,
    url: () => WEBSITE.url,
    browserState: async () => ({ cookies: [], origins: [] }),
    ...overrides,
  };
}

interface Harness {
  runner: ScenarioRunner;
  /** The job's end: the error it failed with, or null when it succeeded. */
  outcome: () => { status: 'failed' | 'succeeded' | 'unfinished'; error: string | null };
  /** The screenshot id the job succeeded with (its final screenshot). */
  finalShot: () => number | null;
  records: () => StepRecord[];
  stored: jest.Mock;
  pageOptions: PageOptions[];
  /** Everything written to the job: what a client can ever see of this execution. */
  visible: () => string;
}

function harness(opts: {
  page?: ScenarioTab;
  config?: Partial<AppConfig>;
  store?: (n: number) => Promise<unknown>;
  websiteGoneAfterStart?: boolean;
  urlCheck?: UrlPolicy['check'];
}): Harness {
  let status: 'failed' | 'succeeded' | 'unfinished' = 'unfinished';
  let error: string | null = null;
  let finalShot: number | null = null;
  let lastRecords: StepRecord[] = [];
  const writes: unknown[] = [];
  const jobs = {
    fail: async (_id: string, message: string) => {
      status = 'failed';
      error = message;
      writes.push(message);
      return true;
    },
    succeed: async (_id: string, screenshotId: number | null) => {
      status = 'succeeded';
      finalShot = screenshotId;
      return true;
    },
    saveResult: async (_id: string, result: StepRecord[]) => {
      lastRecords = JSON.parse(JSON.stringify(result));
      writes.push(lastRecords);
      return true;
    },
  } as unknown as JobRepository;
  let stores = 0;
  const stored = jest.fn(async () => {
    stores += 1;
    if (opts.store) await opts.store(stores);
    return { id: 100 + stores };
  });
  let lookups = 0;
  const websites = {
    findById: async () => {
      lookups += 1;
      return opts.websiteGoneAfterStart && lookups > 1 ? null : WEBSITE;
    },
  } as unknown as WebsiteRepository;
  const pageOptions: PageOptions[] = [];
  const page = opts.page ?? fakePage();
  const capturer = {
    capture: async () => PNG,
    withPage: async <T>(options: PageOptions, fn: (p: ScenarioTab) => Promise<T>) => {
      pageOptions.push(options);
      return fn(page);
    },
  } as unknown as PageCapturer;
  const config = { scenarioTimeoutMs: 120_000, captureTimeoutMs: 30_000, scenarioStepTimeoutMs: 10_000, ...opts.config } as AppConfig;
  const runner = new ScenarioRunner(
    jobs,
    { listForExecution: async () => [] } as unknown as ScreenshotRepository,
    { store: stored, remove: async () => undefined } as unknown as ScreenshotKeeper,
    websites,
    capturer,
    { check: opts.urlCheck ?? (async (url: string) => ({ allowed: true, url: new URL(url) })) } as unknown as UrlPolicy,
    { now: () => new Date() },
    config,
    secretBox,
    { resolve: async () => Promise.reject(new Error('no session_id here')) } as unknown as SavedSessions,
  );
  return {
    runner,
    outcome: () => ({ status, error }),
    finalShot: () => finalShot,
    records: () => lastRecords,
    stored,
    pageOptions,
    visible: () => JSON.stringify(writes),
  };
}

describe('ScenarioRunner', () => {
  let logged: string[];
  beforeEach(() => {
    logged = [];
    jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => {
      logged.push(String(message));
    });
  });
  afterEach(() => jest.restoreAllMocks());

  describe('a scenario ending in a screenshot step stores its image once', () => {
    const fullPageArgs = (page: { screenshot: jest.Mock }) => page.screenshot.mock.calls.map(([o]: [{ fullPage: boolean }]) => o.fullPage);

    it('last step `screenshot` (as the final shot would be taken): one capture, one row, and it is the final screenshot', async () => {
      const page = fakePage({ screenshot: jest.fn(async () => PNG) });
      const h = harness({ page });
      await h.runner.handle(job([{ type: 'wait', duration: 0 }, { type: 'screenshot' }]));
      expect(h.outcome()).toEqual({ status: 'succeeded', error: null });
      expect(fullPageArgs(page as never)).toEqual([false]);
      expect(h.stored).toHaveBeenCalledTimes(1);
      expect(h.finalShot()).toBe(101);
    });

    it('`full_page` given but equal to the website’s: still one image', async () => {
      const page = fakePage({ screenshot: jest.fn(async () => PNG) });
      const h = harness({ page });
      await h.runner.handle(job([{ type: 'screenshot', full_page: false }]));
      expect(h.stored).toHaveBeenCalledTimes(1);
      expect(h.finalShot()).toBe(101);
    });

    it('a `full_page` that differs from the final shot’s: two images, the final one taken as the website says', async () => {
      const page = fakePage({ screenshot: jest.fn(async () => PNG) });
      const h = harness({ page });
      await h.runner.handle(job([{ type: 'screenshot', full_page: true }]));
      expect(fullPageArgs(page as never)).toEqual([true, false]);
      expect(h.stored).toHaveBeenCalledTimes(2);
      expect(h.finalShot()).toBe(102);
    });

    it('a step after the screenshot step: the final screenshot is a capture of its own', async () => {
      const page = fakePage({ screenshot: jest.fn(async () => PNG) });
      const h = harness({ page });
      await h.runner.handle(job([{ type: 'screenshot' }, { type: 'wait', duration: 0 }]));
      expect(h.stored).toHaveBeenCalledTimes(2);
      expect(h.finalShot()).toBe(102);
    });

    it('the last screenshot step failed to store: the debugging screenshot is taken, the execution fails', async () => {
      const page = fakePage({ screenshot: jest.fn(async () => PNG) });
      const h = harness({
        page,
        store: async (n) => {
          if (n === 1) throw new Error('disk full');
        },
      });
      await h.runner.handle(job([{ type: 'screenshot' }]));
      expect(h.outcome()).toEqual({ status: 'failed', error: 'Step 0 (screenshot) failed: Storing the screenshot failed' });
      expect(h.stored).toHaveBeenCalledTimes(2);
    });
  });

  describe('the time limit (SCENARIO_TIMEOUT_MS) bounds every phase', () => {
    // On jest's clock (Date.now and timers both), so a cap of seconds costs no real time and "within the cap" is exact:
    // the run must have ended by the time the clock reaches the cap, with no allowance for a loaded machine.
    afterEach(() => jest.useRealTimers());

    /** Runs `work` on the fake clock while it moves on to well past `cap`; returns the fake time it took to end. */
    async function timeOnFakeClock(work: () => Promise<unknown>, cap: number): Promise<number> {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const started = Date.now();
      let ended: number | null = null;
      const run = work().then(() => (ended = Date.now()));
      await jest.advanceTimersByTimeAsync(cap + 5_000);
      if (ended === null) throw new Error(`the run had not ended ${cap + 5_000} ms after it started`);
      await run;
      return ended - started;
    }

    it('a step that never ends fails with the cap as its reason, and the debugging screenshot is still stored within the cap', async () => {
      const cap = 2_000;
      const h = harness({
        config: { scenarioTimeoutMs: cap },
        page: fakePage({
          waitForSelector: () => never(),
          screenshot: async () => {
            await sleep(300);
            return PNG;
          },
        }),
      });
      const elapsed = await timeOnFakeClock(() => h.runner.handle(job([{ type: 'wait_for', selector: '#never', timeout: 30_000 }])), cap);

      expect(h.outcome()).toEqual({ status: 'failed', error: `Step 0 (wait_for) failed: Scenario exceeded its time limit of ${cap} ms` });
      expect(h.records()).toEqual([
        { index: 0, type: 'wait_for', status: 'failed', duration_ms: expect.any(Number), error: `Scenario exceeded its time limit of ${cap} ms` },
      ]);
      expect(h.stored).toHaveBeenCalledTimes(1);
      // The screenshot took 300 ms of the reserve the step left it: the whole run stayed inside the cap.
      expect(elapsed).toBeGreaterThanOrEqual(300);
      expect(elapsed).toBeLessThanOrEqual(cap);
    });

    it('the final screenshot is bounded by the time left, not by the capture timeout', async () => {
      const cap = 1_500;
      const h = harness({ config: { scenarioTimeoutMs: cap, captureTimeoutMs: 20_000 }, page: fakePage({ screenshot: () => never() }) });
      const elapsed = await timeOnFakeClock(() => h.runner.handle(job([{ type: 'wait', duration: 0 }])), cap);

      expect(h.outcome()).toEqual({ status: 'failed', error: 'Final screenshot failed: The final screenshot timed out' });
      expect(h.records()).toEqual([{ index: 0, type: 'wait', status: 'succeeded', duration_ms: expect.any(Number), error: null }]);
      expect(h.stored).not.toHaveBeenCalled();
      expect(elapsed).toBeLessThanOrEqual(cap);
    });

    it('opening the website is bounded by the time left for the steps', async () => {
      const cap = 2_000;
      const h = harness({ config: { scenarioTimeoutMs: cap }, page: fakePage({ goto: () => never() }) });
      const elapsed = await timeOnFakeClock(() => h.runner.handle(job([{ type: 'click', selector: '#a' }])), cap);

      expect(h.outcome().error).toMatch(/^Opening the website failed: /);
      expect(h.records()[0]).toMatchObject({ status: 'skipped' });
      expect(h.stored).toHaveBeenCalledTimes(1);
      expect(elapsed).toBeLessThanOrEqual(cap);
    });

    it('getting the page (browser context, tab) may take no longer than the time left for the steps', async () => {
      const cap = 4_000;
      const h = harness({ config: { scenarioTimeoutMs: cap } });
      await h.runner.handle(job([{ type: 'wait', duration: 0 }]));

      expect(h.pageOptions).toHaveLength(1);
      expect(h.pageOptions[0].openTimeoutMs).toEqual(expect.any(Number));
      expect(h.pageOptions[0].openTimeoutMs).toBeGreaterThan(0);
      expect(h.pageOptions[0].openTimeoutMs).toBeLessThanOrEqual(3_000); // the cap minus the final screenshot's reserve
    });
  });

  describe("error texts: the page's errors as they are, ours as a fixed text (the detail in the log)", () => {
    it('a screenshot step whose PNG cannot be stored shows "Storing the screenshot failed", never the storage error', async () => {
      const h = harness({
        store: async (n) => {
          if (n === 1) throw new Error("EACCES: permission denied, mkdir '/srv/data/screenshots/3/7'");
        },
      });
      await h.runner.handle(job([{ type: 'screenshot' }, { type: 'wait', duration: 0 }]));

      expect(h.records()).toEqual([
        { index: 0, type: 'screenshot', status: 'failed', duration_ms: expect.any(Number), error: 'Storing the screenshot failed' },
        { index: 1, type: 'wait', status: 'skipped', duration_ms: null, error: null },
      ]);
      expect(h.outcome()).toEqual({ status: 'failed', error: 'Step 0 (screenshot) failed: Storing the screenshot failed' });
      expect(h.visible()).not.toMatch(/EACCES|\/srv|mkdir/);
      // The debugging screenshot after the failed step was stored.
      expect(h.stored).toHaveBeenCalledTimes(2);
      expect(logged.join('\n')).toContain("EACCES: permission denied, mkdir '/srv/data/screenshots/3/7'");
      expect(logged.join('\n')).toContain('exec-1');
    });

    it('a final screenshot the database refuses shows "Storing the screenshot failed", never the constraint', async () => {
      const h = harness({
        store: async () => {
          throw new Error('SQLITE_CONSTRAINT: FOREIGN KEY constraint failed');
        },
      });
      await h.runner.handle(job([{ type: 'wait', duration: 0 }]));

      expect(h.outcome()).toEqual({ status: 'failed', error: 'Final screenshot failed: Storing the screenshot failed' });
      expect(h.visible()).not.toMatch(/FOREIGN KEY|constraint|SQLITE/i);
      expect(logged.join('\n')).toContain('FOREIGN KEY constraint failed');
    });

    it('a final screenshot refused because the website was deleted during the run says so', async () => {
      const h = harness({
        websiteGoneAfterStart: true,
        store: async () => {
          throw new Error('insert or update on table "screenshots" violates foreign key constraint "FK_screenshots_website"');
        },
      });
      await h.runner.handle(job([{ type: 'wait', duration: 0 }]));

      expect(h.outcome()).toEqual({ status: 'failed', error: 'Final screenshot failed: Website was deleted' });
      expect(h.visible()).not.toMatch(/foreign key|constraint/i);
    });

    it('an unexpected error of ours inside a step shows "Internal error"; its detail, fill values redacted, goes to the log', async () => {
      const h = harness({
        urlCheck: async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'family') while checking s3cret-value");
        },
      });
      await h.runner.handle(
        job([
          { type: 'fill', selector: '#p', value: 's3cret-value' },
          { type: 'navigate', url: 'https://example.org/' },
        ]),
      );

      expect(h.outcome()).toEqual({ status: 'failed', error: 'Opening the website failed: Internal error' });
      expect(h.visible()).not.toMatch(/family|TypeError|s3cret/);
      expect(logged.join('\n')).toContain("reading 'family'");
      expect(logged.join('\n')).not.toContain('s3cret-value');
    });

    it('a secret fill sealed in the job is typed as its plain value, and redacted from a page error like any fill value', async () => {
      const typed: string[] = [];
      const h = harness({
        page: fakePage({
          fill: async (_selector, value) => {
            typed.push(value);
            throw new CaptureFailure('page', `the page refused ${value}`);
          },
        }),
      });
      const steps: Step[] = [{ type: 'fill', selector: '#password', value: 'hunter2-secret', secret: true }];
      const sealed = sealStepSecrets(steps, (plain) => secretBox.seal(plain));
      expect(JSON.stringify(sealed)).not.toContain('hunter2');
      await h.runner.handle(job(sealed));
      expect(typed).toEqual(['hunter2-secret']);
      expect(h.records()[0].error).toBe('the page refused [redacted]');
      expect(h.visible()).not.toContain('hunter2');
    });

    it('errors from the page keep their messages: element timeout, navigation error, URL policy', async () => {
      const h = harness({
        page: fakePage({
          click: async () => {
            throw new CaptureFailure('page', 'Timed out after 2000 ms waiting for "#missing" to be clickable');
          },
        }),
      });
      await h.runner.handle(job([{ type: 'click', selector: '#missing' }]));
      expect(h.records()[0].error).toBe('Timed out after 2000 ms waiting for "#missing" to be clickable');
      expect(h.outcome().error).toBe('Step 0 (click) failed: Timed out after 2000 ms waiting for "#missing" to be clickable');

      const nav = harness({
        page: fakePage({
          goto: async (url) => {
            if (url !== WEBSITE.url) throw new CaptureFailure('page', 'net::ERR_NAME_NOT_RESOLVED');
          },
        }),
      });
      await nav.runner.handle(job([{ type: 'navigate', url: 'https://nowhere.invalid/' }]));
      expect(nav.records()[0].error).toBe('net::ERR_NAME_NOT_RESOLVED');

      const policy = harness({
        urlCheck: async (url) =>
          (url === WEBSITE.url ? { allowed: true, url: new URL(url) } : { allowed: false, reason: 'url resolves to a loopback address' }) as never,
      });
      await policy.runner.handle(job([{ type: 'navigate', url: 'https://local.example/' }]));
      expect(policy.records()[0].error).toBe('blocked by URL policy: url resolves to a loopback address');
      expect(logged).toEqual([]);
    });

    it('an infrastructure failure is not recorded on the execution but thrown for the dispatcher to retry', async () => {
      const h = harness({
        page: fakePage({
          click: async () => {
            throw new CaptureFailure('infrastructure', 'Browser disconnected during capture');
          },
        }),
      });
      await expect(h.runner.handle(job([{ type: 'click', selector: '#a' }]))).rejects.toThrow('Browser disconnected during capture');
      expect(h.outcome().status).toBe('unfinished');
    });
  });
});
