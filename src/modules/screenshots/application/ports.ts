import type { Readable } from 'node:stream';
import { PageRequest } from '../../../shared/http/pagination';
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
   * Atomically takes an unfinished job for processing (status → running, attempts + 1). Null when the job
   * is finished or unknown, so a redelivered job is recognised and skipped.
   */
  abstract claim(id: string, now: Date): Promise<JobProps | null>;
  abstract requeue(id: string): Promise<void>;
  abstract fail(id: string, error: string, now: Date): Promise<void>;
  abstract succeed(id: string, screenshotId: number | null, now: Date): Promise<void>;
  abstract saveResult(id: string, result: unknown): Promise<void>;
  abstract delete(id: string): Promise<void>;
  /** Queued jobs of a website that is being deleted end failed with `reason`. */
  abstract cancelQueuedForWebsite(websiteId: number, reason: string, now: Date): Promise<void>;
  /** Unfinished jobs (queued, or running on a worker that died) to hand to the transport again after a restart. */
  abstract findUnfinished(createdBefore: Date, limit: number): Promise<JobProps[]>;
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

export abstract class ScreenshotRepository {
  /**
   * Inserts the screenshot row and lets `placeFile(id)` move the PNG into place (returning its key) in one
   * transaction, so row and file exist together or not at all; for a capture job (`shot.jobId`) the same
   * transaction marks the job succeeded. Throws DuplicateScreenshotError when the job already has its screenshot.
   */
  abstract insertWithFile(shot: CapturedScreenshot, placeFile: (id: number) => string, finishedAt: Date): Promise<ScreenshotProps>;
  abstract listForExecution(executionId: string): Promise<ScreenshotProps[]>;
  abstract findOwned(accountId: number, id: number): Promise<ScreenshotProps | null>;
  abstract findOwnedMany(accountId: number, ids: number[]): Promise<ScreenshotProps[]>;
  abstract findByJob(jobId: string): Promise<ScreenshotProps | null>;
  abstract list(accountId: number, page: PageRequest, filter: ScreenshotFilter): Promise<{ items: ScreenshotProps[]; total: number }>;
  abstract listForWebsite(websiteId: number): Promise<ScreenshotProps[]>;
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
}

/** Makes a screenshot's thumbnail (domain/thumbnail.ts: THUMBNAIL) from its PNG. */
export abstract class ThumbnailRenderer {
  abstract render(png: Buffer): Promise<Buffer>;
}
