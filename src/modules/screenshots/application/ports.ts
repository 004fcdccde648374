import type { Readable } from 'node:stream';
import { PageRequest } from '../../../shared/domain/page-request';
import { JobProps, JobStatus, JobType } from '../domain/job';
import { ScreenshotProps } from '../domain/screenshot';

export type NewJob = Omit<JobProps, 'status' | 'attempts' | 'error' | 'screenshotId' | 'startedAt' | 'finishedAt' | 'scenarioId' | 'scheduleId' | 'result'> &
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
  abstract findById(id: string): Promise<JobProps | null>;
  abstract findOwned(accountId: number, id: string): Promise<JobProps | null>;
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
  abstract succeed(id: string, screenshotId: number | null, now: Date): Promise<boolean>;
  abstract saveResult(id: string, result: unknown): Promise<boolean>;
  abstract delete(id: string): Promise<void>;
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
}

/** Per job type: a running attempt that started at or before this instant is presumed dead. */
export type RunningCutoffs = Record<JobType, Date>;

export interface StaleCutoffs {
  queuedBefore: Date;
  runningStartedBefore: RunningCutoffs;
}

/** Keyset position in the jobs ordered by (created_at, id). */
export interface JobCursor {
  createdAt: Date;
  id: string;
}

export interface ScreenshotFilter {
  websiteId?: number;
  status?: string;
  scenarioId?: number;
}

export interface CapturedScreenshot {
  accountId: number;
  websiteId: number;
  /** Set for capture jobs (one screenshot per job), null for scenario screenshots. */
  jobId: string | null;
  scenarioId?: number | null;
  executionId?: string | null;
  fileSize: number;
  width: number;
  height: number;
  takenAt: Date;
}

export class DuplicateScreenshotError extends Error {}

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

export abstract class ScreenshotRepository {
  /**
   * Inserts the screenshot row and lets `placeFile(id)` move the PNG into place (returning its key) in one
   * transaction, so row and file exist together or not at all; for a capture job (`shot.jobId`) the same
   * transaction marks the job succeeded. Throws DuplicateScreenshotError when the job already has its screenshot,
   * and SupersededAttemptError when the attempt storing it (JobAttemptScope) no longer holds the job or execution.
   * Throws only when nothing was committed: the caller may then remove the placed files.
   */
  abstract insertWithFile(shot: CapturedScreenshot, placeFile: (id: number) => string, finishedAt: Date): Promise<ScreenshotProps>;
  abstract listForExecution(executionId: string): Promise<ScreenshotProps[]>;
  abstract findOwned(accountId: number, id: number): Promise<ScreenshotProps | null>;
  abstract findOwnedMany(accountId: number, ids: number[]): Promise<ScreenshotProps[]>;
  abstract findByJob(jobId: string): Promise<ScreenshotProps | null>;
  abstract list(accountId: number, page: PageRequest, filter: ScreenshotFilter): Promise<{ items: ScreenshotProps[]; total: number }>;
  abstract delete(id: number): Promise<void>;
}

/** A PNG written to a temporary name, not yet visible under its key. */
export interface StagedFile {
  tempPath: string;
}

/** Where PNGs live. Keys are relative (`screenshots/1/2/3.png`); no server path ever leaves the adapter. */
export abstract class ScreenshotStorage {
  /** Writes the bytes to a temporary file in the storage area (never a half-written file under a real key). */
  abstract stage(data: Buffer): Promise<StagedFile>;
  /** Atomically renames a staged file to its key (synchronous so it can run inside a DB transaction). */
  abstract placeSync(staged: StagedFile, key: string): void;
  abstract discard(staged: StagedFile): Promise<void>;
  abstract open(key: string): Readable;
  /** The whole file, or null when there is none under this key (for small files: thumbnails). */
  abstract read(key: string): Promise<Buffer | null>;
  abstract exists(key: string): Promise<boolean>;
  abstract delete(key: string): Promise<void>;
  /** Removes every file under a folder key (`websiteArea()`), and the folder. */
  abstract deleteArea(area: string): Promise<void>;
}

/** Makes a screenshot's thumbnail (domain/thumbnail.ts: THUMBNAIL) from its PNG. */
export abstract class ThumbnailRenderer {
  abstract render(png: Buffer): Promise<Buffer>;
}

/** One file of a ZIP: its name in the archive and how to open it when the archive reaches it. */
export interface ZipEntry {
  name: string;
  open: () => Readable;
}

/** Writes a ZIP as a stream, entry by entry, so memory stays flat whatever the total size (Bulk Download). */
export abstract class ZipWriter {
  abstract stream(entries: ZipEntry[]): Readable;
}
