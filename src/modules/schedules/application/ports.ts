import { Page, PageRequest } from '../../../shared/domain/page-request';
import { Schedule, ScheduleProps } from '../domain/schedule';

/** The columns an update writes: only those that changed, plus updated_at. */
export type ScheduleColumnChanges = Partial<
  Pick<ScheduleProps, 'name' | 'websiteId' | 'scenarioId' | 'sessionId' | 'frequency' | 'time' | 'timezone' | 'dayOfWeek' | 'enabled' | 'nextRunAt'>
> &
  Pick<ScheduleProps, 'updatedAt'>;

/** How a claimed occurrence leaves the schedule. */
export interface ClaimOutcome {
  /** The next occurrence; null disables the schedule (its next occurrence cannot be computed). */
  next: Date | null;
  /** The capture job queued for the occurrence, recorded as last_job_id with last_run_at = now; null: none. */
  jobId: string | null;
  now: Date;
}

export abstract class ScheduleRepository {
  /** Stores a schedule made by Schedule.create; returns it with its id. */
  abstract create(schedule: Schedule): Promise<Schedule>;
  abstract findOwned(accountId: number, id: number): Promise<Schedule | null>;
  abstract list(accountId: number, page: PageRequest): Promise<Page<Schedule>>;
  /**
   * Writes only `changes` to the account's schedule, in one conditional UPDATE, so columns the ticker writes
   * concurrently (next_run_at, last_run_at, last_job_id) are not overwritten with what was read before, and a
   * schedule deleted meanwhile is not written back. Null when no such schedule exists (any more).
   */
  abstract update(accountId: number, id: number, changes: ScheduleColumnChanges): Promise<Schedule | null>;
  abstract delete(id: number): Promise<void>;
  /**
   * The account's schedules that name the saved session `sessionId` as their own session_id (`direct`), or have none
   * of their own and capture one of `websiteIds` (whose capture options name it): indexed lookups (session_id, website_id), at most `limit`, by id.
   */
  abstract usingSession(
    accountId: number,
    sessionId: number,
    websiteIds: readonly number[],
    limit: number,
  ): Promise<Array<{ id: number; name: string; direct: boolean }>>;
  /** Enabled schedules whose next run is at or before `now`, oldest first. */
  abstract findDue(now: Date, limit: number): Promise<Schedule[]>;
  /**
   * Claims one occurrence: moves next_run_at from `due` to `outcome.next` (and records its job) in a single
   * conditional UPDATE on next_run_at = due of an enabled schedule. True for exactly one caller per occurrence,
   * however many instances tick at once; false too when the schedule was edited, disabled or deleted meanwhile.
   */
  abstract claim(id: number, due: Date, outcome: ClaimOutcome): Promise<boolean>;
  /**
   * Records a run asked for by hand (Run now) as last_job_id / last_run_at, leaving next_run_at alone: a manual
   * run neither takes nor moves an occurrence. False when the schedule no longer exists.
   */
  abstract recordRun(id: number, jobId: string, now: Date): Promise<boolean>;
}
