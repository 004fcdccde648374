import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { errorMessage } from '../../../shared/domain/error-message';
import { PeriodicTask } from '../../../shared/scheduling/periodic-task';
import { screenshotIdOfKey } from '../domain/screenshot';
import { ScreenshotRepository, ScreenshotStorage } from './ports';

/**
 * A file is written before its row commits, so one may be left with no row: a process killed between the two, or a
 * delete whose file removal failed (both logged as orphans). Once a day every worker lists the stored files older
 * than an hour and removes those whose screenshot id has no row. An hour: a file written for a row about to commit
 * is seconds old, never an hour. Safe on several instances at once (removals are idempotent). The listing reads
 * every stored key, O(files) requests on S3 (1 per 1,000), hence daily.
 */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;
const SWEEP_EVERY_MS = 24 * 60 * 60 * 1000;

@Injectable()
export class OrphanSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('OrphanSweeper');
  private readonly task = new PeriodicTask<number>((err) => this.logger.error(`orphan sweep failed, retried tomorrow: ${errorMessage(err)}`));

  constructor(
    private readonly storage: ScreenshotStorage,
    private readonly screenshots: ScreenshotRepository,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    // File ages are the storage's clock (file times, S3's LastModified), so this compares with real time.
    this.task.start(10 * 60_000, SWEEP_EVERY_MS, () => this.sweep(new Date(Date.now() - ORPHAN_MIN_AGE_MS)));
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Removes files written before `before` whose screenshot has no row; returns how many. */
  sweep(before: Date): Promise<number> {
    return this.task.exclusive(() => this.removeOrphans(before));
  }

  private async removeOrphans(before: Date): Promise<number> {
    let removed = 0;
    for await (const keys of this.storage.listOlderThan(before)) {
      const ids = [...new Set(keys.map(screenshotIdOfKey).filter((id): id is number => id !== null))];
      const existing = await this.screenshots.existingIds(ids);
      for (const key of keys) {
        const id = screenshotIdOfKey(key);
        if (id === null || existing.has(id)) continue;
        await this.storage.delete(key);
        removed += 1;
      }
    }
    if (removed > 0) this.logger.warn(`removed ${removed} orphaned file(s) (no screenshot row)`);
    return removed;
  }
}
