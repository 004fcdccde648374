/**
 * Next occurrence of a schedule rule (API.md, Schedules), computed in the schedule's time zone.
 *
 * - daily:  every day at `time` (HH:MM) local.
 * - weekly: every week on `dayOfWeek` (0 = Sunday … 6 = Saturday, required) at `time` local.
 * - hourly: every hour at minute MM of `time`; the HH part is ignored. "Minute MM" is the local wall-clock
 *   minute, which matters in zones whose offset is not a whole number of hours (Asia/Kolkata, +05:30: local
 *   minute 00 is minute 30 UTC). Hourly runs are every instant whose local minute is MM, i.e. every 60 real
 *   minutes in every current zone; a DST change neither skips nor collapses an hourly run (during a repeated
 *   hour both passes run, since they are an hour apart in real time).
 * - every_5_minutes, every_15_minutes, every_30_minutes: aligned to the clock in the schedule's zone, at the local
 *   minutes congruent to the minutes of `time` modulo the period (HH ignored): with `time` 00:00 every 15 minutes
 *   runs at :00, :15, :30, :45 local; with 00:05 at :05, :20, :35, :50. hourly is the same rule with period 60.
 *   Since every zone's offset is a whole number of quarter hours, the runs are the period apart in real time,
 *   across DST changes too (both passes of a repeated hour run; the skipped hour has no runs of its own).
 *
 * DST, for daily and weekly (all "local time" is resolved explicitly here, never by luxon's fromObject, which
 * shifts a gap time forward by the gap length and picks an offset for ambiguous times based on the current
 * date):
 * - a local time that does not exist (spring-forward gap) runs at the first valid instant after it, which is
 *   the transition instant itself (02:30 on 2026-03-29 in Europe/Berlin → 03:00 local = 01:00Z);
 * - an ambiguous local time (fall-back overlap) runs once, at its first occurrence (the earlier instant, with
 *   the summer offset); the following run is the next day's (or week's), never the same day's second pass.
 *
 * Results are at whole minutes (seconds and milliseconds zero) and strictly after `after`.
 */
import { DateTime, IANAZone } from 'luxon';
import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { Frequency, isFrequency, isValidDayOfWeek, isValidTime, minutePeriodOf, parseTime } from './schedule-rules';

export interface ScheduleRule {
  frequency: Frequency;
  /** HH:MM, 24-hour. For hourly only the minutes count. */
  time: string;
  /** IANA zone name. */
  timezone: string;
  /** 0 = Sunday … 6 = Saturday; required for weekly, ignored otherwise. */
  dayOfWeek?: number | null;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The next occurrence of `rule` strictly after `after`, as a UTC instant. */
export function nextRunAfter(rule: ScheduleRule, after: Date): Date {
  const afterMs = after instanceof Date ? after.getTime() : Number.NaN;
  if (!Number.isFinite(afterMs)) throw new RangeError('nextRunAfter: `after` is not a valid date');
  if (!isFrequency(rule.frequency)) {
    throw ValidationFailedError.of('frequency', `Unknown schedule frequency: ${String(rule.frequency)}`);
  }
  if (!isValidTime(rule.time)) throw ValidationFailedError.of('time', 'time must be HH:MM, 24-hour');
  const zone = zoneOf(rule.timezone);
  const { hour, minute } = parseTime(rule.time);

  const period = minutePeriodOf(rule.frequency);
  if (period !== null) return new Date(nextInPeriod(zone, period, minute % period, afterMs));
  switch (rule.frequency) {
    case 'daily':
      return new Date(nextAtLocalTime(zone, hour, minute, null, afterMs));
    case 'weekly': {
      const day = rule.dayOfWeek;
      if (day === undefined || day === null) {
        throw ValidationFailedError.of('day_of_week', 'day_of_week is required for a weekly schedule');
      }
      if (!isValidDayOfWeek(day)) {
        throw ValidationFailedError.of('day_of_week', 'day_of_week must be an integer from 0 (Sunday) to 6 (Saturday)');
      }
      return new Date(nextAtLocalTime(zone, hour, minute, day, afterMs));
    }
    default:
      throw ValidationFailedError.of('frequency', `Unknown schedule frequency: ${String(rule.frequency)}`);
  }
}

/** The weekday (0 = Sunday … 6 = Saturday) of `now` in `timezone`: the default day_of_week of a weekly schedule. */
export function defaultDayOfWeek(timezone: string, now: Date): number {
  const zone = zoneOf(timezone);
  const local = DateTime.fromJSDate(now, { zone });
  if (!local.isValid) throw new RangeError('defaultDayOfWeek: `now` is not a valid date');
  return local.weekday % 7; // luxon: 1 = Monday … 7 = Sunday
}

/**
 * The instant at which a local wall-clock time `localMs` (the local date-time written as if it were UTC)
 * happens in `zone`, following the DST rules above: earliest instant when ambiguous, the transition instant
 * when the time falls into a gap. Exported for tests and callers that need a single resolution.
 */
export function resolveLocalTime(zone: IANAZone, localMs: number): number {
  // Offsets in force around the wall time; offsets are within ±14h, so the instant lies within ±14h of localMs.
  const offsets = new Set<number>();
  for (let k = -3; k <= 3; k++) offsets.add(zone.offset(localMs + k * 6 * HOUR_MS));

  let earliest: number | null = null;
  for (const offset of offsets) {
    const instant = localMs - offset * MINUTE_MS;
    if (zone.offset(instant) === offset && (earliest === null || instant < earliest)) earliest = instant;
  }
  if (earliest !== null) return earliest;

  // Gap: no instant shows this wall time. The first valid instant after it is the transition instant T,
  // the first instant whose wall time is >= localMs. T lies in (localMs - maxOffset, localMs - minOffset].
  const sorted = [...offsets].sort((a, b) => a - b);
  let lo = localMs - sorted[sorted.length - 1] * MINUTE_MS;
  let hi = localMs - sorted[0] * MINUTE_MS;
  const reached = (t: number): boolean => t + zone.offset(t) * MINUTE_MS >= localMs;
  if (sorted.length < 2 || reached(lo) || !reached(hi)) {
    throw new Error(`Cannot resolve local time ${new Date(localMs).toISOString().slice(0, 16)} in ${zone.name}`);
  }
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (reached(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * Zone names found valid so far. IANAZone.isValidZone builds an Intl.DateTimeFormat on every call, which costs
 * more than the whole computation of a run; only valid names are kept, so the set is bounded by the tzdb.
 */
const validZoneNames = new Set<string>();

function zoneOf(timezone: string): IANAZone {
  if (typeof timezone !== 'string' || !(validZoneNames.has(timezone) || IANAZone.isValidZone(timezone))) {
    throw ValidationFailedError.of('timezone', `Unknown time zone: ${String(timezone)}`);
  }
  validZoneNames.add(timezone);
  return IANAZone.create(timezone);
}

/** Days since 1970-01-01 of a local wall time written as UTC ms. */
function localDayIndex(localMs: number): number {
  return Math.floor(localMs / DAY_MS);
}

/** 1970-01-01 was a Thursday (4). */
function weekdayOfDayIndex(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

function nextAtLocalTime(zone: IANAZone, hour: number, minute: number, dayOfWeek: number | null, afterMs: number): number {
  const afterLocalDay = localDayIndex(afterMs + zone.offset(afterMs) * MINUTE_MS);
  // Resolved occurrences increase with the local date, so the first one after `after` is the answer. Start a
  // day early (an occurrence of the previous local date can never be later, but it costs nothing to be safe)
  // and look far enough ahead to meet every weekday.
  for (let day = afterLocalDay - 1; day <= afterLocalDay + 8; day++) {
    if (dayOfWeek !== null && weekdayOfDayIndex(day) !== dayOfWeek) continue;
    const instant = resolveLocalTime(zone, day * DAY_MS + hour * HOUR_MS + minute * MINUTE_MS);
    if (instant > afterMs) return instant;
  }
  throw new Error(`No occurrence found after ${new Date(afterMs).toISOString()} in ${zone.name}`);
}

function localMinuteOfHour(zone: IANAZone, instant: number): number {
  const localMinutes = Math.floor((instant + zone.offset(instant) * MINUTE_MS) / MINUTE_MS);
  return ((localMinutes % 60) + 60) % 60;
}

/**
 * The first whole minute strictly after `afterMs` whose local minute of the hour is congruent to `offset` modulo
 * `period` (a divisor of 60, so the minute of the hour decides it).
 */
function nextInPeriod(zone: IANAZone, period: number, offset: number, afterMs: number): number {
  const matches = (t: number): boolean => localMinuteOfHour(zone, t) % period === offset;
  let t = Math.floor(afterMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS; // first whole minute strictly after
  for (let guard = 0; guard < 48; guard++) {
    const m = localMinuteOfHour(zone, t);
    if (m % period === offset) return t;
    const next = t + ((offset - (m % period) + period) % period) * MINUTE_MS;
    if (zone.offset(next) === zone.offset(t)) return next;
    // The offset changes before `next` (possible only across a change that is not a multiple of the period): walk.
    for (let u = t + MINUTE_MS; u <= next; u += MINUTE_MS) {
      if (matches(u)) return u;
    }
    t = next + MINUTE_MS;
  }
  throw new Error(`No occurrence every ${period} minutes found after ${new Date(afterMs).toISOString()} in ${zone.name}`);
}
