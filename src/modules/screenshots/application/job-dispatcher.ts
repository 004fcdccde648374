import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CaptureFailure } from '../../../adapters/capture/capture.port';
import { JobTransport } from '../../../adapters/queue/job-transport.port';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { JobProps, JobType, MAX_JOB_ATTEMPTS } from '../domain/job';
import { JobRepository } from './ports';

export type JobTypeHandler = (job: JobProps) => Promise<void>;

const RETRY_BACKOFF_MS = [2_000, 5_000];

/**
 * The worker's single entry point for every job the transport delivers (captures and scenario runs):
 * claims the row (so a redelivery of a finished job is skipped), gives up on a job that keeps killing
 * workers, routes by type, and retries infrastructure failures (browser crash) up to MAX_JOB_ATTEMPTS.
 * Page failures are the handlers' business: they record them on the job themselves.
 */
@Injectable()
export class JobDispatcher implements OnApplicationBootstrap {
  private readonly logger = new Logger('JobDispatcher');
  private readonly handlers = new Map<JobType, JobTypeHandler>();

  constructor(
    private readonly jobs: JobRepository,
    private readonly transport: JobTransport,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  register(type: JobType, handler: JobTypeHandler): void {
    this.handlers.set(type, handler);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'api') return;
    this.transport.consume((jobId) => this.dispatch(jobId), this.config.captureConcurrency);
    // Jobs left queued or running by a previous process are handed to the transport again.
    const unfinished = await this.jobs.findUnfinished(new Date(Date.now() + 1000), 10_000);
    for (const job of unfinished) await this.transport.enqueue(job.id);
    if (unfinished.length) this.logger.log(`re-queued ${unfinished.length} unfinished job(s)`);
  }

  async dispatch(jobId: string): Promise<void> {
    const job = await this.jobs.claim(jobId, this.clock.now());
    if (!job) return; // finished or unknown: a redelivery
    if (job.attempts > MAX_JOB_ATTEMPTS) {
      await this.jobs.fail(job.id, `Abandoned after ${MAX_JOB_ATTEMPTS} attempts (the worker stopped each time)`, this.clock.now());
      return;
    }
    const handler = this.handlers.get(job.type);
    if (!handler) {
      await this.jobs.fail(job.id, `No handler for jobs of type ${job.type}`, this.clock.now());
      return;
    }
    try {
      await handler(job);
    } catch (err) {
      await this.retryOrFail(job, err);
    }
  }

  private async retryOrFail(job: JobProps, err: unknown): Promise<void> {
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
    this.logger.error(`job ${job.id} failed for good: ${message}`);
    await this.jobs.fail(job.id, `Failed after ${MAX_JOB_ATTEMPTS} attempts: ${message}`, this.clock.now());
  }
}
