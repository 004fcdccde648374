import { eraseSealedSecrets } from '../../jobs/application/erase-sealed-secrets';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { CaptureFailure, CaptureRequest, CaptureResult, PageCapturer } from './capture.port';
import { ProxyRouter, type ProxyChoice } from '../../proxies/application/proxy-router';
import { Clock } from '../../../shared/domain/clock';
import { CaptureSecrets, mergeSecrets } from '../../../shared/domain/capture-secrets';
import { renderingFor, resolveOutput } from '../../../shared/domain/capture-option-rules';
import { CaptureOptions, mergeCaptureOptions, plainChoices } from '../../../shared/domain/capture-option-table';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { failOnStatusForCapture } from '../../../shared/domain/page-options';
import { UrlPolicy } from '../../../shared/url-policy';
import { WebsiteRepository } from '../../websites/application/ports';
import { WebsiteProps } from '../../websites/domain/website';
import { endedIf, HandledOutcome, HandlesJobs, JobTypeHandler } from '../../jobs/application/job-kinds';
import { JobProps } from '../../jobs/domain/job';
import type { CaptureJobOptions } from '../domain/capture-job-options';
import { errorMessage } from '../../../shared/domain/error-message';
import { InfrastructureFailure } from '../../jobs/application/job-failure';
import { DuplicateScreenshotError, ScreenshotRepository, StorageUnavailableError } from './ports';
import { LEASE_MARGIN_MS } from '../../jobs/application/job-lease';
import { CAPTURE_JOB_KIND } from './capture-job-kind';
import { JobRepository, SupersededAttemptError } from '../../jobs/application/ports';
import { ScreenshotKeeper } from './screenshot-keeper';
import { Metrics } from '../../../shared/metrics/metrics';
import type { OutputFormat } from '../../../shared/domain/output-format';
import { comparisonKey } from './comparison-key';
import type { ScreenshotProps } from '../domain/screenshot';
import { ChangeDetector } from './change-detector';
import { SavedSessions } from './saved-sessions.port';
import { CaptureRoute, captureRunMs } from './capture-route';

/** A capture job: its payload is the capture's options. */
type CaptureJob = JobProps<CaptureJobOptions>;

/** The website's defaults as capture options: its saved `capture_options` and its own full_page and viewport. */
function websiteDefaults(website: WebsiteProps): CaptureOptions {
  return { ...website.captureOptions, fullPage: website.fullPage, viewportWidth: website.viewportWidth, viewportHeight: website.viewportHeight };
}

export function captureRequestFor(website: WebsiteProps, job: CaptureJob, requestSecrets?: CaptureSecrets): CaptureRequest {
  // The request's choice, else the website's saved default, else the table's. A device sets the viewport
  // (a request cannot also send one: CaptureJobsService checks it).
  const merged = mergeCaptureOptions(job.options, websiteDefaults(website));
  const rendering = renderingFor(merged, {
    viewportWidth: merged.viewportWidth ?? website.viewportWidth,
    viewportHeight: merged.viewportHeight ?? website.viewportHeight,
    deviceScaleFactor: merged.deviceScaleFactor ?? 1,
  });
  return {
    url: website.url,
    ...plainChoices(merged),
    viewportWidth: rendering.viewportWidth,
    viewportHeight: rendering.viewportHeight,
    deviceScaleFactor: rendering.deviceScaleFactor,
    waitUntil: merged.waitUntil,
    output: resolveOutput(job.options, website.captureOptions),
    emulation: rendering.emulation,
    secrets: mergeSecrets(requestSecrets, website.captureOptions.secrets),
    ignoreSelectors: website.changeIgnoreSelectors,
    failOnStatus: failOnStatusForCapture(merged.failOnStatus),
    // Text changes: every image capture of a job keeps the page's visible text (PDFs are never compared).
    keepText: true,
  };
}

/**
 * Which proxy the capture asked for, nearest first: the request's `proxy`, its `proxy_pool`, then the website's
 * (and, when none, the operator's CAPTURE_PROXY, applied by the router).
 */
function proxyChoiceFor(website: WebsiteProps, job: CaptureJob, requestSecrets?: CaptureSecrets): Pick<ProxyChoice, 'proxy' | 'pool'> {
  if (requestSecrets?.proxy !== undefined) return { proxy: requestSecrets.proxy };
  if (job.options.proxyPool !== undefined) return { pool: job.options.proxyPool };
  if (website.captureOptions.secrets?.proxy !== undefined) return { proxy: website.captureOptions.secrets.proxy };
  if (website.captureOptions.proxyPool !== undefined) return { pool: website.captureOptions.proxyPool };
  return {};
}

/** The compare key of a capture (change history, like for like: application/comparison-key.ts). */
export function compareKeyFor(website: WebsiteProps, job: CaptureJob, request: CaptureRequest, format: OutputFormat): string | null {
  return comparisonKey(request, mergeCaptureOptions(job.options, website.captureOptions).device ?? null, format);
}

/** While the object store is away, a rendered file is stored again 1, 2, 4, … at most this far apart. */
const OUTAGE_RETRY_MAX_WAIT_MS = 5_000;
/** What the end of an attempt needs after its last store: the row's commit, recording a failure. */
const AFTER_STORE_MS = 5_000;

/**
 * Handles capture jobs: renders the website, stores the PNG and the row together. Page errors fail the
 * job with a readable message; infrastructure errors (browser, storage, database) are thrown to the
 * dispatcher, which retries them. Safe to run twice for one job: the row is stored only while this attempt
 * holds the job, and the unique job_id on screenshots makes a redelivery harmless.
 */
@Injectable()
@HandlesJobs(CAPTURE_JOB_KIND)
export class CaptureJobRunner implements JobTypeHandler<CaptureJobOptions>, OnModuleDestroy {
  private readonly logger = new Logger('CaptureJobRunner');
  /** Shutting down: an outage is no longer waited out here (the job goes back to the queue, for another worker). */
  private stopping = false;
  /** Session and proxy: the same route as every job kind's capture. */
  private readonly route: CaptureRoute;

  constructor(
    private readonly jobs: JobRepository,
    private readonly screenshots: ScreenshotRepository,
    private readonly websites: WebsiteRepository,
    private readonly screenshotStore: ScreenshotKeeper,
    capturer: PageCapturer,
    private readonly urlPolicy: UrlPolicy,
    private readonly clock: Clock,
    private readonly secretBox: SecretBox,
    private readonly metrics: Metrics,
    private readonly changes: ChangeDetector,
    private readonly config: AppConfig,
    proxies: ProxyRouter,
    sessions: SavedSessions,
  ) {
    this.route = new CaptureRoute(capturer, proxies, sessions);
  }

  onModuleDestroy(): void {
    this.stopping = true;
  }

  /**
   * A request's sealed secrets are erased from the job row once the job has ended (they are kept through
   * retries, which need them). A job that ends by running out of attempts keeps them, sealed.
   */

  async handle(job: CaptureJob): Promise<HandledOutcome> {
    const attemptStarted = performance.now();
    const website = job.websiteId === null ? null : await this.websites.findById(job.websiteId);
    if (!website) return endedIf(await this.jobs.fail(job.id, 'Website was deleted', this.clock.now()), 'failed');
    const verdict = await this.urlPolicy.check(website.url);
    if (!verdict.allowed) return endedIf(await this.jobs.fail(job.id, `blocked by URL policy: ${verdict.reason}`, this.clock.now()), 'failed');
    let result;
    let request: CaptureRequest;
    try {
      const secrets = job.options.sealedSecrets ? (JSON.parse(this.secretBox.open(job.options.sealedSecrets)) as CaptureSecrets) : undefined;
      const base = captureRequestFor(website, job, secrets);
      request = base;
      result = await this.route.capture(base, {
        // The request's session_id, else the website's (a saved session; none: the page starts as it is).
        sessionId: job.options.sessionId ?? website.captureOptions.sessionId,
        proxy: { accountId: job.accountId, websiteId: website.id, url: website.url, ...proxyChoiceFor(website, job, secrets) },
      });
    } catch (err) {
      if (err instanceof CaptureFailure && err.kind === 'page') {
        const failed = await this.jobs.fail(job.id, err.message, this.clock.now());
        await eraseSealedSecrets(this.jobs, job, this.logger);
        return endedIf(failed, 'failed');
      }
      throw err;
    }
    if (result.settle) {
      const { ms, capped } = result.settle;
      this.logger.debug(`job ${job.id}: page settled in ${ms} ms${capped ? ' (cut at the cap: it never settled)' : ''}`);
    }
    const outcome = await this.store(job, website, result, request, attemptStarted);
    await eraseSealedSecrets(this.jobs, job, this.logger);
    return outcome;
  }

  private async store(job: CaptureJob, website: WebsiteProps, result: CaptureResult, request: CaptureRequest, attemptStarted: number): Promise<HandledOutcome> {
    // One instant for both: the website's last_screenshot_at is exactly its newest screenshot's taken_at.
    const takenAt = this.clock.now();
    const started = performance.now();
    let shot: ScreenshotProps;
    try {
      const owner = { accountId: job.accountId, websiteId: website.id, jobId: job.id, fullPage: request.fullPage };
      // One storage key for every try of this file (StorageReservation): a timed-out upload that lands later is rewritten.
      const reservation = {};
      const store = () =>
        this.screenshotStore.store({ ...owner, compareKey: compareKeyFor(website, job, request, result.format) }, result, takenAt, reservation);
      shot = await this.throughStorageOutage(job, result, attemptStarted, store);
    } catch (err) {
      // A later attempt holds the job now: this one's screenshot is dropped (the dispatcher logs it).
      if (err instanceof SupersededAttemptError) throw err;
      if (err instanceof DuplicateScreenshotError) {
        const existing = await this.screenshots.findByJob(job.id);
        return endedIf(existing !== null && (await this.jobs.succeed(job.id, existing.id, this.clock.now())), 'succeeded');
      }
      if (!(await this.websites.findById(website.id))) return endedIf(await this.jobs.fail(job.id, 'Website was deleted', this.clock.now()), 'failed');
      // Disk full, a database timeout, SQLite busy: our fault, not the page's, and maybe passing — so retried
      // like a browser crash, and described to the client without the detail.
      throw new InfrastructureFailure('the screenshot could not be stored', err);
    }
    this.recordTiming(result, (performance.now() - started) / 1000);
    // The job has succeeded (in the insert's commit): the comparison follows in the background.
    this.changes.compareSoon(shot);
    try {
      await this.websites.markCaptured(website.id, takenAt);
    } catch (err) {
      // The screenshot and the succeeded job are committed; a retry could not run again, so this is only logged.
      this.logger.warn(`job ${job.id}: recording the capture time on website ${website.id} failed: ${errorMessage(err)}`);
    }
    // The insert's commit marked the job succeeded, fenced to this attempt (else it would have thrown).
    return 'succeeded';
  }

  /**
   * Stores the rendered file, riding out an object-store outage like an outcome is recorded through a database
   * outage (JobDispatcher.untilRecorded): the file is kept and stored again, 1, 2, 4, … at most 5 s apart, for
   * as long as one more bounded store (S3_TIMEOUT_MS per upload) still ends inside the attempt's lease — so a
   * job is never `running` past it. Past that the failure goes to the dispatcher, whose next attempt (2 s later,
   * with a lease of its own) does the same: an outage of a minute or more loses no capture. Other failures (a
   * full disk, the database) are not waited for here.
   */
  private async throughStorageOutage(
    job: CaptureJob,
    result: CaptureResult,
    attemptStarted: number,
    store: () => Promise<ScreenshotProps>,
  ): Promise<ScreenshotProps> {
    const storeMs = (result.preview ? 2 : 1) * (this.config.s3?.timeoutMs ?? 0); // a PDF's thumbnail is a second upload
    // The lease of a capture that did not log in again: an outage never holds a worker longer than that, session or not.
    const lastStoreBy = attemptStarted + captureRunMs(this.config, false) + LEASE_MARGIN_MS - AFTER_STORE_MS - storeMs;
    for (let retry = 0; ; retry++) {
      try {
        return await store();
      } catch (err) {
        const wait = Math.min(1000 * 2 ** retry, OUTAGE_RETRY_MAX_WAIT_MS);
        if (!(err instanceof StorageUnavailableError) || this.stopping || performance.now() + wait > lastStoreBy) throw err;
        if (retry === 0) this.logger.warn(`job ${job.id}: the screenshot storage is unavailable; storing again until it answers`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** Only captures that became a screenshot are timed, so every phase is observed the same number of times. */
  private recordTiming(result: CaptureResult, storeSeconds: number): void {
    if (result.timing) {
      this.metrics.capturePhaseTimed('navigation', result.timing.navigationMs / 1000);
      this.metrics.capturePhaseTimed('settle', result.timing.settleMs / 1000);
      this.metrics.capturePhaseTimed('render', result.timing.renderMs / 1000);
    }
    this.metrics.capturePhaseTimed('store', storeSeconds);
  }
}
