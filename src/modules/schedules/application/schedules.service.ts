import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { Page, PageRequest } from '../../../shared/domain/page-request';
import { JobProps, JobSource } from '../../jobs/domain/job';
import { WebsiteRepository } from '../../websites/application/ports';
import { checkSessionId, SavedSessionIds } from '../../screenshots/application/saved-sessions.port';
import { ScheduleRuns } from './schedule-runs';
import { CreateScheduleInput, Schedule, ScheduleChanges, scheduleFieldErrors, ScheduleProps } from '../domain/schedule';
import { ScheduleColumnChanges, ScheduleRepository } from './ports';

const sameInstant = (a: Date | null, b: Date | null): boolean => (a === null || b === null ? a === b : a.getTime() === b.getTime());

/** The columns `after` changes relative to `before`, plus updated_at: all an update writes. */
function changedColumns(before: Schedule, after: Schedule): ScheduleColumnChanges {
  const changes: ScheduleColumnChanges = { updatedAt: after.updatedAt };
  if (after.name !== before.name) changes.name = after.name;
  if (after.websiteId !== before.websiteId) changes.websiteId = after.websiteId;
  if (after.scenarioId !== before.scenarioId) changes.scenarioId = after.scenarioId;
  if (after.sessionId !== before.sessionId) changes.sessionId = after.sessionId;
  if (after.frequency !== before.frequency) changes.frequency = after.frequency;
  if (after.time !== before.time) changes.time = after.time;
  if (after.timezone !== before.timezone) changes.timezone = after.timezone;
  if (after.dayOfWeek !== before.dayOfWeek) changes.dayOfWeek = after.dayOfWeek;
  if (after.enabled !== before.enabled) changes.enabled = after.enabled;
  if (!sameInstant(after.nextRunAt, before.nextRunAt)) changes.nextRunAt = after.nextRunAt;
  return changes;
}

/** What a schedule targets as a request names it: `undefined` = not sent. */
export interface TargetRequest {
  websiteId?: number | null;
  scenarioId?: number | null;
}

/** A schedule as a client asks for it: the target is checked and resolved by the service. */
export type CreateScheduleRequest = Omit<CreateScheduleInput, 'websiteId' | 'scenarioId'> & TargetRequest;

/** A Run now: the job queued, and whether it is a scenario run (an execution) or a capture. */
export interface ScheduleRun {
  job: JobProps;
  execution: boolean;
}

@Injectable()
export class SchedulesService {
  constructor(
    private readonly schedules: ScheduleRepository,
    private readonly websites: WebsiteRepository,
    private readonly runs: ScheduleRuns,
    private readonly clock: Clock,
    private readonly sessions: SavedSessionIds,
  ) {}

  private async checkWebsite(accountId: number, websiteId: number): Promise<void> {
    if (!(await this.websites.findOwned(accountId, websiteId))) {
      throw ValidationFailedError.of('website_id', 'website_id must be the id of one of your websites');
    }
  }

  /**
   * The website and scenario a schedule will have. A scenario schedule's website is its scenario's: website_id may
   * be left out, or sent as that same website (an echoed GET body), anything else is 422. Without a scenario,
   * website_id names one of the account's websites. Another account's scenario or website is 422, as ids in a body
   * are (404 is for the path's id).
   */
  private async resolveTarget(accountId: number, request: TargetRequest, current: Schedule | null): Promise<{ websiteId: number; scenarioId: number | null }> {
    const scenarioId = request.scenarioId !== undefined ? request.scenarioId : (current?.scenarioId ?? null);
    if (scenarioId !== null) {
      const websiteId = await this.runs.scenarioWebsite(accountId, scenarioId);
      if (websiteId === null) throw ValidationFailedError.of('scenario_id', 'scenario_id must be the id of one of your scenarios');
      if (request.websiteId !== undefined && request.websiteId !== null && request.websiteId !== websiteId) {
        throw ValidationFailedError.of(
          'website_id',
          'A schedule that runs a scenario uses the scenario’s website: leave website_id out, or send scenario_id: null to capture a website',
        );
      }
      return { websiteId, scenarioId };
    }
    // Leaving a scenario (scenario_id: null) without naming a website keeps the scenario's website.
    const websiteId = request.websiteId ?? current?.websiteId ?? null;
    if (websiteId === null) throw ValidationFailedError.of('website_id', 'website_id is required (or scenario_id, for a schedule that runs a scenario)');
    if (current === null || (request.websiteId !== undefined && request.websiteId !== null)) await this.checkWebsite(accountId, websiteId);
    return { websiteId, scenarioId: null };
  }

  async create(request: CreateScheduleRequest): Promise<Schedule> {
    // The schedule's own fields first (every bad one in one 422), then its target.
    const errors = scheduleFieldErrors(request);
    if (errors.length > 0) throw new ValidationFailedError(errors);
    const { websiteId: _website, scenarioId: _scenario, ...own } = request;
    const target = await this.resolveTarget(request.accountId, request, null);
    await checkSessionId(this.sessions, request.accountId, request.sessionId);
    return this.schedules.create(Schedule.create({ ...own, ...target }, this.clock.now()));
  }

  /**
   * Run now: queues what the schedule runs, at once, whatever its timing (a disabled schedule or a paused website
   * too: a person asked). Recorded as last_run_at / last_job_id; next_run_at is left alone, so the schedule's own
   * occurrences still fire as planned. An Idempotency-Key makes a retry return the same job.
   */
  async runNow(accountId: number, id: number, idempotencyKey: string | null, source: JobSource): Promise<ScheduleRun> {
    const schedule = await this.get(accountId, id);
    const job = await this.runs.submit(schedule, idempotencyKey, source);
    await this.schedules.recordRun(schedule.id, job.id, this.clock.now());
    return { job, execution: job.type === 'scenario' };
  }

  async get(accountId: number, id: number): Promise<Schedule> {
    const schedule = await this.schedules.findOwned(accountId, id);
    if (!schedule) throw new NotFoundError('Schedule');
    return this.withScenarioWebsite(schedule);
  }

  async list(accountId: number, page: PageRequest): Promise<Page<Schedule>> {
    const listed = await this.schedules.list(accountId, page);
    return { ...listed, items: await Promise.all(listed.items.map((s) => this.withScenarioWebsite(s))) };
  }

  /**
   * A scenario schedule shows its scenario's website as it is now: the scenario may have moved to another website
   * since the schedule was saved, and its runs go there (the stored website_id is what it was then).
   */
  private async withScenarioWebsite(schedule: Schedule): Promise<Schedule> {
    if (schedule.scenarioId === null) return schedule;
    const websiteId = await this.runs.websiteOf(schedule);
    return websiteId === null || websiteId === schedule.websiteId ? schedule : Schedule.restore({ ...(schedule.props as ScheduleProps), websiteId });
  }

  /**
   * Partial update (also the dashboard's enable / disable); `enabled` toggles as sent, next_run_at follows
   * Schedule.update's rule. Only the changed columns are written, and only while the schedule still exists: one
   * deleted meanwhile is 404, never written back.
   */
  async update(accountId: number, id: number, changes: Omit<ScheduleChanges, 'websiteId'> & TargetRequest): Promise<Schedule> {
    const stored = await this.schedules.findOwned(accountId, id);
    if (!stored) throw new NotFoundError('Schedule');
    // Compared with the stored row, so any update of a scenario schedule also stores its scenario's current website.
    const schedule = await this.withScenarioWebsite(stored);
    const { websiteId: _website, scenarioId: _scenario, ...own } = changes;
    schedule.update(own, this.clock.now()); // the schedule's own fields first, as on create
    const targetSent = changes.websiteId !== undefined || changes.scenarioId !== undefined;
    const target = targetSent ? await this.resolveTarget(accountId, changes, schedule) : {};
    if (changes.sessionId !== undefined && changes.sessionId !== schedule.sessionId) await checkSessionId(this.sessions, accountId, changes.sessionId);
    const updated = schedule.update({ ...own, ...target }, this.clock.now());
    const saved = await this.schedules.update(accountId, id, changedColumns(stored, updated));
    if (!saved) throw new NotFoundError('Schedule');
    return this.withScenarioWebsite(saved);
  }

  async delete(accountId: number, id: number): Promise<void> {
    await this.get(accountId, id);
    await this.schedules.delete(id);
  }

  /**
   * The account's schedules that use the saved session `sessionId`: naming it as their own session_id (`direct`), or
   * with none of their own capturing one of `websiteIds` (the websites whose capture options name it). At most `limit`.
   */
  usingSession(accountId: number, sessionId: number, websiteIds: readonly number[], limit: number) {
    return this.schedules.usingSession(accountId, sessionId, websiteIds, limit);
  }
}
