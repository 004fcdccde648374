import { Injectable, Logger } from '@nestjs/common';
import { ConflictError, NotFoundError, UnavailableError } from '../../../shared/domain/domain-error';
import { errorMessage } from '../../../shared/domain/error-message';
import { PageRequest } from '../../../shared/domain/page-request';
import { isSameJobRequest, JobProps } from '../domain/job';
import { JobEvents } from './job-events';
import { JobKinds } from './job-kinds';
import { JobTransport } from './job-transport';
import { readWhenFinished } from './job-wait';
import { JobFilter, JobRepository, NewJob } from './ports';

export interface SubmitOptions {
  /**
   * A client is waiting for this job's result in the same request (a render): it goes ahead of every queued
   * batch job (other requests, schedules). Within its account's cap of slots all the same (docs/fair-slots.md).
   */
  interactive?: boolean;
}

/** How many deliveries submitMany hands to the transport at once. */
const SUBMIT_AT_ONCE = 8;

/**
 * Queuing a job and reading jobs back, whatever their type: the contexts that ask for work (captures,
 * scenario runs) build the job and its payload, this writes and queues it; GET /jobs reads it.
 */
@Injectable()
export class JobsService {
  private readonly logger = new Logger('Jobs');

  constructor(
    private readonly jobs: JobRepository,
    private readonly transport: JobTransport,
    private readonly events: JobEvents,
    private readonly kinds: JobKinds,
  ) {}

  /**
   * Writes the job row, then hands it to the transport before answering: once the client has a job id,
   * the job is durably queued. A reused idempotency key returns the job it made before — if the request is
   * the same one; a key reused for something else is 409. If the transport is down the row is removed again
   * (503, nothing half-applied). Used for captures and scenario runs.
   */
  async submit(newJob: NewJob, options: SubmitOptions = {}): Promise<JobProps> {
    const { job, created } = await this.jobs.createOrGetIdempotent(newJob);
    if (!created) {
      if (!isSameJobRequest(job, newJob, this.kinds.kind(newJob.type)?.samePayloadOnRetry ?? true)) {
        throw new ConflictError('This Idempotency-Key was already used for a different request; use a new key for a new request.');
      }
      return job;
    }
    try {
      await this.transport.enqueue(job.id, { accountId: job.accountId, priority: options.interactive ? 'interactive' : 'batch' });
    } catch (err) {
      this.logger.error(`could not queue job ${job.id}: ${errorMessage(err)}`);
      await this.jobs.delete(job.id);
      throw new UnavailableError('The job queue is unavailable; nothing was queued. Please retry.');
    }
    return job;
  }

  /**
   * Many jobs of an aggregate at once (a batch's items, no idempotency keys): written in one transaction, then handed
   * to the transport, a few at a time, at batch priority (each with its account: the fair slots order them). Throws
   * UnavailableError when a delivery could not be queued; `queued` then lists the jobs that were, for the caller to
   * take back (its aggregate knows what is half-applied).
   */
  async submitMany(newJobs: NewJob[], queued: string[] = []): Promise<void> {
    await this.jobs.createMany(newJobs);
    let next = 0;
    let failure: unknown = null;
    const worker = async () => {
      while (next < newJobs.length && failure === null) {
        const job = newJobs[next++];
        try {
          await this.transport.enqueue(job.id, { accountId: job.accountId, priority: 'batch' });
          queued.push(job.id);
        } catch (err) {
          failure = err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SUBMIT_AT_ONCE, newJobs.length) }, worker));
    if (failure !== null) {
      this.logger.error(`could not queue ${newJobs.length - queued.length} of ${newJobs.length} jobs: ${errorMessage(failure)}`);
      throw new UnavailableError('The job queue is unavailable; nothing was queued. Please retry.');
    }
  }

  async get(accountId: number, id: string): Promise<JobProps> {
    const job = await this.jobs.findOwned(accountId, id);
    if (!job) throw new NotFoundError('Job');
    return job;
  }

  /**
   * Cancels the account's job while it is still queued: it ends failed with `reason`, and a worker that receives it
   * later finds it finished and never runs it (claim() takes only a queued job, or a running one whose attempt is
   * dead). A job a worker already holds is left alone — there is no safe way to stop a capture half done — and runs
   * to its end. The job as it is afterwards, and whether this call cancelled it; another account's job is NotFound.
   */
  async cancelQueued(accountId: number, id: string, reason: string, now: Date): Promise<{ job: JobProps; cancelled: boolean }> {
    const job = await this.get(accountId, id);
    const cancelled = job.status === 'queued' && (await this.jobs.cancelQueued(job.id, reason, now));
    return { job: await this.get(accountId, id), cancelled };
  }

  /**
   * The job once it has ended, or after `waitSeconds` as it is then (long-poll; 0 = at once). A client that
   * waits on a job still queued has it promoted (see promoteWhileWaited).
   */
  getWhenFinished(accountId: number, id: string, waitSeconds: number, clientGone: AbortSignal): Promise<JobProps> {
    let promoted = false;
    return readWhenFinished(this.events, id, waitSeconds, clientGone, async () => {
      const job = await this.get(accountId, id);
      if (!promoted && waitSeconds > 0) promoted = await this.promoteWhileWaited(job);
      return job;
    });
  }

  /**
   * A client waits on this job now (`?wait=N`): if it is still queued it gets an interactive delivery of its own,
   * ahead of every batch one. Its batch delivery stays queued (claim() makes whichever comes second a no-op).
   * Best effort: a queue that is away only costs the client its place in front. True once promoted (or finished).
   */
  async promoteWhileWaited(job: JobProps): Promise<boolean> {
    if (job.status !== 'queued') return true;
    try {
      await this.transport.enqueue(job.id, { key: 'interactive', priority: 'interactive', accountId: job.accountId });
      return true;
    } catch (err) {
      this.logger.warn(`could not promote job ${job.id} for its waiting client: ${errorMessage(err)}`);
      return false;
    }
  }

  list(accountId: number, page: PageRequest, filter: JobFilter) {
    return this.jobs.list(accountId, page, filter);
  }
}
