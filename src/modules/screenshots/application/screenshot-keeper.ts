import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { UnavailableError } from '../../../shared/domain/domain-error';
import { errorMessage } from '../../../shared/domain/error-message';
import { isImageFormat } from '../../../shared/domain/output-format';
import { CaptureResult } from './capture.port';
import { companionKeys, ScreenshotProps, screenshotKey, textKey, thumbnailKey } from '../domain/screenshot';
import { normalizeVisibleText, textHash } from '../domain/text-change';
import { CapturedScreenshot, ScreenshotRepository, ScreenshotStorage, ThumbnailRenderer } from './ports';

/** Files deleted at once by removeMany (local unlinks or S3 DELETEs). */
const FILE_DELETES_AT_ONCE = 8;

/** SHA-256 of the file, for the change history's shortcut (about 0.3 ms for a 100 kB PNG). */
function contentHash(data: Buffer): string {
  return createHash('sha256').update(data).digest('base64url');
}

/**
 * The screenshot id, so the storage key, of one rendered file, reserved by its first store(): passed again to each
 * store() of the same bytes (a capture's retries through a storage outage), every try writes the same key, so an
 * upload that timed out but lands later only rewrites those bytes, never leaves an orphan beside the capture
 * (issue 43: 8 orphans after a 60 s freeze). Never shared between different bytes (another attempt's capture): a
 * late upload of the one would replace the file of the other under a row that describes the other.
 */
export interface StorageReservation {
  id?: number;
}

export type ScreenshotOwner = Pick<CapturedScreenshot, 'accountId' | 'websiteId' | 'jobId' | 'scenarioId' | 'executionId' | 'fullPage' | 'compareKey'>;

/**
 * A screenshot's files and row kept together: the PNG is stored with the row, its thumbnail made on first
 * request, and both removed with it. Used by capture jobs, scenario runs, the API and the dashboard.
 */
@Injectable()
export class ScreenshotKeeper {
  private readonly logger = new Logger('ScreenshotKeeper');
  /** Thumbnails being made on demand in this process, so simultaneous first requests render once. */
  private readonly making = new Map<number, Promise<Buffer | null>>();

  constructor(
    private readonly storage: ScreenshotStorage,
    private readonly screenshots: ScreenshotRepository,
    private readonly thumbnails: ThumbnailRenderer,
  ) {}

  /**
   * Stores one rendered file: its id is reserved first, the file (and a PDF's thumbnail) written under its final
   * key, then the row inserted in the transaction that (for a capture job) marks the job succeeded. If that
   * transaction fails the files are removed, so a row never lacks its file; a process killed between the two
   * leaves a file without a row, never the reverse.
   *
   * No thumbnail is made here for images: rendering one costs about as much CPU as a tenth of a whole capture
   * (figures: docs/benchmark.md), and most screenshots taken
   * through the API are never shown as a thumbnail. It is made on its first request instead (thumbnail()). A
   * PDF's is made here, from the capture's preview of the first viewport: nothing can make it later.
   */
  async store(owner: ScreenshotOwner, result: CaptureResult, now: Date, reservation: StorageReservation = {}): Promise<ScreenshotProps> {
    const previewThumbnail = result.preview ? await this.renderPreviewThumbnail(result.preview) : null;
    reservation.id ??= await this.screenshots.reserveId();
    const id = reservation.id;
    const key = screenshotKey(owner.accountId, owner.websiteId, id, result.format);
    const written: string[] = [];
    try {
      await this.storage.put(key, result.data);
      written.push(key);
      if (previewThumbnail) {
        await this.storage.put(thumbnailKey(key), previewThumbnail);
        written.push(thumbnailKey(key));
      }
      // The page's visible text (text changes), an object beside the image: list endpoints never read it.
      const text = result.text === undefined ? null : normalizeVisibleText(result.text);
      if (text !== null) {
        await this.storage.put(textKey(key), Buffer.from(text, 'utf8'));
        written.push(textKey(key));
      }
      return await this.screenshots.insert(
        {
          ...owner,
          format: result.format,
          fileSize: result.data.length,
          width: result.width,
          height: result.height,
          takenAt: now,
          ignoreBoxes: result.ignoreBoxes ?? [],
          capture: result.report ?? null,
          contentHash: owner.compareKey ? contentHash(result.data) : null,
          textHash: text === null ? null : textHash(text),
        },
        id,
        key,
        now,
      );
    } catch (err) {
      // Nothing was committed (insert's contract): no file may outlive the failed insert. A try that failed before
      // its insert leaves the reservation to the next try, which writes the same keys again.
      for (const file of written) {
        await this.storage.delete(file).catch((cleanup: unknown) => this.logger.error(`orphaned file ${file} (remove it): ${errorMessage(cleanup)}`));
      }
      throw err;
    }
  }

  /**
   * The screenshot's thumbnail; made from its PNG and stored beside it on the first request (see store()).
   * Null when the PNG itself is missing.
   */
  async thumbnail(shot: ScreenshotProps): Promise<Buffer | null> {
    const stored = await this.storage.read(thumbnailKey(shot.filePath));
    if (stored) return stored;
    let making = this.making.get(shot.id);
    if (!making) {
      making = this.makeThumbnail(shot).finally(() => this.making.delete(shot.id));
      this.making.set(shot.id, making);
    }
    return making;
  }

  /**
   * remove() for a batch (retention): the rows in one statement, then the files, FILE_DELETES_AT_ONCE at a time so a
   * batch neither waits on each object in turn nor floods the storage. Returns how many rows this call deleted.
   */
  async removeMany(shots: ScreenshotProps[]): Promise<number> {
    const deleted = await this.screenshots.deleteMany(shots.map((s) => s.id));
    const keys = shots.flatMap((shot) => [shot.filePath, ...companionKeys(shot.filePath)].map((key) => ({ key, id: shot.id })));
    let next = 0;
    const worker = async () => {
      while (next < keys.length) {
        const { key, id } = keys[next++];
        await this.storage.delete(key).catch((err: unknown) => this.logger.error(`orphaned file ${key} of deleted screenshot ${id}: ${errorMessage(err)}`));
      }
    };
    await Promise.all(Array.from({ length: Math.min(FILE_DELETES_AT_ONCE, keys.length) }, worker));
    return deleted;
  }

  /** Deletes the row, then the files (in that order: makeThumbnail relies on it). */
  async remove(shot: ScreenshotProps): Promise<void> {
    await this.screenshots.delete(shot.id);
    // The row is gone, so the delete has happened for the client: a file that cannot be removed now (storage
    // unreachable) is an orphan to log, never a reason to answer an error for a delete that took effect.
    for (const key of [shot.filePath, ...companionKeys(shot.filePath)]) {
      await this.storage.delete(key).catch((err: unknown) => this.logger.error(`orphaned file ${key} of deleted screenshot ${shot.id}: ${errorMessage(err)}`));
    }
  }

  /** A thumbnail that cannot be made is logged and left out: it never fails the capture (it then answers 404). */
  private async renderPreviewThumbnail(preview: Buffer): Promise<Buffer | null> {
    try {
      return await this.thumbnails.render(preview);
    } catch (err) {
      this.logger.warn(`making a PDF's thumbnail failed, it will have none: ${errorMessage(err)}`);
      return null;
    }
  }

  private async makeThumbnail(shot: ScreenshotProps): Promise<Buffer | null> {
    // A PDF's (or page content's) thumbnail is made when it is stored (store()), from its preview.
    if (!isImageFormat(shot.format)) return null;
    const png = await this.storage.read(shot.filePath);
    if (!png) return null;
    // A render that fails (libvips out of memory) is ours, not the client's: 503, and the next request tries again.
    const bytes = await this.thumbnails.render(png).catch((err: unknown) => {
      this.logger.warn(`screenshot ${shot.id}: making its thumbnail failed: ${errorMessage(err)}`);
      throw new UnavailableError('The thumbnail could not be made; try again');
    });
    const key = thumbnailKey(shot.filePath);
    // put() is all or nothing: another process making the same thumbnail at the same time replaces it with
    // identical bytes, and no reader ever sees a partly written file.
    await this.storage.put(key, bytes);
    // A delete that ran meanwhile has already removed the screenshot's files; this one must not outlive it.
    // (remove() deletes the row before the files, so either this check sees the row gone or that delete
    // comes after the put above.)
    if (!(await this.screenshots.findOwned(shot.accountId, shot.id))) await this.storage.delete(key);
    return bytes;
  }
}
