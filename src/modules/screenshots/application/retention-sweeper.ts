import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { errorMessage } from '../../../shared/domain/error-message';
import { PeriodicTask } from '../../../shared/scheduling/periodic-task';
import { ScreenshotRepository } from './ports';
import { ScreenshotKeeper } from './screenshot-keeper';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How often each worker sweeps: retention is counted in days, so once an hour is plenty. */
const SWEEP_EVERY_MS = 60 * 60 * 1000;
/**
 * Rows per batch: one DELETE statement each (with the list-counts triggers, a few ms on SQLite, whose writes block
 * the event loop), then the batch's files; the sweep yields to the event loop between batches so requests keep being
 * answered during a sweep of 500,000 (docs/benchmark.md, "Retention at scale").
 */
const BATCH = 200;

/**
 * RETENTION_DAYS: screenshots taken longer ago than that are deleted — row, file or object, thumbnail — by every
 * worker process once an hour (and shortly after it starts). Safe on any number of instances at once: each
 * removal deletes the row, then the files, and every step of it is idempotent, so two sweepers meeting on one
 * screenshot both succeed and nothing is left half-deleted.
 */
@Injectable()
export class RetentionSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RetentionSweeper');
  private readonly task = new PeriodicTask<number>((err) => this.logger.error(`retention sweep failed, retried in an hour: ${errorMessage(err)}`));

  constructor(
    private readonly screenshots: ScreenshotRepository,
    private readonly keeper: ScreenshotKeeper,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.retentionDays === null || this.config.role === 'api') return;
    this.task.start(30_000, SWEEP_EVERY_MS, () => this.sweep());
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Deletes every screenshot older than the retention; returns how many this call removed. */
  sweep(): Promise<number> {
    const days = this.config.retentionDays;
    return days === null ? Promise.resolve(0) : this.task.exclusive(() => this.removeExpired(days));
  }

  private async removeExpired(days: number): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - days * DAY_MS);
    let removed = 0;
    for (;;) {
      const expired = await this.screenshots.takenBefore(cutoff, BATCH);
      removed += await this.keeper.removeMany(expired);
      if (expired.length < BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (removed > 0) this.logger.log(`retention: removed ${removed} screenshot(s) taken before ${cutoff.toISOString()}`);
    return removed;
  }
}
