import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { errorMessage } from '../../../shared/domain/error-message';
import { PeriodicTask } from '../../../shared/scheduling/periodic-task';
import { ScreenshotStorage } from '../../screenshots/application/ports';
import { objectKeyOf, renderContentsKey } from '../domain/render';
import { RenderRepository } from './ports';

/** Entries expire by the second (cache_ttl), so the sweep runs every minute. */
const SWEEP_EVERY_MS = 60_000;
const BATCH = 100;
/**
 * How long past its keepUntil an entry is still left alone: a hit decided, or a signed link verified, in the last
 * moment of an entry's life opens its object a few ms later — it must still be there to stream.
 */
export const SWEEP_GRACE_MS = 60_000;

/**
 * The only place a render's row and object end (domain/render.ts: retiring never does).
 * Render cache entries past their keepUntil (and SWEEP_GRACE_MS) are deleted — object (local disk or S3), then row — by every worker
 * process once a minute, in the pattern of the retention sweep: each step idempotent, so sweepers on several
 * instances meeting on one entry all succeed. Each entry read as expired is first claimed (claimForSweep): one
 * made ready or kept longer since the read (a late attempt of its job, a json answer) is left alone, and a claimed
 * one can no longer be. The object goes first: a row left by a failed delete is found again, an object without its
 * row would never be.
 */
@Injectable()
export class RenderSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RenderSweeper');
  private readonly task = new PeriodicTask<number>((err) => this.logger.error(`render cache sweep failed, retried in a minute: ${errorMessage(err)}`));

  constructor(
    private readonly renders: RenderRepository,
    private readonly storage: ScreenshotStorage,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    this.task.start(SWEEP_EVERY_MS, SWEEP_EVERY_MS, () => this.sweep());
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Deletes every entry kept past its time; returns how many. */
  sweep(): Promise<number> {
    return this.task.exclusive(() => this.removeExpired());
  }

  private async removeExpired(): Promise<number> {
    let removed = 0;
    for (;;) {
      const cutoff = new Date(this.clock.now().getTime() - SWEEP_GRACE_MS);
      const expired = await this.renders.keptUntilBefore(cutoff, BATCH);
      for (const render of expired) {
        // Made ready or kept longer since the read (or deleted by another sweeper): not this sweep's.
        if (!(await this.renders.claimForSweep(render.id, cutoff))) continue;
        // Every status: a pending row's job may have written its object before it died (objectKeyOf).
        await this.storage.delete(objectKeyOf(render));
        await this.storage.delete(renderContentsKey(objectKeyOf(render))); // `formats`' content, when there was any
        await this.renders.delete(render.id);
        removed += 1;
      }
      if (expired.length < BATCH) break;
    }
    if (removed > 0) this.logger.log(`render cache: removed ${removed} expired entr${removed === 1 ? 'y' : 'ies'}`);
    return removed;
  }
}
