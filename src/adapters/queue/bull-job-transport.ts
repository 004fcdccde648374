import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import Queue from 'bull';
import { errorMessage } from '../../shared/domain/error-message';
import { within } from '../../shared/domain/within';
import { EnqueueOptions, JobHandler, JobTransport } from '../../modules/jobs/application/job-transport';

/** How long adding a job may take before the request that asked for it gets 503. */
const ENQUEUE_TIMEOUT_MS = 2000;

/**
 * How often each worker looks for deliveries whose worker stopped renewing its lock. Bull moves such a job back
 * to the queue at the second check after its lock expired, so a dead worker's job runs again within
 * lockDuration + 2 × this: at most 6 s over JOB_LOCK_MS (the check was the lock's length, which made a
 * handover take two to three locks; figures: docs/faults.md). One small Lua script per check.
 */
export function stalledCheckIntervalMs(lockDurationMs: number): number {
  return Math.max(500, Math.min(3000, Math.floor(lockDurationMs / 5)));
}

/**
 * Reconnecting to Redis soon after it returns: 100 ms, 200 ms, … at most 1 s apart, like the process's other
 * clients. Bull's own default backs off exponentially up to 20 s, which kept workers idle that long after an outage.
 */
const reconnectDelayMs = (attempt: number) => Math.min(attempt * 100, 1000);

/**
 * How long a worker waits before fetching again after a fetch failed (Bull's default: 5 s). The failure is
 * almost always Redis gone, and the client reconnects within a second of its return.
 */
const RETRY_FETCH_MS = 500;

/**
 * Hands one delivery this worker holds back to the queue: only while this worker still holds its lock (another
 * worker may have taken it over since), the lock is dropped, the job leaves the active list and goes to the
 * front of the waiting one (where Bull's stalled-job check puts a stalled job), and it is counted as stalled, so
 * the worker that takes it knows a previous holder let it go. Atomic, like Bull's own scripts.
 */
const HAND_BACK_SCRIPT = `
local lockKey = KEYS[1] .. ':lock'
if redis.call('GET', lockKey) ~= ARGV[2] then return 0 end
redis.call('DEL', lockKey)
if redis.call('LREM', KEYS[2], 1, ARGV[1]) == 0 then return 0 end
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'stalledCounter', 1)
local target = KEYS[4]
if redis.call('EXISTS', KEYS[5]) == 1 then target = KEYS[6] end
redis.call('RPUSH', target, ARGV[1])
return 1
`;

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
 * A worker shutting down hands its unfinished deliveries back itself (handBack), so nobody waits for its lock.
 *
 * A Redis restarted without its data (no persistence) has lost every waiting and delayed delivery. Each
 * process notices that when it reconnects: a random marker key (the queue's "epoch") it read before is gone.
 */
export class BullJobTransport extends JobTransport {
  private readonly logger = new Logger('BullJobTransport');
  private readonly queue: Queue.Queue<{ jobId: string }>;
  /** The deliveries this process's handler is running, by Bull job id. */
  private readonly active = new Map<string, Queue.Job<{ jobId: string }>>();
  private readonly lostListeners: (() => void)[] = [];
  private readonly epochKey: string;
  /** The queue's epoch as this process last read it; null before the first connection. */
  private epoch: string | null = null;
  private epochCheck: Promise<void> = Promise.resolve();

  constructor(settings: BullTransportSettings) {
    super();
    this.epochKey = `${settings.keyPrefix}:bull:capture-jobs-epoch`;
    this.queue = new Queue<{ jobId: string }>('capture-jobs', settings.redisUrl, {
      prefix: `${settings.keyPrefix}:bull`,
      redis: { retryStrategy: reconnectDelayMs },
      settings: {
        retryProcessDelay: RETRY_FETCH_MS,
        lockDuration: settings.lockDurationMs,
        lockRenewTime: Math.floor(settings.lockDurationMs / 3),
        stalledInterval: stalledCheckIntervalMs(settings.lockDurationMs),
        // Our own attempts counter (jobs table) gives up on a job that keeps killing workers.
        maxStalledCount: 10,
      },
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
    });
    this.queue.on('error', (err) => this.logger.warn(`queue: ${err.message}`));
    // ioredis says 'ready' on the first connection and on every reconnection.
    this.queue.client.on('ready', () => {
      this.epochCheck = this.epochCheck.then(() => this.checkEpoch());
    });
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
      this.active.set(String(job.id), job);
      try {
        await handler(job.data.jobId, { redelivered: await this.wasStalled(job) });
      } finally {
        this.active.delete(String(job.id));
      }
    });
  }

  async stopTaking(): Promise<void> {
    // Paused for this process only, without waiting for the jobs it runs; a finishing job fetches no next one.
    await this.queue.pause(true, true).catch((err: Error) => this.logger.warn(`pausing the queue: ${err.message}`));
  }

  async handBack(): Promise<number> {
    const token = (this.queue as unknown as { token: string }).token;
    const results = await Promise.all(
      [...this.active.keys()].map((bullId) =>
        this.queue.client
          .eval(
            HAND_BACK_SCRIPT,
            6,
            this.queue.toKey(bullId),
            this.queue.toKey('active'),
            this.queue.toKey('stalled'),
            this.queue.toKey('wait'),
            this.queue.toKey('meta-paused'),
            this.queue.toKey('paused'),
            bullId,
            token,
          )
          .catch((err: Error) => {
            // Its lock still runs out, and Bull's stalled-job check hands it over then.
            this.logger.warn(`handing job ${bullId} back to the queue failed: ${err.message}`);
            return 0;
          }),
      ),
    );
    return results.filter((moved) => moved === 1).length;
  }

  onDeliveriesLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  async close(): Promise<void> {
    // Handlers still running were handed back (or are lost with the process): closing does not wait for them.
    await Promise.race([this.queue.close(true), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }

  /**
   * On every (re)connection: the queue's epoch is set if missing, then read. A value other than the one read
   * before means Redis came back empty, and with it every delivery it held.
   */
  private async checkEpoch(): Promise<void> {
    try {
      const client = this.queue.client;
      await client.set(this.epochKey, randomUUID(), 'NX');
      const epoch = await client.get(this.epochKey);
      const lost = this.epoch !== null && epoch !== this.epoch;
      this.epoch = epoch;
      if (!lost) return;
      this.logger.warn('Redis came back without the queue: its unfinished jobs are handed over again');
      for (const listener of this.lostListeners) listener();
    } catch (err) {
      // Lost again at once: the next 'ready' checks again (and the periodic sweep is there anyway).
      this.logger.warn(`reading the queue's epoch: ${errorMessage(err)}`);
    }
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
