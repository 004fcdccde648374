import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Delivery, JobTransport } from './job-transport';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { JobProps, MAX_JOB_ATTEMPTS } from '../domain/job';
import { JobAttempt, JobAttemptScope } from './job-attempt-scope';
import { HandledOutcome, JobKinds } from './job-kinds';
import { errorMessage } from '../../../shared/domain/error-message';
import { isFinalFailure, publicInfrastructureReason } from './job-failure';
import { leaseExpiredBefore, staleCutoffs } from './job-lease';
import { JobCursor, JobRepository, RunningCutoffs, StaleCutoffs, SupersededAttemptError } from './ports';
import { Metrics } from '../../../shared/metrics/metrics';

const RETRY_BACKOFF_MS = [2_000, 5_000];

/** How long a worker keeps trying to record an attempt's outcome while the database is away (then the sweep). */
export const RECORD_RETRY_BUDGET_MS = 60_000;

/**
 * How often a worker looks for jobs no transport carries any more (see sweep()). A constant rather than a
 * setting: it only bounds how late a lost job is noticed, and QUEUED_GRACE_MS / the lease dominate that.
 */
export const SWEEP_INTERVAL_MS = 10_000;

/** Jobs handed over per query, so a backlog of any size is paged through instead of loaded (or cut) whole. */
const SWEEP_PAGE_SIZE = 500;

/**
 * The worker's single entry point for every job the transport delivers (captures and scenario runs):
 * claims the row for one attempt (so a redelivery of a finished or live job is skipped), gives up on a job
 * that keeps killing workers, routes by type, and retries infrastructure failures (browser crash, storage or
 * database errors) up to MAX_JOB_ATTEMPTS. Page failures are the handlers' business: they record them on the
 * job themselves. Also the safety net that hands lost jobs to the transport again, at start, periodically and
 * when the transport says it lost its deliveries. At shutdown it gives running jobs their grace, then hands the
 * rest back to the queue at once (queued again, their deliveries released) for another worker to take.
 */
@Injectable()
export class JobDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('JobDispatcher');
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;
  /** Shutting down: no more waiting for the database to record outcomes (the sweep or next start will). */
  private stopping = false;
  private consuming = false;
  /** Every delivery being handled in this process, from its claim to its end. */
  private readonly inFlight = new Set<Promise<void>>();
  /** The attempts this process runs right now: what a shutdown hands back if they outlast its grace. */
  private readonly attempts = new Set<JobAttempt>();

  constructor(
    private readonly jobs: JobRepository,
    private readonly transport: JobTransport,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly kinds: JobKinds,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'api') return;
    this.transport.onDeliveriesLost(() => void this.requeueLost());
    await this.recoverAtStart();
    this.sweepTimer = setInterval(() => void this.sweepInBackground(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  /**
   * The first step of shutting down (before the browsers, the transport's connections and the database close):
   * no new job is taken, the running ones get SHUTDOWN_GRACE_MS to finish, and those still running then are
   * handed back at once — queued again in the jobs table and their deliveries returned to the queue — so
   * another worker (or the next start) takes them now instead of when a lock or lease runs out. Their attempts
   * here are fenced out by then: whatever they still produce is dropped.
   */
  async onModuleDestroy(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    if (this.consuming) {
      await this.transport.stopTaking();
      await this.settled(this.config.shutdownGraceMs);
    }
    this.stopping = true;
    if (this.consuming) await this.handBackUnfinished();
    // The transport and the database close after this: let a sweep under way finish first.
    await this.sweeping?.catch(() => undefined);
  }

  /**
   * Hands the transport every job that no transport is known to carry: queued for longer than
   * QUEUED_GRACE_MS (the API died between writing the row and enqueueing it, or a retry could not be
   * enqueued), or running on an attempt whose lease ran out (its worker died unnoticed, or a failure could
   * not be recorded). Transports de-duplicate, and claim() skips jobs a live attempt holds, so sweeping on
   * every worker is harmless. Returns how many jobs were handed over.
   */
  sweep(): Promise<number> {
    // One at a time: sweeps must not pile up behind a slow database.
    this.sweeping ??= this.handOver(staleCutoffs(this.clock.now(), this.config, this.kinds.all())).finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  async dispatch(jobId: string, delivery: Delivery = { redelivered: false, priority: 'batch' }): Promise<void> {
    const now = this.clock.now();
    const job = await this.jobs.claim(jobId, now, this.takeoverCutoffs(now, delivery));
    if (!job) return; // finished, unknown, or held by a live attempt: a redelivery
    const attempt: JobAttempt = { jobId: job.id, attempt: job.attempts };
    if (this.stopping) {
      // Claimed after the grace ran out (a slow database): handed back like the rest, not started.
      await JobAttemptScope.run(attempt, () => this.jobs.requeue(job.id));
      return;
    }
    this.attempts.add(attempt);
    try {
      await JobAttemptScope.run(attempt, () => this.runAttempt(job, delivery));
    } finally {
      this.attempts.delete(attempt);
    }
  }

  /** Resolves once every delivery in flight here has ended, or after `graceMs`. */
  private async settled(graceMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }

  private async handBackUnfinished(): Promise<void> {
    const cutOff = [...this.attempts];
    let queued = 0;
    await Promise.all(
      cutOff.map(async (attempt) => {
        try {
          // Fenced like every write of the attempt: a job another worker took over meanwhile is not touched.
          if (await JobAttemptScope.run(attempt, () => this.jobs.requeue(attempt.jobId))) queued += 1;
        } catch (err) {
          // Its delivery still goes back, flagged as let go, so the next worker takes the running row over.
          this.logger.warn(`job ${attempt.jobId}: could not queue it again at shutdown: ${errorMessage(err)}`);
        }
      }),
    );
    const handed = await this.transport.handBack().catch((err: unknown) => {
      this.logger.warn(`handing deliveries back to the queue failed; their locks run out instead: ${errorMessage(err)}`);
      return 0;
    });
    if (cutOff.length || handed) this.logger.warn(`shutting down: ${queued} unfinished job(s) queued again, ${handed} handed back to the queue`);
  }

  private takeoverCutoffs(now: Date, delivery: Delivery): RunningCutoffs {
    // The transport saw the worker holding this delivery stop (its lock expired): whatever attempt that worker
    // ran is dead, so it is taken over now rather than when its lease runs out.
    if (delivery.redelivered) return Object.fromEntries(this.kinds.all().map((kind) => [kind.name, now]));
    return leaseExpiredBefore(now, this.config, this.kinds.all());
  }

  private async runAttempt(job: JobProps, delivery: Delivery): Promise<void> {
    if (job.attempts > MAX_JOB_ATTEMPTS) {
      if (await this.jobs.fail(job.id, `Abandoned after ${MAX_JOB_ATTEMPTS} attempts (the worker stopped each time)`, this.clock.now())) {
        this.metrics.jobEnded(job.type, 'failed');
      }
      return;
    }
    // Every declared kind has its runner (checked at boot): a miss is a row of a kind this version does not know.
    const handler = this.kinds.handlerFor(job.type);
    if (!handler) {
      if (await this.jobs.fail(job.id, `No handler for jobs of type ${job.type}`, this.clock.now())) this.metrics.jobEnded(job.type, 'failed');
      return;
    }
    let outcome: HandledOutcome | void;
    try {
      outcome = await handler.handle(job);
    } catch (err) {
      await this.retryOrFail(job, err, delivery);
      return;
    }
    if (outcome === 'succeeded' || outcome === 'failed') this.metrics.jobEnded(job.type, outcome);
    else if (outcome === undefined) await this.countOutcome(job);
  }

  /**
   * Handlers record how their job ended themselves (a capture's is marked succeeded in the commit of its
   * screenshot); one that does not say what its writes did has the outcome read back. Counted only while the row still carries this attempt's number:
   * fencing lets no other attempt write it then, so each job is counted once, by the attempt that ended it.
   */
  private async countOutcome(job: JobProps): Promise<void> {
    try {
      const ended = await this.jobs.findById(job.id);
      if (ended?.attempts === job.attempts && (ended.status === 'succeeded' || ended.status === 'failed')) this.metrics.jobEnded(job.type, ended.status);
    } catch {
      // Only a count is lost: the job's outcome is recorded.
    }
  }

  /**
   * Records an attempt's outcome, trying again while the database is away (1, 2, 4, … at most 5 s apart, for
   * up to RECORD_RETRY_BUDGET_MS). Given up at once, the job would sit as `running` until its lease ran out
   * (~90 s) although the database was back seconds later; this way it is retried or failed as soon as it is.
   */
  private async untilRecorded<T>(job: JobProps, record: () => Promise<T>): Promise<T> {
    const giveUpAt = Date.now() + RECORD_RETRY_BUDGET_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await record();
      } catch (err) {
        if (Date.now() >= giveUpAt || this.stopping) throw err;
        if (attempt === 0) this.logger.warn(`job ${job.id}: could not record the attempt's outcome, retrying until the database answers: ${errorMessage(err)}`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * 2 ** attempt, 5000)));
      }
    }
  }

  private async retryOrFail(job: JobProps, err: unknown, delivery: Delivery): Promise<void> {
    if (err instanceof SupersededAttemptError) {
      this.logger.warn(`job ${job.id} attempt ${job.attempts} was taken over by a later attempt; its result was dropped`);
      return;
    }
    if (isFinalFailure(err)) {
      if (await this.untilRecorded(job, () => this.jobs.fail(job.id, err.message, this.clock.now()))) this.metrics.jobEnded(job.type, 'failed');
      return;
    }
    const detail = errorMessage(err);
    if (job.attempts < MAX_JOB_ATTEMPTS) {
      this.logger.warn(`job ${job.id} attempt ${job.attempts} hit an infrastructure error, retrying: ${detail}`);
      // Requeued only while this attempt still holds the job; should the enqueue fail, the sweep finds it queued.
      if (await this.untilRecorded(job, () => this.jobs.requeue(job.id))) {
        await this.transport.enqueue(job.id, {
          delayMs: RETRY_BACKOFF_MS[job.attempts - 1] ?? 5_000,
          key: `retry:${job.attempts}`,
          accountId: job.accountId,
          priority: delivery.priority,
        });
      }
      return;
    }
    this.logger.error(`job ${job.id} failed for good after ${MAX_JOB_ATTEMPTS} attempts: ${detail}`);
    const failed = await this.untilRecorded(job, () =>
      this.jobs.fail(job.id, `Failed after ${MAX_JOB_ATTEMPTS} attempts: ${publicInfrastructureReason(err)}`, this.clock.now()),
    );
    if (failed) this.metrics.jobEnded(job.type, 'failed');
  }

  private async recoverAtStart(): Promise<void> {
    try {
      // Embedded mode is one process on its own SQLite file (DESIGN.md), so a job still running at start was
      // running in this process before it died: it is taken back at once instead of after its lease.
      // Done before consuming, so it can never touch an attempt this process has just claimed.
      if (this.config.databaseUrl === null) {
        const orphans = await this.jobs.requeueAllRunning();
        if (orphans) this.logger.log(`took back ${orphans} job(s) the previous process left running`);
      }
    } catch (err) {
      this.logger.error(`taking back jobs left running failed; they are re-run when their lease runs out: ${errorMessage(err)}`);
    }
    this.transport.consume((jobId, delivery) => this.track(this.dispatch(jobId, delivery)), this.config.captureConcurrency);
    this.consuming = true;
    try {
      // Every queued job, however young: the previous process may have died right after writing one.
      const now = this.clock.now();
      const handed = await this.handOver({
        queuedBefore: new Date(now.getTime() + 1000),
        runningStartedBefore: leaseExpiredBefore(now, this.config, this.kinds.all()),
      });
      if (handed) this.logger.log(`re-queued ${handed} unfinished job(s)`);
    } catch (err) {
      this.logger.error(`re-queueing unfinished jobs at start failed; the periodic sweep retries: ${errorMessage(err)}`);
    }
  }

  private track(dispatching: Promise<void>): Promise<void> {
    this.inFlight.add(dispatching);
    return dispatching.finally(() => this.inFlight.delete(dispatching));
  }

  /**
   * The transport lost the deliveries it carried (a Redis restarted empty): every queued job, however young,
   * is handed to it again now rather than when the sweep finds it queued for longer than QUEUED_GRACE_MS.
   * Running jobs stay with their attempts (a live one finishes; a dead one's lease runs out, as before).
   */
  private async requeueLost(): Promise<void> {
    if (this.stopping) return;
    try {
      const now = this.clock.now();
      const handed = await this.handOver({
        queuedBefore: new Date(now.getTime() + 1000),
        runningStartedBefore: leaseExpiredBefore(now, this.config, this.kinds.all()),
      });
      this.logger.warn(`re-queued ${handed} unfinished job(s) the transport lost`);
    } catch (err) {
      this.logger.error(`re-queueing the jobs the transport lost failed; the periodic sweep retries: ${errorMessage(err)}`);
    }
  }

  private async sweepInBackground(): Promise<void> {
    try {
      const handed = await this.sweep();
      if (handed) this.logger.warn(`re-queued ${handed} job(s) that no transport carried any more`);
    } catch (err) {
      this.logger.error(`sweeping for lost jobs failed: ${errorMessage(err)}`);
    }
  }

  private async handOver(cutoffs: StaleCutoffs): Promise<number> {
    let after: JobCursor | null = null;
    let handed = 0;
    for (;;) {
      const page = await this.jobs.findStale(cutoffs, after, SWEEP_PAGE_SIZE);
      // A lapsed attempt gets a delivery of its own: with Bull, the job's earlier delivery may still be held by
      // a hung worker, and adding a job under an id Bull still holds is a no-op.
      await Promise.all(
        page.map((job) =>
          this.transport.enqueue(job.id, { accountId: job.accountId, ...(job.status === 'running' ? { key: `expired:${job.attempts}` } : {}) }),
        ),
      );
      handed += page.length;
      if (page.length < SWEEP_PAGE_SIZE) return handed;
      const last = page[page.length - 1];
      after = { createdAt: last.createdAt, id: last.id };
    }
  }
}
