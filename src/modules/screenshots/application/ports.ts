import type { OutputFormat } from '../../../shared/domain/output-format';
import type { Readable } from 'node:stream';
import { Page, PageRequest } from '../../../shared/domain/page-request';
import { ScreenshotProps } from '../domain/screenshot';
import type { Box } from '../domain/change';
import { UnavailableError } from '../../../shared/domain/domain-error';
import type { CaptureReport } from '../domain/capture-report';
import type { TextDiffCounts } from '../domain/text-change';

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
  fullPage?: boolean;
  /** compareKey() of its settings, for captures that are compared with the previous one; else absent. */
  compareKey?: string | null;
  /** Digest of the file's bytes: equal to the previous comparable capture's, the comparison is known at once (ratio 0). */
  contentHash?: string | null;
  ignoreBoxes?: Box[];
  /** The capture report (capture jobs); absent for scenario step shots. */
  capture?: CaptureReport | null;
  /** textHash() of the visible text stored beside the image (textKey); absent when none was kept. */
  textHash?: string | null;
}

/** A comparison's outcome, written on the newer screenshot. */
export interface ComparisonOutcome {
  previousId: number;
  changedRatio: number;
  changed: boolean;
  comparedAt: Date;
  /** Lines added/removed in the visible text; null when either capture kept none. */
  textDiff: TextDiffCounts | null;
}

export class DuplicateScreenshotError extends Error {}

export abstract class ScreenshotRepository {
  /**
   * A new screenshot id, taken from the table's own sequence before anything is stored, so the file can be
   * written under its final key (`screenshots/<account>/<website>/<id>.<ext>`) before the row commits. An id
   * reserved and never inserted is simply skipped.
   */
  abstract reserveId(): Promise<number>;
  /**
   * Inserts the row under a reserved id in one transaction which, for a capture job (`shot.jobId`), also marks
   * the job succeeded. Throws DuplicateScreenshotError when the job already has its screenshot, and
   * SupersededAttemptError when the attempt storing it (JobAttemptScope) no longer holds the job or execution.
   * Throws only when nothing was committed: the caller then removes the file it wrote.
   */
  abstract insert(shot: CapturedScreenshot, id: number, filePath: string, finishedAt: Date): Promise<ScreenshotProps>;
  abstract listForExecution(executionId: string): Promise<ScreenshotProps[]>;
  abstract findOwned(accountId: number, id: number): Promise<ScreenshotProps | null>;
  abstract findOwnedMany(accountId: number, ids: number[]): Promise<ScreenshotProps[]>;
  abstract findByJob(jobId: string): Promise<ScreenshotProps | null>;
  abstract list(accountId: number, page: PageRequest, filter: ScreenshotFilter): Promise<Page<ScreenshotProps>>;
  abstract delete(id: number): Promise<void>;
  /** Deletes these rows in one statement (the list-counts triggers still run per row); returns how many were there. */
  abstract deleteMany(ids: number[]): Promise<number>;
  /** Which of these ids have a row (the orphan sweep). */
  abstract existingIds(ids: number[]): Promise<Set<number>>;
  /** The oldest screenshots taken before `cutoff` (retention), at most `limit`. */
  abstract takenBefore(cutoff: Date, limit: number): Promise<ScreenshotProps[]>;

  // Change history (domain/change.ts).
  abstract findById(id: number): Promise<ScreenshotProps | null>;
  /** The newest existing capture of the same website with the same compare key and a lower id. */
  abstract previousComparable(shot: ScreenshotProps): Promise<ScreenshotProps | null>;
  /** Ids of comparisons still pending and not held by a live claim, oldest first. */
  abstract pendingComparisons(now: Date, limit: number): Promise<number[]>;
  /** Takes a pending comparison until `until` (compare-and-set): false when another worker holds or did it. */
  abstract claimComparison(id: number, now: Date, until: Date): Promise<boolean>;
  /** Writes the outcome while the comparison is still pending; false when it was done already. */
  abstract recordComparison(id: number, outcome: ComparisonOutcome): Promise<boolean>;
  /** No comparable capture is left to compare with (all deleted): the screenshot's change becomes null. */
  abstract dropComparison(id: number): Promise<void>;
  /** The website's captures whose comparison found a change, newest first. */
  abstract listChanges(accountId: number, websiteId: number, page: PageRequest): Promise<Page<ScreenshotProps>>;
}

/**
 * Where screenshot files live (STORAGE_DRIVER: local disk, or an S3-compatible bucket). Keys are relative
 * (`screenshots/1/2/3.png`); no server path or bucket name ever leaves the adapter. Every adapter keeps the same
 * promises, checked by one contract suite (test/storage-contract.ts) against each of them.
 */
/**
 * The storage could not be reached, or did not answer within its bound (an object store's outage, maybe
 * passing): 503 `unavailable` for a request, and a capture keeps its file and stores it again (CaptureJobRunner).
 */
export class StorageUnavailableError extends UnavailableError {
  constructor() {
    super('Screenshot storage is unavailable; try again');
  }
}

export abstract class ScreenshotStorage {
  /** Stores the bytes under the key, whole or not at all: a reader never sees part of a file. Replaces any earlier one. */
  abstract put(key: string, data: Buffer): Promise<void>;
  /** The file as a stream (memory independent of its size); a missing file is an error on the stream (`isMissing`). */
  abstract open(key: string): Readable;
  /**
   * Whether an error of `open`'s stream says there is no file under its key, rather than that the store failed: a
   * reader can then answer 404 from the stream itself, without asking `exists` first (one lookup less per download).
   */
  abstract isMissing(err: unknown): boolean;
  /** The whole file, or null when there is none under this key (for small files: thumbnails). */
  abstract read(key: string): Promise<Buffer | null>;
  abstract exists(key: string): Promise<boolean>;
  /** Removes the file; a missing one is not an error. */
  abstract delete(key: string): Promise<void>;
  /** Removes every file under a folder key (`websiteArea()`). */
  abstract deleteArea(area: string): Promise<void>;
  /**
   * Every stored file's key last written before `before`, a page at a time (the orphan sweep). Reads the whole
   * area: O(files), which is why the sweep runs once a day.
   */
  abstract listOlderThan(before: Date): AsyncIterable<string[]>;
}

/** What a comparison of two images found: changed pixels within the overlap (masks never count as changed). */
export interface PixelComparison {
  changedInOverlap: number;
  newer: { width: number; height: number };
  older: { width: number; height: number };
}

/**
 * Compares two stored images (any image formats) pixel by pixel, anti-aliasing tolerant, with the boxes of
 * `masks` (in the newer image's pixels, and the older's) left out of the comparison.
 */
export abstract class ImageDiffer {
  abstract compare(newer: Buffer, older: Buffer, masks: { newer: Box[]; older: Box[] }): Promise<PixelComparison>;
  /** A PNG the size of the newer image: unchanged pixels dimmed, changed ones highlighted, masks tinted. */
  abstract diffImage(newer: Buffer, older: Buffer, masks: { newer: Box[]; older: Box[] }): Promise<Buffer>;
}

/**
 * Compares two kept texts line by line (domain/text-change.ts says what the text is). A port like ImageDiffer:
 * the diffing library stays in infrastructure.
 */
export abstract class TextDiffer {
  abstract count(older: string, newer: string): TextDiffCounts;
  /** A unified diff (`--- #older` / `+++ #newer`, `@@` hunks with 3 lines of context); empty hunks when equal. */
  abstract unified(older: string, newer: string, labels: { older: string; newer: string }): string;
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
