/**
 * Schedule entity (API.md, Schedules): its data (ScheduleProps, what repositories store) and the Schedule
 * class with the intent methods (what repositories return). Nothing here touches a clock, a database or a queue: callers pass
 * `now` and persist what comes back.
 *
 * Firing protocol these methods support (the atomic claim itself is the repository's job):
 *   1. due = s.nextRunAt (s.isDue(now)); next = s.fire(now).nextRunAt
 *   2. queue the capture job under the idempotency key `schedule:<id>:<due ISO>`, so every retry and every
 *      instance that races for this occurrence gets the same single job
 *   3. UPDATE … SET next_run_at = next, last_run_at = now, last_job_id = job.id, updated_at = now
 *      WHERE id = s.id AND next_run_at = due AND enabled      -- 0 rows: another instance (or an edit) got there
 *      first; the job is still the one job of this occurrence.
 * The job exists before the occurrence is given up, so a crash anywhere in between leaves the schedule due and
 * the next tick finishes the same occurrence with the same job instead of losing it.
 * fire() moves next_run_at strictly past `now` (not past the old next_run_at), so after downtime
 * the missed occurrences fire once, together, and the schedule then continues on its own rhythm.
 */
import { FieldError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { defaultDayOfWeek, nextRunAfter } from './next-run';
import { Frequency, scheduleRuleErrors } from './schedule-rules';

export const MAX_SCHEDULE_NAME_LENGTH = 255;

export interface ScheduleProps {
  id: number;
  accountId: number;
  /** The website it captures; for a scenario schedule, the scenario's website (the run uses the scenario's own). */
  websiteId: number;
  /** Null: each occurrence captures the website. Set: each occurrence runs this scenario instead. */
  scenarioId: number | null;
  /**
   * The saved session its runs start with (`session_id`): wins the scenario's and the website's capture_options
   * session_id. Null: the scenario's (a scenario schedule), else the website's.
   */
  sessionId: number | null;
  name: string;
  frequency: Frequency;
  /** HH:MM, 24-hour, local to `timezone`. For hourly and every N minutes only the minutes count. */
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

/** A schedule before it has an id. */
export type NewSchedule = Omit<ScheduleProps, 'id'>;

/** The fields that decide when a schedule runs. */
export type ScheduleTiming = Pick<ScheduleProps, 'enabled' | 'frequency' | 'time' | 'timezone' | 'dayOfWeek'>;

export interface CreateScheduleInput {
  accountId: number;
  websiteId: number;
  /** The scenario it runs (its websiteId must be the scenario's website, which the application checks). */
  scenarioId?: number | null;
  /** One of the account's saved sessions (the application checks it); default null. */
  sessionId?: number | null;
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
  /** null: back to capturing the website. */
  scenarioId?: number | null;
  /** null: no session of its own any more. */
  sessionId?: number | null;
  frequency?: Frequency;
  time?: string;
  timezone?: string;
  dayOfWeek?: number | null;
  enabled?: boolean;
}

/** Next run strictly after `now` under this timing, or null when it is disabled. */
function nextRunOf(timing: ScheduleTiming, now: Date): Date | null {
  return timing.enabled ? nextRunAfter(timing, now) : null;
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

/** True when the rule that decides when `a` runs differs from `b`'s (what an update must recompute for). */
function timingDiffers(a: Omit<ScheduleTiming, 'enabled'>, b: Omit<ScheduleTiming, 'enabled'>): boolean {
  return a.frequency !== b.frequency || a.time !== b.time || a.timezone !== b.timezone || a.dayOfWeek !== b.dayOfWeek;
}

/**
 * A schedule and what can happen to it. Immutable: every intent returns the schedule as it is afterwards
 * (`props`, for the repository to store). `id` is absent until the repository has stored a created one.
 */
export class Schedule {
  private constructor(readonly props: Readonly<NewSchedule & Partial<Pick<ScheduleProps, 'id'>>>) {}

  /**
   * A new schedule: validated, enabled by default, a weekly schedule without day_of_week gets the weekday of
   * creation in its time zone, next_run_at computed from `now`. Throws ValidationFailedError.
   */
  static create(input: CreateScheduleInput, now: Date): Schedule {
    const errors = scheduleFieldErrors(input);
    if (errors.length > 0) throw new ValidationFailedError(errors);
    const timing: ScheduleTiming = {
      enabled: input.enabled ?? true,
      frequency: input.frequency,
      time: input.time,
      timezone: input.timezone,
      dayOfWeek: input.dayOfWeek ?? (input.frequency === 'weekly' ? defaultDayOfWeek(input.timezone, now) : null),
    };
    return new Schedule({
      accountId: input.accountId,
      websiteId: input.websiteId,
      scenarioId: input.scenarioId ?? null,
      sessionId: input.sessionId ?? null,
      name: input.name,
      ...timing,
      nextRunAt: nextRunOf(timing, now),
      lastRunAt: null,
      lastJobId: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** A stored schedule, as the repository returns it. */
  static restore(props: ScheduleProps): Schedule {
    return new Schedule({ ...props });
  }

  /** Its id; only a stored schedule (one the repository returned) has one. */
  get id(): number {
    if (this.props.id === undefined) throw new Error('a schedule has no id until it is stored');
    return this.props.id;
  }
  get accountId(): number {
    return this.props.accountId;
  }
  get websiteId(): number {
    return this.props.websiteId;
  }
  get scenarioId(): number | null {
    return this.props.scenarioId;
  }
  get sessionId(): number | null {
    return this.props.sessionId;
  }
  get name(): string {
    return this.props.name;
  }
  get frequency(): Frequency {
    return this.props.frequency;
  }
  get time(): string {
    return this.props.time;
  }
  get timezone(): string {
    return this.props.timezone;
  }
  get dayOfWeek(): number | null {
    return this.props.dayOfWeek;
  }
  get enabled(): boolean {
    return this.props.enabled;
  }
  get nextRunAt(): Date | null {
    return this.props.nextRunAt;
  }
  get lastRunAt(): Date | null {
    return this.props.lastRunAt;
  }
  get lastJobId(): string | null {
    return this.props.lastJobId;
  }
  get createdAt(): Date {
    return this.props.createdAt;
  }
  get updatedAt(): Date {
    return this.props.updatedAt;
  }

  /** Its next run strictly after `now` under its current rule, or null when it is disabled. */
  nextRunAfter(now: Date): Date | null {
    return nextRunOf(this.props, now);
  }

  /** True when it is enabled and its next run is at or before `now`. */
  isDue(now: Date): boolean {
    return this.props.enabled && this.props.nextRunAt !== null && this.props.nextRunAt.getTime() <= now.getTime();
  }

  /**
   * The schedule after firing at `now`: last_run_at = now, next_run_at = the first occurrence strictly after now
   * (every occurrence missed up to now is covered by this one firing). last_job_id is left unchanged; set it with
   * ranJob() once the job is queued.
   */
  fire(now: Date): Schedule {
    return new Schedule({ ...this.props, nextRunAt: this.nextRunAfter(now), lastRunAt: now, updatedAt: now });
  }

  /**
   * The saved session its runs name: its own session_id, or none (undefined): a capture then takes the website's
   * capture_options session_id, a scenario run the scenario's, else the website's.
   */
  runSessionId(): number | undefined {
    return this.props.sessionId ?? undefined;
  }

  /** Records the capture job queued for its latest occurrence. */
  ranJob(jobId: string): Schedule {
    return new Schedule({ ...this.props, lastJobId: jobId });
  }

  /**
   * The schedule with `changes` applied. A schedule that becomes weekly without a day_of_week gets the weekday
   * of its creation in its (new) time zone. Throws ValidationFailedError.
   *
   * next_run_at is recomputed from `now` only when the rule changes (frequency, time, timezone, day_of_week) or
   * a disabled schedule is enabled, and cleared when it is disabled. Any other update (a rename, a new website,
   * a client echoing its GET body, enabling what is already enabled) keeps it: recomputing from now would drop
   * an occurrence that is due but not fired yet (after downtime it must still fire once, API.md), and would
   * move the value a concurrent tick compares its claim against.
   */
  update(changes: ScheduleChanges, now: Date): Schedule {
    const current = this.props;
    const merged = {
      name: changes.name !== undefined ? changes.name : current.name,
      websiteId: changes.websiteId !== undefined ? changes.websiteId : current.websiteId,
      scenarioId: changes.scenarioId !== undefined ? changes.scenarioId : current.scenarioId,
      sessionId: changes.sessionId !== undefined ? changes.sessionId : current.sessionId,
      frequency: changes.frequency !== undefined ? changes.frequency : current.frequency,
      time: changes.time !== undefined ? changes.time : current.time,
      timezone: changes.timezone !== undefined ? changes.timezone : current.timezone,
      dayOfWeek: changes.dayOfWeek !== undefined ? changes.dayOfWeek : current.dayOfWeek,
      enabled: changes.enabled !== undefined ? changes.enabled : current.enabled,
    };
    const errors = scheduleFieldErrors(merged);
    if (errors.length > 0) throw new ValidationFailedError(errors);
    if (merged.frequency === 'weekly' && merged.dayOfWeek === null) {
      merged.dayOfWeek = defaultDayOfWeek(merged.timezone, current.createdAt);
    }
    // nextRunAt === null while enabled breaks the entity's invariant; recomputing repairs it rather than keeping it.
    const recompute = timingDiffers(merged, current) || !current.enabled || current.nextRunAt === null;
    const nextRunAt = recompute ? nextRunOf(merged, now) : merged.enabled ? current.nextRunAt : null;
    return new Schedule({ ...current, ...merged, nextRunAt, updatedAt: now });
  }
}
