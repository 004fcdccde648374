import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { ConflictError } from '../../../shared/domain/domain-error';
import { AccountRepository } from '../../accounts/application/ports';
import { JobProps } from '../../jobs/domain/job';
import { WebsiteRepository } from '../../websites/application/ports';
import { Website } from '../../websites/domain/website';
import { Schedule } from '../domain/schedule';
import { ScheduleRepository } from './ports';
import { ScheduleRuns } from './schedule-runs';
import { errorMessage } from '../../../shared/domain/error-message';

const TICKER = 'schedule-ticker';
const BATCH = 200;

/**
 * Fires due schedules, exactly once per occurrence across every instance that ticks and across restarts.
 * For each due occurrence its job (a capture of the website, or a run of the schedule's scenario: ScheduleRuns)
 * is requested first, under the idempotency key
 * `schedule:<id>:<due ISO>`, and only then is the occurrence claimed with one conditional UPDATE
 * (next_run_at: due → next, recording the job). So an occurrence is never given up before its job exists:
 * if anything fails or the process dies in between, the schedule is still due and the next tick (here or on
 * another instance) asks again with the same key and gets the same single job. Instances racing for one
 * occurrence likewise share its one job; the claim only decides who records it and advances the schedule.
 * (A job row that was written but never reached the queue is re-enqueued by the capture jobs' sweep.)
 *
 * If the schedule is edited between the job request and the claim (new timing, disabled, deleted), the claim
 * matches no row: the job stands, one capture for an occurrence that was due before the edit, but it is not
 * recorded as last_job_id, and the edit's own next_run_at is kept.
 *
 * After downtime a schedule fires once for everything it missed, then continues on its rhythm. A schedule
 * whose website is paused, or whose account has lost API access, lets its occurrences pass unfired (and
 * keeps its last_run_at). Each schedule is fired on its own: one that fails never holds up the others.
 */
@Injectable()
export class ScheduleTicker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ScheduleTicker');
  private running: Promise<number> | null = null;

  constructor(
    private readonly schedules: ScheduleRepository,
    private readonly websites: WebsiteRepository,
    private readonly accounts: AccountRepository,
    private readonly runs: ScheduleRuns,
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
      try {
        if (await this.fire(schedule, now)) queued += 1;
      } catch (err) {
        // Transient (database or queue down): nothing was claimed, so the occurrence stays due and the next
        // tick retries it with the same job key. Errors that would repeat for ever are handled inside fire().
        this.logger.error(`schedule ${schedule.id}: could not fire, will retry: ${errorMessage(err)}`);
      }
    }
    return queued;
  }

  /** Fires one due occurrence; true when this call claimed it and its job was queued for it. */
  private async fire(schedule: Schedule, now: Date): Promise<boolean> {
    const due = schedule.nextRunAt as Date;
    const next = this.nextOccurrence(schedule, now);
    const job = (await this.mayFire(schedule, now)) ? await this.requestJob(schedule, due) : null;
    const claimed = await this.schedules.claim(schedule.id, due, { next, jobId: job?.id ?? null, now });
    if (claimed && next === null) {
      this.logger.warn(
        `schedule ${schedule.id}: disabled, its next run cannot be computed (timezone ${JSON.stringify(schedule.timezone)}); fix it and enable it again`,
      );
    }
    return claimed && job !== null;
  }

  /**
   * The occurrence after this one, or null when it cannot be computed. That is deterministic for the stored
   * rule (typically a time zone the runtime's tz database no longer knows), so retrying would fail on every
   * tick, and because due schedules are taken oldest first it would also sit at the head of every batch.
   * The schedule is then disabled after this occurrence (which still fires), with a logged reason: the user
   * sees enabled: false and next_run_at: null instead of a schedule that silently never runs, and an update
   * with a valid timezone and enabled: true resumes it.
   */
  private nextOccurrence(schedule: Schedule, now: Date): Date | null {
    try {
      return schedule.fire(now).nextRunAt;
    } catch (err) {
      this.logger.error(`schedule ${schedule.id}: cannot compute its next run: ${errorMessage(err)}`);
      return null;
    }
  }

  /**
   * The occurrence's job (capture or scenario run): created now, or the one an earlier attempt or another instance made with
   * the same key. Null when the key already names a job for another request (the schedule's target changed
   * after a job was made for this occurrence, before it was claimed): the occurrence has its job, so it
   * counts as fired rather than failing on every tick.
   */
  private async requestJob(schedule: Schedule, due: Date): Promise<JobProps | null> {
    try {
      return await this.runs.submit(schedule, `schedule:${schedule.id}:${due.toISOString()}`, 'schedule');
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      this.logger.warn(`schedule ${schedule.id}: the occurrence of ${due.toISOString()} already has a job for another request; not queuing another`);
      return null;
    }
  }

  /** A scenario schedule looks at the website its scenario runs on now (none: the scenario is gone). */
  private async mayFire(schedule: Schedule, now: Date): Promise<boolean> {
    const websiteId = await this.runs.websiteOf(schedule);
    if (websiteId === null) return false;
    const website = await this.websites.findById(websiteId);
    if (!website || !Website.restore(website).isCapturedBySchedules()) return false;
    const account = await this.accounts.findById(schedule.accountId);
    return account !== null && account.hasApiAccess(now);
  }
}
