/**
 * A monitor (API.md, fourth round, "Alerts people act on"): a website watched on a rhythm, its changes sent to some
 * notification channels — made in one call by `POST /websites` with `monitor: {every, channel_ids}`. It is no new
 * resource: a website, a schedule that captures it, the channels linked to it and a first capture. What is its own
 * is `every`, the rhythm in a word, and how that becomes a schedule's timing. Plain rules, no framework.
 */
import type { FieldError } from '../../../shared/domain/domain-error';
import type { Frequency } from '../../schedules/domain/schedule-rules';

/** `every`, as a monitor is asked for: the schedules' frequencies (docs/schedules.md) in a short word. */
export const MONITOR_EVERY = {
  '5m': 'every_5_minutes',
  '15m': 'every_15_minutes',
  '30m': 'every_30_minutes',
  '1h': 'hourly',
  '1d': 'daily',
  '1w': 'weekly',
} as const satisfies Record<string, Frequency>;
export type MonitorEvery = keyof typeof MONITOR_EVERY;
export const MONITOR_EVERY_VALUES = Object.keys(MONITOR_EVERY) as MonitorEvery[];

/** At most this many channels in one monitor (a channel's own website list holds 100). */
export const MONITOR_CHANNELS_MAX = 20;

/** The frequency a schedule's `frequency` also accepts as `every` (`hourly`, `every_15_minutes`…), by its short word. */
const BY_FREQUENCY = new Map<string, MonitorEvery>(MONITOR_EVERY_VALUES.map((every) => [MONITOR_EVERY[every], every]));

/**
 * `every` read: one of the short words, or a schedule's frequency name (`hourly`, `daily`, `every_15_minutes`) — the
 * same rhythms, spelled as the schedules API spells them. Null when it is neither.
 */
export function parseEvery(value: unknown): MonitorEvery | null {
  if (typeof value !== 'string') return null;
  if ((MONITOR_EVERY_VALUES as string[]).includes(value)) return value as MonitorEvery;
  return BY_FREQUENCY.get(value) ?? null;
}

export const EVERY_MESSAGE = `every must be one of ${MONITOR_EVERY_VALUES.join(', ')} (or a schedule frequency: ${Object.values(MONITOR_EVERY).join(', ')})`;

/** What a monitor request says, before anything is checked against the database. */
export interface MonitorRequest {
  every: unknown;
  channelIds: readonly number[];
}

/** The field errors of a monitor request, named as the API spells them (`monitor.every`, `monitor.channel_ids`). */
export function monitorFieldErrors(request: MonitorRequest): FieldError[] {
  const errors: FieldError[] = [];
  if (parseEvery(request.every) === null) errors.push({ field: 'monitor.every', message: EVERY_MESSAGE });
  if (request.channelIds.length > MONITOR_CHANNELS_MAX) {
    errors.push({ field: 'monitor.channel_ids', message: `monitor.channel_ids may name at most ${MONITOR_CHANNELS_MAX} channels` });
  }
  return errors;
}

/** A schedule's timing, as the schedules context takes it. */
export interface MonitorTiming {
  frequency: Frequency;
  /** HH:MM in UTC; for the rhythms within a day only the minutes count. */
  time: string;
  timezone: 'UTC';
  /** The weekday of `now` in UTC for a weekly monitor (0 = Sunday), else null. */
  dayOfWeek: number | null;
}

/**
 * The schedule that keeps a monitor's rhythm from the moment it is made: its first capture is taken at once, the
 * next one `every` later — at the same minute of the hour (5m…1h), the same time of day (1d) or the same time and
 * weekday (1w), in UTC. Monitors made at different minutes so spread over the clock instead of all firing at :00.
 */
export function monitorTiming(every: MonitorEvery, now: Date): MonitorTiming {
  const hh = String(now.getUTCHours()).padStart(2, '0');
  const mm = String(now.getUTCMinutes()).padStart(2, '0');
  const frequency = MONITOR_EVERY[every];
  return {
    frequency,
    time: every === '1d' || every === '1w' ? `${hh}:${mm}` : `00:${mm}`,
    timezone: 'UTC',
    dayOfWeek: every === '1w' ? now.getUTCDay() : null,
  };
}

/** The schedule's name: says what it is for (a person finds it among the schedules), within the 255 characters. */
export function monitorScheduleName(websiteName: string): string {
  return `Monitor: ${websiteName}`.slice(0, 255);
}
