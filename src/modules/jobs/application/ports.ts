import { PageRequest } from '../../../shared/domain/page-request';
import { JobProps, JobStatus, JobType } from '../domain/job';

export type NewJob = Omit<JobProps, 'status' | 'attempts' | 'error' | 'resultId' | 'startedAt' | 'finishedAt' | 'scenarioId' | 'scheduleId' | 'result'> &
  Partial<Pick<JobProps, 'scenarioId' | 'scheduleId' | 'result'>>;

export interface JobFilter {
  type?: JobType;
  status?: JobStatus;
  websiteId?: number;
  scenarioId?: number;
}

export abstract class JobRepository {
  /** Inserts a queued job; with an idempotency key already used by the account, returns that job instead. */
  abstract createOrGetIdempotent(job: NewJob): Promise<{ job: JobProps; created: boolean }>;
  /** Inserts queued jobs without idempotency keys, all or nothing (an aggregate's many jobs: a batch's items). */
  abstract createMany(jobs: NewJob[]): Promise<void>;
  abstract findById(id: string): Promise<JobProps | null>;
  abstract findOwned(accountId: number, id: string): Promise<JobProps | null>;
  /** The jobs among `ids` that exist, in no particular order (an aggregate reading its jobs' states). */
  abstract findMany(ids: string[]): Promise<JobProps[]>;
  abstract list(accountId: number, page: PageRequest, filter: JobFilter): Promise<{ items: JobProps[]; total: number }>;
  /**
   * Atomically takes a job for one attempt (status → running, attempts + 1, started_at → now): a queued job, or
   * a running one whose attempt is presumed dead because it started at or before `runningStartedBefore[type]`
   * (its lease ran out, see job-lease.ts). Null otherwise — finished, unknown, or held by a live attempt — so
   * a redelivery never runs a job twice at once. The returned `attempts` is the attempt's fencing token: the
   * writes below only land for the attempt that holds the job (see JobAttemptScope).
   */
  abstract claim(id: string, now: Date, runningStartedBefore: RunningCutoffs): Promise<JobProps | null>;
  /**
   * The writes an attempt makes. Inside JobAttemptScope.run for this job they only apply while that attempt
   * still holds the job (status running, same attempts); elsewhere succeed/requeue/saveResult need a running
   * job and fail an unfinished one, so a finished job is never changed again. True when the write applied.
   */
  abstract requeue(id: string): Promise<boolean>;
  abstract fail(id: string, error: string, now: Date): Promise<boolean>;
  /** Ends the job succeeded; `resultId`: what it produced, in its kind's terms (JobProps.resultId), or null. */
  abstract succeed(id: string, resultId: number | null, now: Date): Promise<boolean>;
  abstract saveResult(id: string, result: unknown): Promise<boolean>;
  /** Rewrites a job's options (used to erase a request's sealed secrets once the job has ended). */
  abstract replaceOptions(id: string, options: JobProps['options']): Promise<void>;
  abstract delete(id: string): Promise<void>;
  /**
   * Ends the job failed with `reason` only while it is still queued (never one an attempt holds): true when it
   * did. A claim after it finds the job finished, so the job never runs (a cancelled batch item).
   */
  abstract cancelQueued(id: string, reason: string, now: Date): Promise<boolean>;
  /** Queued jobs of a website that is being deleted end failed with `reason`. */
  abstract cancelQueuedForWebsite(websiteId: number, reason: string, now: Date): Promise<void>;
  /**
   * Jobs no transport is known to carry: queued since before `queuedBefore` (created, or last started, then),
   * or running on an attempt presumed dead (started at or before `runningStartedBefore[type]`). Oldest first,
   * `limit` at a time after the cursor `after`, so a caller pages through any number of them.
   */
  abstract findStale(cutoffs: StaleCutoffs, after: JobCursor | null, limit: number): Promise<JobProps[]>;
  /**
   * Puts every running job back to queued; only for a process that knows no other worker shares its
   * database (embedded mode at start), so every running row is an orphan of its previous life. Returns the count.
   */
  abstract requeueAllRunning(): Promise<number>;
  /** How many jobs wait and run right now, across every process (one grouped COUNT on the status index). */
  abstract countUnfinished(): Promise<Record<'queued' | 'running', number>>;
}

/** Per job kind (by name): a running attempt that started at or before this instant is presumed dead. */
export type RunningCutoffs = Record<string, Date>;

export interface StaleCutoffs {
  queuedBefore: Date;
  runningStartedBefore: RunningCutoffs;
}

/** Keyset position in the jobs ordered by (created_at, id). */
export interface JobCursor {
  createdAt: Date;
  id: string;
}

/**
 * A write by an attempt that no longer holds its job: another worker claimed it after this attempt's lease
 * ran out (or the job finished meanwhile). Whatever the attempt produced is dropped; the job is not touched.
 */
export class SupersededAttemptError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId}: this attempt no longer holds the job; its result is dropped`);
    this.name = 'SupersededAttemptError';
  }
}
