import { FORMAT_FILES, OutputFormat } from '../../../shared/domain/output-format';
import type { Box, ChangeRecord } from './change';
import type { CaptureReport } from './capture-report';

export interface ScreenshotProps {
  id: number;
  accountId: number;
  websiteId: number;
  jobId: string | null;
  scenarioId: number | null;
  executionId: string | null;
  /** Storage key relative to the storage root, e.g. `screenshots/1/2/3.png` (never a server path). */
  filePath: string;
  format: OutputFormat;
  /** Bytes. */
  fileSize: number;
  width: number;
  height: number;
  status: 'success';
  takenAt: Date;
  /** Taken as a full page (false for rows from before this was recorded). */
  fullPage: boolean;
  /** compareKey() of its settings; null when it is never compared (scenario shots, PDFs). */
  compareKey: string | null;
  /** Where the website's change_ignore_selectors were when it was taken, in the image's pixels. */
  ignoreBoxes: Box[];
  /** The comparison with the previous comparable capture; null when there was none to compare with. */
  change: ChangeRecord | null;
  /** The capture report; null for scenario step shots and rows from before it was recorded. */
  capture: CaptureReport | null;
  /**
   * Digest of the visible text kept beside the image (textKey); null when none was kept (PDFs, scenario step
   * shots, rows from before text changes).
   */
  textHash: string | null;
}

/** The folder of all of a website's files (PNGs and thumbnails): `screenshots/<account>/<website>/`. */
export function websiteArea(accountId: number, websiteId: number): string {
  return `screenshots/${accountId}/${websiteId}/`;
}

/** The storage key of a screenshot's file (API.md: `screenshots/<account>/<website>/<id>.<extension of its format>`). */
export function screenshotKey(accountId: number, websiteId: number, id: number, format: OutputFormat): string {
  return `${websiteArea(accountId, websiteId)}${id}.${FORMAT_FILES[format].extension}`;
}

const FILE_EXTENSION = new RegExp(
  `\\.(${Object.values(FORMAT_FILES)
    .map((f) => f.extension)
    .join('|')})$`,
);

/**
 * The storage key of a screenshot's thumbnail, derived from its file's key so it sits beside it
 * (`screenshots/<account>/<website>/<id>.thumb.webp`) and needs no column of its own.
 */
export function thumbnailKey(screenshotKey: string): string {
  return `${screenshotKey.replace(FILE_EXTENSION, '')}.thumb.webp`;
}

/** The stored diff with the previous capture (`<id>.diff.png`), made on its first request and kept beside the image. */
export function diffKey(screenshotKey: string): string {
  return `${screenshotKey.replace(FILE_EXTENSION, '')}.diff.png`;
}

/** The page's visible text kept with an image capture (`<id>.text.txt`), beside it so it goes with it. */
export function textKey(screenshotKey: string): string {
  return `${screenshotKey.replace(FILE_EXTENSION, '')}.text.txt`;
}

/** The unified diff of that text with the previous capture's (`<id>.text.diff`), made when the text changed. */
export function textDiffKey(screenshotKey: string): string {
  return `${screenshotKey.replace(FILE_EXTENSION, '')}.text.diff`;
}

/** Every file a screenshot may have besides its own (thumbnail, diff, text, text diff): removed with it. */
export function companionKeys(screenshotKey: string): string[] {
  return [thumbnailKey(screenshotKey), diffKey(screenshotKey), textKey(screenshotKey), textDiffKey(screenshotKey)];
}

/** The screenshot id a stored file belongs to (its image or its thumbnail), or null for a key of no screenshot. */
export function screenshotIdOfKey(key: string): number | null {
  const match = /^screenshots\/\d+\/\d+\/(\d+)\.[a-z.]+$/.exec(key);
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** A name safe in a Content-Disposition header and a ZIP entry on every OS. */
export function safeFileStem(name: string): string {
  const stem = name
    .normalize('NFKD')
    .replace(/[^\w.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 80);
  return stem || 'website';
}

export function downloadFileName(websiteName: string, id: number, format: OutputFormat): string {
  return `${safeFileStem(websiteName)}-${id}.${FORMAT_FILES[format].extension}`;
}

export function zipEntryName(websiteName: string, id: number, format: OutputFormat): string {
  return `${id}-${safeFileStem(websiteName)}.${FORMAT_FILES[format].extension}`;
}

export const BULK_DOWNLOAD_MAX_IDS = 100;
