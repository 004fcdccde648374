import { PageRequest } from '../../../shared/http/pagination';
import { NewSchedule, ScheduleProps } from '../domain/schedule';

export abstract class ScheduleRepository {
  abstract create(schedule: NewSchedule): Promise<ScheduleProps>;
  abstract findOwned(accountId: number, id: number): Promise<ScheduleProps | null>;
  abstract list(accountId: number, page: PageRequest): Promise<{ items: ScheduleProps[]; total: number }>;
  abstract save(schedule: ScheduleProps): Promise<ScheduleProps>;
  abstract delete(id: number): Promise<void>;
  /** Enabled schedules whose next run is at or before `now`, oldest first. */
  abstract findDue(now: Date, limit: number): Promise<ScheduleProps[]>;
  /**
   * Claims one occurrence: moves next_run_at from `due` to `next` in a single conditional UPDATE. True for
   * exactly one caller per occurrence, however many instances tick at once.
   */
  abstract claim(id: number, due: Date, next: Date, now: Date): Promise<boolean>;
  /** Gives a claimed occurrence back (its capture could not be queued), so the next tick tries again. */
  abstract release(id: number, due: Date, next: Date): Promise<void>;
  /** Records the capture an occurrence queued: last_run_at and last_job_id. */
  abstract recordRun(id: number, jobId: string, at: Date): Promise<void>;
}
