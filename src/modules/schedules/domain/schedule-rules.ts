/**
 * Schedule field rules (API.md, Schedules): pure constants and validators, no framework imports.
 *
 * Accepted time zones (decision): any name of the IANA time zone database that the runtime's Intl/ICU
 * (which luxon relies on) recognises, spelled with the database's own capitalisation. That includes
 * Region/City names ('Europe/Berlin', 'America/New_York', 'Asia/Kolkata'), 'UTC', 'Etc/UTC', 'GMT',
 * backward-compatible links ('US/Eastern', 'Asia/Calcutta') and the tzdb's own fixed zones
 * ('Etc/GMT-2'). Refused: bare offsets and offset expressions that are not tzdb names ('+02:00', 'UTC+2',
 * 'GMT+2', 'UTC+02:00', 'Z'), unknown names ('Mars/Olympus', 'Berlin', 'Factory'), the empty string,
 * surrounding whitespace, and wrong capitalisation ('utc', 'europe/berlin') — Intl would take those, but the
 * stored name is echoed back to clients, so it must be the tzdb spelling. The name is stored as given, not
 * canonicalised (ICU maps 'Asia/Kolkata' to the older 'Asia/Calcutta', which callers would not expect).
 */
import { IANAZone } from 'luxon';

export const FREQUENCIES = ['daily', 'weekly', 'hourly', 'every_5_minutes', 'every_15_minutes', 'every_30_minutes'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/**
 * The frequencies that repeat within an hour, with their period in minutes. `hourly` is the 60-minute case of the
 * same rule: runs at the local minutes congruent to the minutes of `time` modulo the period (next-run.ts).
 */
export const MINUTE_PERIODS: Readonly<Partial<Record<Frequency, number>>> = {
  every_5_minutes: 5,
  every_15_minutes: 15,
  every_30_minutes: 30,
  hourly: 60,
};

/** The period in minutes of a frequency that repeats within the hour (hourly included), or null for daily/weekly. */
export function minutePeriodOf(frequency: Frequency): number | null {
  return MINUTE_PERIODS[frequency] ?? null;
}

/** 0 = Sunday … 6 = Saturday (API.md). */
export const DAYS_OF_WEEK = [0, 1, 2, 3, 4, 5, 6] as const;
export type DayOfWeek = (typeof DAYS_OF_WEEK)[number];

export const TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;
/** Longest tzdb name is ~32 characters; anything far longer is not a zone name. */
export const MAX_TIME_ZONE_LENGTH = 64;

export function isFrequency(value: unknown): value is Frequency {
  return typeof value === 'string' && (FREQUENCIES as readonly string[]).includes(value);
}

/** `HH:MM`, 24-hour, 00:00..23:59, exactly two digits each ('7:05', '24:00', '12:60', ' 07:00' are invalid). */
export function isValidTime(value: unknown): value is string {
  return typeof value === 'string' && TIME_PATTERN.test(value);
}

/** Splits a time already checked with isValidTime. */
export function parseTime(value: string): { hour: number; minute: number } {
  if (!isValidTime(value)) throw new RangeError(`Invalid schedule time: ${JSON.stringify(value)}`);
  return { hour: Number(value.slice(0, 2)), minute: Number(value.slice(3, 5)) };
}

export function isValidDayOfWeek(value: unknown): value is DayOfWeek {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 6;
}

/** tzdb name syntax: '/'-separated segments, each starting with an upper-case letter (no offsets, no blanks). */
export const TZ_NAME_PATTERN = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*)*$/;

let knownZoneNamesLower: Map<string, string> | null = null;
function knownZoneNames(): Map<string, string> {
  if (knownZoneNamesLower === null) {
    const names = new Map<string, string>();
    const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
    const supported = typeof intl.supportedValuesOf === 'function' ? intl.supportedValuesOf('timeZone') : [];
    for (const name of [...supported, 'UTC', 'Etc/UTC', 'GMT', 'Etc/GMT']) names.set(name.toLowerCase(), name);
    knownZoneNamesLower = names;
  }
  return knownZoneNamesLower;
}

function resolvedZoneName(tz: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** See the module comment for what is accepted. */
export function isValidTimeZone(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TIME_ZONE_LENGTH) return false;
  if (!TZ_NAME_PATTERN.test(value)) return false;
  if (!IANAZone.isValidZone(value)) return false;
  const resolved = resolvedZoneName(value);
  if (resolved === null) return false;
  // Intl matches names case-insensitively; insist on the tzdb spelling where we can tell what it is.
  if (resolved.toLowerCase() === value.toLowerCase() && resolved !== value) return false;
  const known = knownZoneNames().get(value.toLowerCase());
  if (known !== undefined && known !== value) return false;
  return true;
}

export interface ScheduleRuleInput {
  frequency: unknown;
  time: unknown;
  timezone: unknown;
  dayOfWeek?: unknown;
}

export interface ScheduleRuleFieldError {
  /** Wire (snake_case) field name. */
  field: 'frequency' | 'time' | 'timezone' | 'day_of_week';
  message: string;
}

/**
 * All field errors of a schedule rule, in wire field names. `day_of_week` may be absent/null (the application
 * fills the default for weekly schedules); when present it must be 0..6 whatever the frequency.
 */
export function scheduleRuleErrors(input: ScheduleRuleInput): ScheduleRuleFieldError[] {
  const errors: ScheduleRuleFieldError[] = [];
  if (!isFrequency(input.frequency)) {
    errors.push({ field: 'frequency', message: `frequency must be one of: ${FREQUENCIES.join(', ')}` });
  }
  if (!isValidTime(input.time)) {
    errors.push({ field: 'time', message: 'time must be HH:MM, 24-hour, between 00:00 and 23:59' });
  }
  if (!isValidTimeZone(input.timezone)) {
    errors.push({ field: 'timezone', message: 'timezone must be an IANA time zone name such as Europe/Berlin or UTC' });
  }
  if (input.dayOfWeek !== undefined && input.dayOfWeek !== null && !isValidDayOfWeek(input.dayOfWeek)) {
    errors.push({ field: 'day_of_week', message: 'day_of_week must be an integer from 0 (Sunday) to 6 (Saturday)' });
  }
  return errors;
}
