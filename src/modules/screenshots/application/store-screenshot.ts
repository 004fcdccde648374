import { CaptureResult } from '../../../adapters/capture/capture.port';
import { ScreenshotProps, screenshotKey } from '../domain/screenshot';
import { CapturedScreenshot, ScreenshotRepository, ScreenshotStorage } from './ports';

/**
 * Stores one rendered PNG: staged under a temporary name, then renamed to its key inside the transaction
 * that inserts the row (and, for a capture job, marks it succeeded). On any failure the file is removed
 * wherever it got to, so a row never lacks its file and no file is orphaned.
 */
export async function storeScreenshot(
  storage: ScreenshotStorage,
  screenshots: ScreenshotRepository,
  owner: Pick<CapturedScreenshot, 'accountId' | 'websiteId' | 'jobId' | 'scenarioId' | 'executionId'>,
  result: CaptureResult,
  now: Date,
): Promise<ScreenshotProps> {
  const staged = await storage.stage(result.png);
  let placedKey: string | null = null;
  try {
    return await screenshots.insertWithFile(
      { ...owner, fileSize: result.png.length, width: result.width, height: result.height, takenAt: now },
      (id) => {
        const key = screenshotKey(owner.accountId, owner.websiteId, id);
        storage.placeSync(staged, key);
        placedKey = key;
        return key;
      },
      now,
    );
  } catch (err) {
    if (placedKey) await storage.delete(placedKey);
    else await storage.discard(staged);
    throw err;
  }
}
