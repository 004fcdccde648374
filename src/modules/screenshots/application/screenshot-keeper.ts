import { Injectable, Logger } from '@nestjs/common';
import { CaptureResult } from '../../../adapters/capture/capture.port';
import { ScreenshotProps, screenshotKey, thumbnailKey } from '../domain/screenshot';
import { CapturedScreenshot, ScreenshotRepository, ScreenshotStorage, StagedFile, ThumbnailRenderer } from './ports';
import { errorMessage } from '../../../shared/domain/error-message';

export type ScreenshotOwner = Pick<CapturedScreenshot, 'accountId' | 'websiteId' | 'jobId' | 'scenarioId' | 'executionId'>;

/**
 * A screenshot's files and row kept together: the PNG and its thumbnail are stored with the row, made on
 * demand when missing, and removed with it. Used by capture jobs, scenario runs, the API and the dashboard.
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
   * Stores one rendered PNG and its thumbnail: both staged under temporary names, then renamed to their keys
   * inside the transaction that inserts the row (and, for a capture job, marks it succeeded). If that
   * transaction fails every file is removed wherever it got to, so a row never lacks its PNG and no file is
   * orphaned. Once it has committed nothing removes the files any more: what follows only tidies up and
   * never fails the store. A thumbnail that cannot be made or placed is logged and left out — it never fails
   * the capture; it is made on its first request instead.
   */
  async store(owner: ScreenshotOwner, result: CaptureResult, now: Date): Promise<ScreenshotProps> {
    const rendering = this.renderForStore(result.png);
    const staged = await this.storage.stage(result.png);
    const stagedThumbnail = await this.stageThumbnail(await rendering);
    const placed: string[] = [];
    let thumbnailPlaced = false;
    let shot: ScreenshotProps;
    try {
      shot = await this.screenshots.insertWithFile(
        { ...owner, fileSize: result.png.length, width: result.width, height: result.height, takenAt: now },
        (id) => {
          const key = screenshotKey(owner.accountId, owner.websiteId, id);
          this.storage.placeSync(staged, key);
          placed.push(key);
          if (stagedThumbnail) {
            try {
              this.storage.placeSync(stagedThumbnail, thumbnailKey(key));
              placed.push(thumbnailKey(key));
              thumbnailPlaced = true;
            } catch (err) {
              this.logger.warn(`screenshot ${id}: placing the thumbnail failed, it will be made on first request: ${errorMessage(err)}`);
            }
          }
          return key;
        },
        now,
      );
    } catch (err) {
      // Nothing was committed (insertWithFile's contract): no file may outlive the failed insert.
      for (const key of placed) await this.storage.delete(key);
      if (placed.length === 0) await this.storage.discard(staged);
      if (stagedThumbnail && !thumbnailPlaced) await this.storage.discard(stagedThumbnail);
      throw err;
    }
    // Committed: the row and its files exist. A leftover staged thumbnail is only tidied up.
    if (stagedThumbnail && !thumbnailPlaced) {
      await this.storage
        .discard(stagedThumbnail)
        .catch((err: unknown) => this.logger.warn(`screenshot ${shot.id}: discarding a staged thumbnail failed: ${errorMessage(err)}`));
    }
    return shot;
  }

  /**
   * The screenshot's thumbnail; made from its PNG and stored when it has none yet (rows from before
   * thumbnails, or a thumbnail that failed at capture time). Null when the PNG itself is missing.
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

  /** Deletes the row, then the files (in that order: makeThumbnail relies on it). */
  async remove(shot: ScreenshotProps): Promise<void> {
    await this.screenshots.delete(shot.id);
    await this.storage.delete(shot.filePath);
    await this.storage.delete(thumbnailKey(shot.filePath));
  }

  private async renderForStore(png: Buffer): Promise<Buffer | null> {
    try {
      return await this.thumbnails.render(png);
    } catch (err) {
      this.logger.warn(`rendering a thumbnail failed, it will be made on first request: ${errorMessage(err)}`);
      return null;
    }
  }

  private async stageThumbnail(bytes: Buffer | null): Promise<StagedFile | null> {
    if (!bytes) return null;
    try {
      return await this.storage.stage(bytes);
    } catch (err) {
      this.logger.warn(`staging a thumbnail failed, it will be made on first request: ${errorMessage(err)}`);
      return null;
    }
  }

  private async makeThumbnail(shot: ScreenshotProps): Promise<Buffer | null> {
    const png = await this.storage.read(shot.filePath);
    if (!png) return null;
    const bytes = await this.thumbnails.render(png);
    const key = thumbnailKey(shot.filePath);
    // Staged and renamed: another process making the same thumbnail at the same time replaces it atomically
    // with identical bytes, and no reader ever sees a partly written file.
    const staged = await this.storage.stage(bytes);
    try {
      this.storage.placeSync(staged, key);
    } catch (err) {
      await this.storage.discard(staged);
      throw err;
    }
    // A delete that ran meanwhile has already removed the screenshot's files; this one must not outlive it.
    // (remove() deletes the row before the files, so either this check sees the row gone or that delete
    // comes after the rename above.)
    if (!(await this.screenshots.findOwned(shot.accountId, shot.id))) await this.storage.delete(key);
    return bytes;
  }
}
