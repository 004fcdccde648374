import { SecretBox } from '../../../shared/secrets/secret-box';
import { Logger } from '@nestjs/common';
import { CaptureFailure, CaptureResult, PageCapturer } from './capture.port';
import { FakeClock } from '../../../../test/support/fake-clock';
import { UrlPolicy } from '../../../shared/url-policy';
import { WebsiteRepository } from '../../websites/application/ports';
import { WebsiteProps } from '../../websites/domain/website';
import { JobProps } from '../../jobs/domain/job';
import { ScreenshotProps } from '../domain/screenshot';
import { CaptureJobRunner, captureRequestFor } from './capture-job.runner';
import { InfrastructureFailure, publicInfrastructureReason } from '../../jobs/application/job-failure';
import { DuplicateScreenshotError, ScreenshotRepository, StorageUnavailableError } from './ports';
import { AppConfig } from '../../../config/app-config';
import { JobRepository, SupersededAttemptError } from '../../jobs/application/ports';
import { ChangeDetector } from './change-detector';
import { ScreenshotKeeper } from './screenshot-keeper';
import type { ProxyRouter } from '../../proxies/application/proxy-router';
import { RecordingMetrics } from '../../../../test/support/recording-metrics';

const WEBSITE = {
  id: 3,
  accountId: 7,
  url: 'https://example.com/',
  viewportWidth: 1280,
  viewportHeight: 800,
  fullPage: false,
  captureOptions: {},
} as WebsiteProps;
const JOB = { id: 'job-1', type: 'screenshot', accountId: 7, websiteId: 3, status: 'running', attempts: 1, options: {} } as unknown as JobProps;
const PNG: CaptureResult = { data: Buffer.from('png'), format: 'png', width: 1280, height: 800 };
const SHOT = { id: 42, jobId: 'job-1' } as ScreenshotProps;
/** Lease of a capture attempt: 30 s + the 60 s margin; each S3 upload bounded at 30 s. */
const CONFIG = { captureTimeoutMs: 30_000, scenarioTimeoutMs: 120_000, s3: { timeoutMs: 30_000 } } as AppConfig;

describe('CaptureJobRunner: storing the screenshot (finding 3)', () => {
  let jobs: { fail: jest.Mock; succeed: jest.Mock };
  let websites: { findById: jest.Mock; markCaptured: jest.Mock };
  let store: { store: jest.Mock };
  let screenshots: { findByJob: jest.Mock };
  let runner: CaptureJobRunner;
  let warnings: string[];
  let metrics: RecordingMetrics;

  beforeEach(() => {
    jobs = { fail: jest.fn(async () => true), succeed: jest.fn(async () => true) };
    websites = { findById: jest.fn(async () => WEBSITE), markCaptured: jest.fn(async () => undefined) };
    store = { store: jest.fn(async () => SHOT) };
    screenshots = { findByJob: jest.fn(async () => SHOT) };
    const capturer = { capture: jest.fn(async () => PNG) };
    const urlPolicy = { check: jest.fn(async () => ({ allowed: true })) };
    metrics = new RecordingMetrics();
    runner = new CaptureJobRunner(
      jobs as unknown as JobRepository,
      screenshots as unknown as ScreenshotRepository,
      websites as unknown as WebsiteRepository,
      store as unknown as ScreenshotKeeper,
      capturer as unknown as PageCapturer,
      urlPolicy as unknown as UrlPolicy,
      new FakeClock(),
      new SecretBox(Buffer.alloc(32, 7)),
      metrics,
      { compareSoon: jest.fn() } as unknown as ChangeDetector,
      CONFIG,
      // No proxy asked for and no CAPTURE_PROXY: straight out.
      { candidates: jest.fn(async () => []) } as unknown as ProxyRouter,
      // No session_id asked for: never asked.
      { resolve: jest.fn(), afterLoggedOut: jest.fn() },
    );
    warnings = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['a full disk', new Error("ENOSPC: no space left on device, rename '/srv/data/screenshots/.staging/x'")],
    ['a PostgreSQL timeout', new Error('Connection terminated due to connection timeout')],
    ['a busy SQLite file', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })],
  ])('%s is an infrastructure failure, thrown for the dispatcher to retry — not a failed job', async (_what, cause) => {
    store.store.mockRejectedValue(cause);
    const thrown = await runner.handle(JOB).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(InfrastructureFailure);
    expect((thrown as InfrastructureFailure).cause).toBe(cause);
    expect(publicInfrastructureReason(thrown)).toBe('the screenshot could not be stored');
    expect(jobs.fail).not.toHaveBeenCalled();
  });

  it('a website deleted meanwhile (the insert hits its foreign key) still fails the job as such', async () => {
    store.store.mockRejectedValue(new Error('FOREIGN KEY constraint failed'));
    websites.findById.mockResolvedValueOnce(WEBSITE).mockResolvedValueOnce(null);
    expect(await runner.handle(JOB)).toBe('failed');
    expect(jobs.fail).toHaveBeenCalledWith('job-1', 'Website was deleted', expect.any(Date));
  });

  it('a job that already has its screenshot ends succeeded with it', async () => {
    store.store.mockRejectedValue(new DuplicateScreenshotError('job job-1 already has a screenshot'));
    expect(await runner.handle(JOB)).toBe('succeeded');
    expect(jobs.succeed).toHaveBeenCalledWith('job-1', 42, expect.any(Date));
    // ...and when that write no longer applies (another attempt ended the job), the dispatcher counts nothing.
    jobs.succeed.mockResolvedValueOnce(false);
    expect(await runner.handle(JOB)).toBe('unchanged');
  });

  it('an attempt that lost its job lets the dispatcher drop its result', async () => {
    store.store.mockRejectedValue(new SupersededAttemptError('job-1'));
    await expect(runner.handle(JOB)).rejects.toBeInstanceOf(SupersededAttemptError);
    expect(jobs.fail).not.toHaveBeenCalled();
    expect(jobs.succeed).not.toHaveBeenCalled();
  });

  it('once the screenshot is committed, failing to record the capture time is only logged', async () => {
    websites.markCaptured.mockRejectedValue(new Error('Connection terminated unexpectedly'));
    await expect(runner.handle(JOB)).resolves.toBe('succeeded');
    expect(jobs.fail).not.toHaveBeenCalled();
    expect(warnings.join('\n')).toMatch(/recording the capture time.*Connection terminated/);
  });

  it("times a stored capture's phases: the capturer's three, then the store", async () => {
    const timed = { ...PNG, timing: { navigationMs: 120, settleMs: 450, renderMs: 30 } };
    Object.assign(runner, { capturer: { capture: jest.fn(async () => timed) } });
    await runner.handle(JOB);
    expect(metrics.phases).toEqual([
      { phase: 'navigation', seconds: 0.12 },
      { phase: 'settle', seconds: 0.45 },
      { phase: 'render', seconds: 0.03 },
      { phase: 'store', seconds: expect.any(Number) },
    ]);
    expect(metrics.phases[3].seconds).toBeGreaterThanOrEqual(0);
  });

  it('a capture that was not stored is not timed', async () => {
    store.store.mockRejectedValue(new Error('ENOSPC: no space left on device'));
    await expect(runner.handle(JOB)).rejects.toBeInstanceOf(InfrastructureFailure);
    expect(metrics.phases).toEqual([]);
  });

  describe('an object store outage (issue 27)', () => {
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['performance'] }));
    afterEach(() => jest.useRealTimers());

    it('keeps the rendered file and stores it again 1, 2, 4, 5, 5 s apart until the store answers: one capture, one screenshot', async () => {
      const capture = jest.fn(async () => PNG);
      Object.assign(runner, { capturer: { capture } });
      const tries: number[] = [];
      store.store.mockImplementation(async () => {
        tries.push(Date.now());
        if (tries.length <= 5) throw new StorageUnavailableError();
        return SHOT;
      });
      const outcome = runner.handle(JOB);
      await jest.advanceTimersByTimeAsync(17_000);
      expect(await outcome).toBe('succeeded');
      expect(tries.slice(1).map((at, i) => at - tries[i])).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
      expect(capture).toHaveBeenCalledTimes(1);
      expect(warnings.filter((w) => /storage is unavailable/.test(w))).toHaveLength(1);
    });

    it('stops before a store could end past the lease, and hands the failure to the dispatcher as an infrastructure failure', async () => {
      // A lease of 90 s leaves no room for another 30 s upload once the next one could not start before 55 s.
      const started = performance.now();
      let clock = 0;
      jest.spyOn(performance, 'now').mockImplementation(() => started + clock);
      store.store.mockImplementation(async () => {
        clock += 30_000; // each upload waits out its whole bound (a frozen store)
        throw new StorageUnavailableError();
      });
      const outcome = runner.handle(JOB).catch((err: unknown) => err);
      await jest.advanceTimersByTimeAsync(10_000);
      const thrown = await outcome;
      expect(thrown).toBeInstanceOf(InfrastructureFailure);
      expect((thrown as InfrastructureFailure).cause).toBeInstanceOf(StorageUnavailableError);
      expect(publicInfrastructureReason(thrown)).toBe('the screenshot could not be stored');
      // 0 → 30 s (fails), wait 1 s, 31 → 61 s (fails); a third could end at 92 s or later, past the 85 s the lease leaves.
      expect(store.store).toHaveBeenCalledTimes(2);
    });

    it('a full disk or a database error is not waited out: thrown at once', async () => {
      store.store.mockRejectedValue(new Error('ENOSPC: no space left on device'));
      await expect(runner.handle(JOB)).rejects.toBeInstanceOf(InfrastructureFailure);
      expect(store.store).toHaveBeenCalledTimes(1);
    });

    it('a worker that is stopping does not wait: the job goes back to the dispatcher', async () => {
      store.store.mockRejectedValue(new StorageUnavailableError());
      runner.onModuleDestroy();
      await expect(runner.handle(JOB)).rejects.toBeInstanceOf(InfrastructureFailure);
      expect(store.store).toHaveBeenCalledTimes(1);
    });
  });

  it('page failures still fail the job with their message', async () => {
    const capturer = { capture: jest.fn(async () => Promise.reject(new CaptureFailure('page', 'net::ERR_NAME_NOT_RESOLVED'))) };
    Object.assign(runner, { capturer });
    expect(await runner.handle(JOB)).toBe('failed');
    expect(jobs.fail).toHaveBeenCalledWith('job-1', 'net::ERR_NAME_NOT_RESOLVED', expect.any(Date));
  });
});

describe('captureRequestFor: wait_until', () => {
  const job = (options: JobProps['options']) => ({ options }) as JobProps;
  const saved = { ...WEBSITE, captureOptions: { waitUntil: 'network_idle' } } as WebsiteProps;

  it("takes the request's choice over the website's saved default", () => {
    expect(captureRequestFor(saved, job({ waitUntil: 'load' })).waitUntil).toBe('load');
  });

  it("falls back to the website's default, then leaves the capturer's ('stable')", () => {
    expect(captureRequestFor(saved, job({})).waitUntil).toBe('network_idle');
    expect(captureRequestFor(WEBSITE, job({})).waitUntil).toBeUndefined();
  });
});
