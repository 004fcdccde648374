import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import Queue from 'bull';
import { errorMessage } from '../../shared/domain/error-message';
import { within } from '../../shared/domain/within';
import { EnqueueOptions, JobHandler, JobTransport, SlotCaps } from '../../modules/jobs/application/job-transport';

/** What a delivery carries: the job, and what places it in the fair order (docs/fair-slots.md). */
interface DeliveryData {
  jobId: string;
  accountId?: number;
  /** Bull's priority as enqueued: 1 interactive, 2 and up a batch delivery's start tag. */
  priority?: number;
}

/** Bull's highest priority (its lowest number): a client waits on these. Batch tags start above it. */
const INTERACTIVE_PRIORITY = 1;

/**
 * Start-time fair queueing of batch deliveries, as Bull priorities: an account's next delivery is tagged one
 * past the later of its own last tag and the tag now in service (the queue's virtual time). An account with a
 * backlog of 60 holds tags vt+1 … vt+60; another account's delivery gets vt+1 and goes before all but the
 * first, so accounts with backlogs alternate (round-robin) and a new account never waits behind a backlog.
 */
const TAG_SCRIPT = `
local vt = tonumber(redis.call('GET', KEYS[1]) or '0')
local last = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local tag = math.max(vt, last) + 1
redis.call('HSET', KEYS[2], ARGV[1], tag)
return tag
`;

/**
 * A worker taking a delivery of an account: a slot if the account holds fewer than its cap (expired holds of
 * dead workers dropped first; a redelivery keeps the slot its delivery held), and the virtual time moves to the
 * delivery's tag. At the cap the delivery is parked on the account instead (by priority), in the same script, so
 * a slot released meanwhile cannot miss it. A job is parked once, by its id: the sweep hands a parked job (still
 * queued in the jobs table) to the queue again every few seconds, and each copy must not become another parked
 * entry; LT keeps its earliest tag, or the interactive priority of a promotion. A delivery that runs takes its
 * job off the parked set, at the better of its own priority and the parked entry's.
 *
 * A delivery that finds a free slot while its account has an earlier job parked does not run before it: it is
 * parked in its place and that job is handed back to be queued again, the slot left free for whichever delivery
 * the queue's order puts first. Without this, a later delivery of a backlog that was still in the queue when a
 * slot came free ran ahead of the account's parked ones, and moved the virtual time past them: every other
 * account's deliveries were then tagged behind that whole backlog, and got only the slots it could not use (a
 * third of the starts instead of half, fair-slots.int-spec). A redelivery (ARGV[7] = 1: its worker died) is never
 * swapped: it must run as one, to take over the attempt its worker left.
 *
 * Answers {'run', priority}, {'parked'} or {'swap', job id, its priority}.
 */
const ACQUIRE_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local holds = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not holds and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[2], 'LT', ARGV[6], ARGV[5])
  return {'parked'}
end
local priority = tonumber(ARGV[6])
local parked = redis.call('ZSCORE', KEYS[2], ARGV[5])
if parked then
  priority = math.min(priority, tonumber(parked))
  redis.call('ZREM', KEYS[2], ARGV[5])
end
if not holds and ARGV[7] ~= '1' then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if first[1] and tonumber(first[2]) < priority then
    redis.call('ZREM', KEYS[2], first[1])
    redis.call('ZADD', KEYS[2], priority, ARGV[5])
    return {'swap', first[1], first[2]}
  end
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
local tag = priority - 1
if tag > 0 and tag > tonumber(redis.call('GET', KEYS[3]) or '0') then redis.call('SET', KEYS[3], tag) end
return {'run', tostring(priority)}
`;

/** A slot given back; the account's first parked job (if any) is returned with its priority, to be queued again. */
const RELEASE_SCRIPT = `
redis.call('ZREM', KEYS[1], ARGV[1])
local popped = redis.call('ZPOPMIN', KEYS[2])
if popped[1] then return popped end
return false
`;

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
 * How often a running delivery's lock (and its slot) is renewed: four times a lock, so a live worker keeps it through
 * three missed renewals (a busy event loop, a slow Redis answer), while the lock itself can stay short (JOB_LOCK_MS,
 * 6 s by default: a killed worker's job runs again within ~8.4 s; issue 43).
 */
export function lockRenewIntervalMs(lockDurationMs: number): number {
  return Math.max(250, Math.floor(lockDurationMs / 4));
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
  /** Each account's cap on simultaneous deliveries across every worker; none = no cap. */
  slotCaps?: SlotCaps;
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
  private readonly queue: Queue.Queue<DeliveryData>;
  /** The deliveries this process's handler is running, by Bull job id. */
  private readonly active = new Map<string, Queue.Job<DeliveryData>>();
  private readonly fairKey: (name: string) => string;
  private readonly slotCaps: SlotCaps | null;
  private readonly lockDurationMs: number;
  private readonly lostListeners: (() => void)[] = [];
  private readonly epochKey: string;
  /** The queue's epoch as this process last read it; null before the first connection. */
  private epoch: string | null = null;
  private epochCheck: Promise<void> = Promise.resolve();

  constructor(settings: BullTransportSettings) {
    super();
    this.epochKey = `${settings.keyPrefix}:bull:capture-jobs-epoch`;
    this.fairKey = (name) => `${settings.keyPrefix}:bull:capture-jobs-fair:${name}`;
    this.slotCaps = settings.slotCaps ?? null;
    this.lockDurationMs = settings.lockDurationMs;
    this.queue = new Queue<DeliveryData>('capture-jobs', settings.redisUrl, {
      prefix: `${settings.keyPrefix}:bull`,
      redis: { retryStrategy: reconnectDelayMs },
      settings: {
        retryProcessDelay: RETRY_FETCH_MS,
        lockDuration: settings.lockDurationMs,
        lockRenewTime: lockRenewIntervalMs(settings.lockDurationMs),
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
      (async () => {
        const priority = options.priority === 'interactive' ? INTERACTIVE_PRIORITY : await this.batchTag(options.accountId);
        await this.queue.add({ jobId, accountId: options.accountId, priority }, { jobId: bullId, delay: options.delayMs, priority });
      })(),
      ENQUEUE_TIMEOUT_MS,
      () => new Error(`Command timed out: the queue did not take job ${jobId} within ${ENQUEUE_TIMEOUT_MS} ms`),
    );
  }

  private async batchTag(accountId: number | undefined): Promise<number> {
    const tag = await this.queue.client.eval(TAG_SCRIPT, 2, this.fairKey('vt'), this.fairKey('tags'), String(accountId ?? ''));
    return INTERACTIVE_PRIORITY + Number(tag);
  }

  consume(handler: JobHandler, concurrency: number): void {
    void this.queue.process(concurrency, async (job) => {
      const bullId = String(job.id);
      const redelivered = await this.wasStalled(job);
      const priority = await this.acquireSlot(bullId, job.data, redelivered);
      if (priority === null) return; // parked: a slot of its account brings it back
      this.active.set(bullId, job);
      // The slot is held like Bull's lock: renewed while the handler runs, so a dead worker's runs out soon.
      const renew = setInterval(() => void this.renewSlot(bullId, job.data), lockRenewIntervalMs(this.lockDurationMs));
      try {
        await handler(job.data.jobId, { redelivered, priority: priority === INTERACTIVE_PRIORITY ? 'interactive' : 'batch' });
      } finally {
        clearInterval(renew);
        this.active.delete(bullId);
        await this.releaseSlot(bullId, job.data);
      }
    });
  }

  /** The account's slots and parked deliveries; deliveries without an account (or caps) share uncapped ones. */
  private slotKeys(data: DeliveryData): [string, string] {
    const owner = data.accountId === undefined || !this.slotCaps ? '' : String(data.accountId);
    return [this.fairKey(`slots:${owner}`), this.fairKey(`parked:${owner}`)];
  }

  /**
   * The priority the delivery runs at (its own, or the interactive one of a promotion its job was parked with);
   * null when it was parked: because its account runs its cap, or in place of the account's earlier parked job,
   * which is then queued again.
   */
  private async acquireSlot(bullId: string, data: DeliveryData, redelivered: boolean): Promise<number | null> {
    const priority = data.priority ?? INTERACTIVE_PRIORITY + 1;
    const cap = data.accountId === undefined || !this.slotCaps ? 1e9 : await this.slotCaps(data.accountId);
    const now = Date.now();
    const [verdict, ...rest] = (await this.queue.client.eval(
      ACQUIRE_SCRIPT,
      3,
      ...this.slotKeys(data),
      this.fairKey('vt'),
      bullId,
      now,
      now + this.lockDurationMs,
      cap,
      data.jobId,
      priority,
      redelivered ? '1' : '0',
    )) as [string, ...string[]];
    if (verdict === 'run') return Number(rest[0]);
    if (verdict === 'swap') {
      await this.requeueParked(rest as [string, string], data).catch((err: unknown) => {
        // Both jobs are still queued in the jobs table: the sweep hands them over again.
        this.logger.warn(`queueing parked job ${rest[0]} again: ${errorMessage(err)}`);
      });
    }
    return null;
  }

  private async renewSlot(bullId: string, data: DeliveryData): Promise<void> {
    await this.queue.client.zadd(this.slotKeys(data)[0], 'XX', Date.now() + this.lockDurationMs, bullId).catch(() => undefined);
  }

  /** Gives the slot back and queues the account's first parked delivery (if any) again. */
  private async releaseSlot(bullId: string, data: DeliveryData): Promise<void> {
    try {
      const popped = (await this.queue.client.eval(RELEASE_SCRIPT, 2, ...this.slotKeys(data), bullId)) as [string, string] | null;
      if (popped) await this.requeueParked(popped, data);
    } catch (err) {
      this.logger.warn(`giving back the slot of ${bullId}: ${errorMessage(err)}`);
    }
  }

  /**
   * A parked job ([job id, priority], off the set of `data`'s account) queued again under an id of its own (the
   * parked one's may still be in Bull, finishing). Should that fail, the sweep finds the job still queued.
   */
  private async requeueParked([jobId, score]: [string, string], data: DeliveryData): Promise<void> {
    const priority = Number(score);
    await this.queue.add({ jobId, accountId: data.accountId, priority }, { jobId: `${jobId}~${randomUUID().slice(0, 8)}`, priority });
  }

  async stopTaking(): Promise<void> {
    // Paused for this process only, without waiting for the jobs it runs; a finishing job fetches no next one.
    await this.queue.pause(true, true).catch((err: Error) => this.logger.warn(`pausing the queue: ${err.message}`));
  }

  async handBack(): Promise<number> {
    const token = (this.queue as unknown as { token: string }).token;
    const held = [...this.active.entries()];
    const results = await Promise.all(
      held.map(([bullId]) =>
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
    // Their slots go too: the deliveries are back in the queue and take a slot again when they run.
    await Promise.all(held.map(([bullId, job], i) => (results[i] === 1 ? this.releaseSlot(bullId, job.data) : Promise.resolve())));
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
  private async wasStalled(job: Queue.Job<DeliveryData>): Promise<boolean> {
    const count = await this.queue.client.hget(this.queue.toKey(String(job.id)), 'stalledCounter');
    return Number(count ?? 0) > 0;
  }

  /** For health checks: is Redis answering? */
  async ping(): Promise<boolean> {
    return (await this.queue.client.ping()) === 'PONG';
  }
}
