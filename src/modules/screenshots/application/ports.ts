import type { OutputFormat } from '../../../shared/domain/output-format';
import type { Readable } from 'node:stream';
import { PageRequest } from '../../../shared/domain/page-request';
import { ScreenshotProps } from '../domain/screenshot';

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
  format: OutputFormat;
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
