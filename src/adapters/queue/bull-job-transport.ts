import { Logger } from '@nestjs/common';
import Queue from 'bull';
import { within } from '../../shared/domain/within';
import { EnqueueOptions, JobHandler, JobTransport } from '../../modules/jobs/application/job-transport';

/** How long adding a job may take before the request that asked for it gets 503. */
const ENQUEUE_TIMEOUT_MS = 2000;

/**
 * How often each worker looks for deliveries whose worker stopped renewing its lock. Bull moves such a job back
 * to the queue at the second check after its lock expired, so a dead worker's job runs again within
 * lockDuration + 2 × this: at most 6 s over JOB_LOCK_MS (the check was the lock's length, which made a
 * handover take two to three locks: 72–77 s with the default 30 s). One small Lua script per check.
 */
export function stalledCheckIntervalMs(lockDurationMs: number): number {
  return Math.max(500, Math.min(3000, Math.floor(lockDurationMs / 5)));
}

export interface BullTransportSettings {
  redisUrl: string;
  keyPrefix: string;
  /** How long a worker's hold on a job lasts without renewal; a killed worker's job is redelivered after it. */
  lockDurationMs: number;
}

/**
 * Scaled-out mode: Bull on Redis. The Bull job id is our job id (plus the delivery's key, if any), so adding
 * a job that Bull still holds — waiting, delayed or active — is a no-op; a worker that dies mid-job loses its
 * lock and Bull's stalled-job check hands the job to another worker, flagged as a redelivery so the dead
 * worker's attempt is taken over at once (the handler then finds the row still unfinished and completes it).
 */
export class BullJobTransport extends JobTransport {
  private readonly logger = new Logger('BullJobTransport');
  private readonly queue: Queue.Queue<{ jobId: string }>;

  constructor(settings: BullTransportSettings) {
    super();
    this.queue = new Queue<{ jobId: string }>('capture-jobs', settings.redisUrl, {
      prefix: `${settings.keyPrefix}:bull`,
      settings: {
        lockDuration: settings.lockDurationMs,
        lockRenewTime: Math.floor(settings.lockDurationMs / 3),
        stalledInterval: stalledCheckIntervalMs(settings.lockDurationMs),
        // Our own attempts counter (jobs table) gives up on a job that keeps killing workers.
        maxStalledCount: 10,
      },
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
    });
    this.queue.on('error', (err) => this.logger.warn(`queue: ${err.message}`));
  }

  async enqueue(jobId: string, options: EnqueueOptions = {}): Promise<void> {
    const bullId = options.key ? `${jobId}:${options.key}` : jobId;
    // Bull's client queues commands while Redis is away and would hold the request for the whole outage.
    // Bounded instead: the caller answers 503 and removes the row; should the add still go through once
    // Redis is back, the handler finds no row and drops the delivery.
    await within(
      this.queue.add({ jobId }, { jobId: bullId, delay: options.delayMs }),
      ENQUEUE_TIMEOUT_MS,
      () => new Error(`Command timed out: the queue did not take job ${jobId} within ${ENQUEUE_TIMEOUT_MS} ms`),
    );
  }

  consume(handler: JobHandler, concurrency: number): void {
    void this.queue.process(concurrency, async (job) => {
      await handler(job.data.jobId, { redelivered: await this.wasStalled(job) });
    });
  }

  async close(): Promise<void> {
    await Promise.race([this.queue.close(), new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
  }

  /**
   * Whether a worker already held this delivery and lost its lock. Bull counts that in the job's hash
   * (`stalledCounter`, raised by its stalled-job check) but does not expose it on Job objects.
   */
  private async wasStalled(job: Queue.Job<{ jobId: string }>): Promise<boolean> {
    const count = await this.queue.client.hget(this.queue.toKey(String(job.id)), 'stalledCounter');
    return Number(count ?? 0) > 0;
  }

  /** For health checks: is Redis answering? */
  async ping(): Promise<boolean> {
    return (await this.queue.client.ping()) === 'PONG';
  }
}
