import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CaptureFailure, CaptureRequest, PageCapturer } from '../../../adapters/capture/capture.port';
import { JobTransport } from '../../../adapters/queue/job-transport.port';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { UrlPolicy } from '../../../shared/url-policy';
import { WebsiteRepository } from '../../websites/application/ports';
import { WebsiteProps } from '../../websites/domain/website';
import { JobProps, MAX_JOB_ATTEMPTS } from '../domain/job';
import { screenshotKey } from '../domain/screenshot';
import { DuplicateScreenshotError, JobRepository, ScreenshotRepository, ScreenshotStorage } from './ports';

const RETRY_BACKOFF_MS = [2_000, 5_000];

export function captureRequestFor(website: WebsiteProps, job: JobProps): CaptureRequest {
  const o = job.options;
  return {
    url: website.url,
    viewportWidth: o.viewportWidth ?? website.viewportWidth,
    viewportHeight: o.viewportHeight ?? website.viewportHeight,
    fullPage: o.fullPage ?? website.fullPage,
    deviceScaleFactor: o.deviceScaleFactor ?? 1,
    delayMs: o.delayMs ?? 0,
    waitForSelector: o.waitForSelector ?? null,
    hideSelectors: o.hideSelectors ?? [],
    darkMode: o.darkMode ?? false,
  };
}

/**
 * The worker side: takes a job id from the transport, claims the row, renders the page, stores the PNG
 * and the row together. Page errors fail the job with a readable message; infrastructure errors (browser
 * crash) are retried up to MAX_JOB_ATTEMPTS. Safe to run twice for one job: the claim and the unique
 * job_id on screenshots make a redelivery harmless.
 */
@Injectable()
export class CaptureJobRunner implements OnApplicationBootstrap {
  private readonly logger = new Logger('CaptureJobRunner');

  constructor(
    private readonly jobs: JobRepository,
    private readonly screenshots: ScreenshotRepository,
    private readonly websites: WebsiteRepository,
    private readonly storage: ScreenshotStorage,
    private readonly capturer: PageCapturer,
    private readonly transport: JobTransport,
    private readonly urlPolicy: UrlPolicy,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'api') return;
    this.transport.consume((jobId) => this.run(jobId), this.config.captureConcurrency);
    await this.recoverUnfinished();
  }

  /** Jobs left queued or running by a previous process are handed to the transport again. */
  private async recoverUnfinished(): Promise<void> {
    const unfinished = await this.jobs.findUnfinished(new Date(Date.now() + 1000), 10_000);
    for (const job of unfinished) await this.transport.enqueue(job.id);
    if (unfinished.length) this.logger.log(`re-queued ${unfinished.length} unfinished job(s)`);
  }

  async run(jobId: string): Promise<void> {
    const job = await this.jobs.claim(jobId, this.clock.now());
    if (!job) return; // finished or unknown: a redelivery
    if (job.type !== 'screenshot') return;
    if (job.attempts > MAX_JOB_ATTEMPTS) {
      await this.jobs.fail(job.id, `Capture abandoned after ${MAX_JOB_ATTEMPTS} attempts (the worker stopped each time)`, this.clock.now());
      return;
    }
    const website = job.websiteId === null ? null : await this.websites.findById(job.websiteId);
    if (!website) {
      await this.jobs.fail(job.id, 'Website was deleted', this.clock.now());
      return;
    }
    const verdict = await this.urlPolicy.check(website.url);
    if (!verdict.allowed) {
      await this.jobs.fail(job.id, `blocked by URL policy: ${verdict.reason}`, this.clock.now());
      return;
    }

    let result;
    try {
      result = await this.capturer.capture(captureRequestFor(website, job));
    } catch (err) {
      await this.handleCaptureError(job, err);
      return;
    }
    await this.store(job, website, result.png, result.width, result.height);
  }

  private async handleCaptureError(job: JobProps, err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof CaptureFailure && err.kind === 'page') {
      await this.jobs.fail(job.id, message, this.clock.now());
      return;
    }
    if (job.attempts < MAX_JOB_ATTEMPTS) {
      this.logger.warn(`job ${job.id} attempt ${job.attempts} hit an infrastructure error, retrying: ${message}`);
      await this.jobs.requeue(job.id);
      await this.transport.enqueue(job.id, { delayMs: RETRY_BACKOFF_MS[job.attempts - 1] ?? 5_000, retry: true });
      return;
    }
    await this.jobs.fail(job.id, `Capture failed after ${MAX_JOB_ATTEMPTS} attempts: ${message}`, this.clock.now());
  }

  private async store(job: JobProps, website: WebsiteProps, png: Buffer, width: number, height: number): Promise<void> {
    const staged = await this.storage.stage(png);
    let placedKey: string | null = null;
    const takenAt = this.clock.now();
    try {
      await this.screenshots.insertWithFile(
        { accountId: job.accountId, websiteId: website.id, jobId: job.id, fileSize: png.length, width, height, takenAt },
        (id) => {
          const key = screenshotKey(job.accountId, website.id, id);
          this.storage.placeSync(staged, key);
          placedKey = key;
          return key;
        },
        this.clock.now(),
      );
      await this.websites.markCaptured(website.id, takenAt);
    } catch (err) {
      // The transaction rolled back: remove the file wherever it got to.
      if (placedKey) await this.storage.delete(placedKey);
      else await this.storage.discard(staged);
      if (err instanceof DuplicateScreenshotError) {
        const existing = await this.screenshots.findByJob(job.id);
        if (existing) await this.jobs.succeed(job.id, existing.id, this.clock.now());
        return;
      }
      if (!(await this.websites.findById(website.id))) {
        await this.jobs.fail(job.id, 'Website was deleted', this.clock.now());
        return;
      }
      this.logger.error(`job ${job.id}: storing the screenshot failed: ${err instanceof Error ? err.message : String(err)}`);
      await this.jobs.fail(job.id, 'Storing the screenshot failed', this.clock.now());
    }
  }
}
