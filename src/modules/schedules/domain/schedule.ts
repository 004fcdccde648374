/**
 * Schedule entity (API.md, Schedules) as plain data plus pure intent functions. Nothing here touches a
 * clock, a database or a queue: callers pass `now` and persist what comes back.
 *
 * Firing protocol these functions support (the atomic claim itself is the repository's job):
 *   1. due = s.nextRunAt (isDue(s, now)); next = advanceAfterFiring(s, now).nextRunAt
 *   2. queue the capture job under the idempotency key `schedule:<id>:<due ISO>`, so every retry and every
 *      instance that races for this occurrence gets the same single job
 *   3. UPDATE … SET next_run_at = next, last_run_at = now, last_job_id = job.id, updated_at = now
 *      WHERE id = s.id AND next_run_at = due AND enabled      -- 0 rows: another instance (or an edit) got there
 *      first; the job is still the one job of this occurrence.
 * The job exists before the occurrence is given up, so a crash anywhere in between leaves the schedule due and
 * the next tick finishes the same occurrence with the same job instead of losing it.
 * advanceAfterFiring moves next_run_at strictly past `now` (not past the old next_run_at), so after downtime
 * the missed occurrences fire once, together, and the schedule then continues on its own rhythm.
 */
import { FieldError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { defaultDayOfWeek, nextRunAfter } from './next-run';
import { Frequency, scheduleRuleErrors } from './schedule-rules';

export const MAX_SCHEDULE_NAME_LENGTH = 255;

export interface ScheduleProps {
  id: number;
  accountId: number;
  websiteId: number;
  name: string;
  frequency: Frequency;
  /** HH:MM, 24-hour, local to `timezone`. For hourly only the minutes count. */
  time: string;
  /** IANA zone name, stored as given. */
  timezone: string;
  /** 0 = Sunday … 6 = Saturday. Always set for weekly; kept as given (possibly null) for other frequencies. */
  dayOfWeek: number | null;
  enabled: boolean;
  /** Null exactly when the schedule is disabled. */
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  lastJobId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type Schedule = Readonly<ScheduleProps>;

/** A schedule before it has an id. */
export type NewSchedule = Omit<ScheduleProps, 'id'>;

/** The fields that decide when a schedule runs. */
export type ScheduleTiming = Pick<ScheduleProps, 'enabled' | 'frequency' | 'time' | 'timezone' | 'dayOfWeek'>;

export interface CreateScheduleInput {
  accountId: number;
  websiteId: number;
  name: string;
  frequency: Frequency;
  time: string;
  timezone: string;
  dayOfWeek?: number | null;
  /** Defaults to true. */
  enabled?: boolean;
}

/** Fields an update may change (API.md: any subset). `undefined` means "not sent". */
export interface ScheduleChanges {
  name?: string;
  websiteId?: number;
  frequency?: Frequency;
  time?: string;
  timezone?: string;
  dayOfWeek?: number | null;
  enabled?: boolean;
}

/** Next run strictly after `now`, or null when the schedule is disabled. */
export function computeNextRun(schedule: ScheduleTiming, now: Date): Date | null {
  if (!schedule.enabled) return null;
  return nextRunAfter(schedule, now);
}

/** True when an enabled schedule's next run is at or before `now`. */
export function isDue(schedule: Pick<ScheduleProps, 'enabled' | 'nextRunAt'>, now: Date): boolean {
  return schedule.enabled && schedule.nextRunAt !== null && schedule.nextRunAt.getTime() <= now.getTime();
}

/**
 * The schedule after firing at `now`: last_run_at = now, next_run_at = the first occurrence strictly after now
 * (every occurrence missed up to now is covered by this one firing). last_job_id is left unchanged; set it with
 * recordFiredJob once the job is queued.
 */
export function advanceAfterFiring<T extends ScheduleTiming & Pick<ScheduleProps, 'nextRunAt' | 'lastRunAt' | 'updatedAt'>>(schedule: T, now: Date): T {
  return { ...schedule, nextRunAt: computeNextRun(schedule, now), lastRunAt: now, updatedAt: now };
}

export function recordFiredJob<T extends Pick<ScheduleProps, 'lastJobId'>>(schedule: T, jobId: string): T {
  return { ...schedule, lastJobId: jobId };
}

/** Validation errors of a schedule's own fields, in wire field names. */
export function scheduleFieldErrors(fields: { name: unknown; frequency: unknown; time: unknown; timezone: unknown; dayOfWeek?: unknown }): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof fields.name !== 'string' || fields.name.trim().length === 0) {
    errors.push({ field: 'name', message: 'name is required' });
  } else if (fields.name.length > MAX_SCHEDULE_NAME_LENGTH) {
    errors.push({ field: 'name', message: `name must be at most ${MAX_SCHEDULE_NAME_LENGTH} characters` });
  }
  errors.push(...scheduleRuleErrors(fields));
  return errors;
}

/**
 * A new schedule: validated, enabled by default, a weekly schedule without day_of_week gets the weekday of
 * creation in its time zone, next_run_at computed from `now`. Throws ValidationFailedError.
 */
export function createSchedule(input: CreateScheduleInput, now: Date): NewSchedule {
  const errors = scheduleFieldErrors(input);
  if (errors.length > 0) throw new ValidationFailedError(errors);
  const dayOfWeek = input.dayOfWeek ?? (input.frequency === 'weekly' ? defaultDayOfWeek(input.timezone, now) : null);
  const enabled = input.enabled ?? true;
  const timing: ScheduleTiming = {
    enabled,
    frequency: input.frequency,
    time: input.time,
    timezone: input.timezone,
    dayOfWeek,
  };
  return {
    accountId: input.accountId,
    websiteId: input.websiteId,
    name: input.name,
    ...timing,
    nextRunAt: computeNextRun(timing, now),
    lastRunAt: null,
    lastJobId: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** True when the rule that decides when `a` runs differs from `b`'s (what an update must recompute for). */
function timingDiffers(a: Omit<ScheduleTiming, 'enabled'>, b: Omit<ScheduleTiming, 'enabled'>): boolean {
  return a.frequency !== b.frequency || a.time !== b.time || a.timezone !== b.timezone || a.dayOfWeek !== b.dayOfWeek;
}

/**
 * The schedule with `changes` applied. A schedule that becomes weekly without a day_of_week gets the weekday of
 * its creation in its (new) time zone. Throws ValidationFailedError.
 *
 * next_run_at is recomputed from `now` only when the rule changes (frequency, time, timezone, day_of_week) or a
 * disabled schedule is enabled, and cleared when it is disabled. Any other update (a rename, a new website, a
 * client echoing its GET body, enabling what is already enabled) keeps it: recomputing from now would drop an
 * occurrence that is due but not fired yet (after downtime it must still fire once, API.md), and would move the
 * value a concurrent tick compares its claim against.
 */
export function updateSchedule<T extends NewSchedule>(schedule: T, changes: ScheduleChanges, now: Date): T {
  const merged = {
    name: changes.name !== undefined ? changes.name : schedule.name,
    websiteId: changes.websiteId !== undefined ? changes.websiteId : schedule.websiteId,
    frequency: changes.frequency !== undefined ? changes.frequency : schedule.frequency,
    time: changes.time !== undefined ? changes.time : schedule.time,
    timezone: changes.timezone !== undefined ? changes.timezone : schedule.timezone,
    dayOfWeek: changes.dayOfWeek !== undefined ? changes.dayOfWeek : schedule.dayOfWeek,
    enabled: changes.enabled !== undefined ? changes.enabled : schedule.enabled,
  };
  const errors = scheduleFieldErrors(merged);
  if (errors.length > 0) throw new ValidationFailedError(errors);
  if (merged.frequency === 'weekly' && merged.dayOfWeek === null) {
    merged.dayOfWeek = defaultDayOfWeek(merged.timezone, schedule.createdAt);
  }
  // nextRunAt === null while enabled breaks the entity's invariant; recomputing repairs it rather than keeping it.
  const recompute = timingDiffers(merged, schedule) || !schedule.enabled || schedule.nextRunAt === null;
  const nextRunAt = recompute ? computeNextRun(merged, now) : merged.enabled ? schedule.nextRunAt : null;
  return { ...schedule, ...merged, nextRunAt, updatedAt: now };
}
