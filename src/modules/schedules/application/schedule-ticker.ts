import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { AccountRepository } from '../../accounts/application/ports';
import { CaptureJobsService } from '../../screenshots/application/capture-jobs.service';
import { WebsiteRepository } from '../../websites/application/ports';
import { isCapturedBySchedules } from '../../websites/domain/website';
import { advanceAfterFiring, ScheduleProps } from '../domain/schedule';
import { ScheduleRepository } from './ports';

const TICKER = 'schedule-ticker';
const BATCH = 200;

/**
 * Fires due schedules, exactly once per occurrence across every instance that ticks: each occurrence is
 * claimed with one conditional UPDATE (next_run_at: due → next) and only the winner queues the capture.
 * After downtime a schedule fires once for everything it missed, then continues on its rhythm. A schedule
 * whose website is paused, or whose account has lost API access, lets its occurrences pass unfired (and
 * keeps its last_run_at). An occurrence whose capture cannot be queued (queue down) is given back and retried.
 */
@Injectable()
export class ScheduleTicker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ScheduleTicker');
  private running: Promise<number> | null = null;

  constructor(
    private readonly schedules: ScheduleRepository,
    private readonly websites: WebsiteRepository,
    private readonly accounts: AccountRepository,
    private readonly captureJobs: CaptureJobsService,
    private readonly registry: SchedulerRegistry,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    const interval = setInterval(() => void this.tick().catch((err: Error) => this.logger.error(`tick failed: ${err.message}`)), this.config.scheduleTickMs);
    this.registry.addInterval(TICKER, interval);
  }

  onModuleDestroy(): void {
    if (this.registry.doesExist('interval', TICKER)) this.registry.deleteInterval(TICKER);
  }

  /** One pass over the due schedules; returns how many captures it queued. Overlapping calls share a pass. */
  tick(): Promise<number> {
    this.running ??= this.fireDue().finally(() => (this.running = null));
    return this.running;
  }

  private async fireDue(): Promise<number> {
    const now = this.clock.now();
    let queued = 0;
    for (const schedule of await this.schedules.findDue(now, BATCH)) {
      if (await this.fire(schedule, now)) queued += 1;
    }
    return queued;
  }

  private async fire(schedule: ScheduleProps, now: Date): Promise<boolean> {
    const due = schedule.nextRunAt as Date;
    const next = advanceAfterFiring(schedule, now).nextRunAt as Date;
    if (!(await this.schedules.claim(schedule.id, due, next, now))) return false; // another instance fired it
    if (!(await this.mayFire(schedule, now))) return false;
    try {
      // The key makes the job itself idempotent per occurrence, whatever happens around it.
      const job = await this.captureJobs.requestCapture(schedule.accountId, schedule.websiteId, {}, `schedule:${schedule.id}:${due.toISOString()}`, 'schedule', schedule.id);
      await this.schedules.recordRun(schedule.id, job.id, now);
      return true;
    } catch (err) {
      // Give the occurrence back: the next tick retries it, and the idempotency key keeps it to one job.
      this.logger.error(`schedule ${schedule.id}: could not queue its capture, will retry: ${err instanceof Error ? err.message : String(err)}`);
      await this.schedules.release(schedule.id, due, next).catch(() => undefined);
      return false;
    }
  }

  private async mayFire(schedule: ScheduleProps, now: Date): Promise<boolean> {
    const website = await this.websites.findById(schedule.websiteId);
    if (!website || !isCapturedBySchedules(website)) return false;
    const account = await this.accounts.findById(schedule.accountId);
    return account !== null && account.hasApiAccess(now);
  }
}
