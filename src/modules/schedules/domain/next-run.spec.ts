import { DateTime } from 'luxon';
import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { defaultDayOfWeek, nextRunAfter, ScheduleRule } from './next-run';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';
const KOLKATA = 'Asia/Kolkata';

const daily = (time: string, timezone: string): ScheduleRule => ({ frequency: 'daily', time, timezone });
const weekly = (time: string, timezone: string, dayOfWeek: number): ScheduleRule => ({
  frequency: 'weekly',
  time,
  timezone,
  dayOfWeek,
});
const hourly = (time: string, timezone: string): ScheduleRule => ({ frequency: 'hourly', time, timezone });

/** nextRunAfter as an ISO string. */
function next(rule: ScheduleRule, after: string): string {
  return nextRunAfter(rule, new Date(after)).toISOString();
}

describe('nextRunAfter — daily', () => {
  describe('UTC', () => {
    it('runs later the same day, or the next day when the time has passed', () => {
      expect(next(daily('09:00', 'UTC'), '2026-05-10T08:59:59.999Z')).toBe('2026-05-10T09:00:00.000Z');
      expect(next(daily('09:00', 'UTC'), '2026-05-10T09:00:00.000Z')).toBe('2026-05-11T09:00:00.000Z');
      expect(next(daily('09:00', 'UTC'), '2026-05-10T09:00:00.001Z')).toBe('2026-05-11T09:00:00.000Z');
      expect(next(daily('09:00', 'Etc/UTC'), '2026-05-10T09:00:30.000Z')).toBe('2026-05-11T09:00:00.000Z');
    });

    it('crosses month and year boundaries', () => {
      expect(next(daily('00:00', 'UTC'), '2026-12-31T23:59:59.999Z')).toBe('2027-01-01T00:00:00.000Z');
      expect(next(daily('00:00', 'UTC'), '2027-01-01T00:00:00.000Z')).toBe('2027-01-02T00:00:00.000Z');
      expect(next(daily('23:59', 'UTC'), '2026-01-31T23:59:00.000Z')).toBe('2026-02-01T23:59:00.000Z');
      expect(next(daily('00:00', 'UTC'), '2026-02-28T00:00:00.000Z')).toBe('2026-03-01T00:00:00.000Z');
      expect(next(daily('06:15', 'UTC'), '2026-04-30T07:00:00.000Z')).toBe('2026-05-01T06:15:00.000Z');
    });

    it('handles the leap day 2028-02-29', () => {
      expect(next(daily('12:00', 'UTC'), '2028-02-28T12:00:00.000Z')).toBe('2028-02-29T12:00:00.000Z');
      expect(next(daily('12:00', 'UTC'), '2028-02-29T12:00:00.000Z')).toBe('2028-03-01T12:00:00.000Z');
      // Berlin is on CET (+01:00) in February.
      expect(next(daily('00:30', BERLIN), '2028-02-28T23:29:00.000Z')).toBe('2028-02-28T23:30:00.000Z');
      expect(next(daily('00:30', BERLIN), '2028-02-28T23:30:00.000Z')).toBe('2028-02-29T23:30:00.000Z');
    });
  });

  describe('Europe/Berlin, spring forward 2026-03-29 (02:00 CET → 03:00 CEST)', () => {
    const rule = daily('02:30', BERLIN);

    it('runs at 02:30 local on the day before (CET, +01:00)', () => {
      expect(next(rule, '2026-03-28T01:29:00.000Z')).toBe('2026-03-28T01:30:00.000Z');
    });

    it('is strictly after: exactly at the occurrence gives the next day, the skipped 02:30 → 03:00 CEST', () => {
      expect(next(rule, '2026-03-28T01:30:00.000Z')).toBe('2026-03-29T01:00:00.000Z');
      expect(next(rule, '2026-03-28T01:31:00.000Z')).toBe('2026-03-29T01:00:00.000Z');
    });

    it('computed the evening before the change', () => {
      expect(next(rule, '2026-03-28T20:00:00.000Z')).toBe('2026-03-29T01:00:00.000Z');
      expect(next(rule, '2026-03-28T22:59:59.000Z')).toBe('2026-03-29T01:00:00.000Z');
    });

    it('computed on the change night, before and at the transition', () => {
      expect(next(rule, '2026-03-29T00:30:00.000Z')).toBe('2026-03-29T01:00:00.000Z'); // 01:30 CET
      expect(next(rule, '2026-03-29T00:59:59.999Z')).toBe('2026-03-29T01:00:00.000Z');
      expect(next(rule, '2026-03-29T01:00:00.000Z')).toBe('2026-03-30T00:30:00.000Z'); // 02:30 CEST
      expect(next(rule, '2026-03-29T01:00:00.001Z')).toBe('2026-03-30T00:30:00.000Z');
    });

    it('does not shift by the gap length the way luxon fromObject does (02:30 → 03:30)', () => {
      expect(next(rule, '2026-03-29T00:00:00.000Z')).not.toBe('2026-03-29T01:30:00.000Z');
    });

    it('other times around the gap', () => {
      expect(next(daily('02:00', BERLIN), '2026-03-28T12:00:00.000Z')).toBe('2026-03-29T01:00:00.000Z');
      expect(next(daily('02:59', BERLIN), '2026-03-28T12:00:00.000Z')).toBe('2026-03-29T01:00:00.000Z');
      expect(next(daily('03:00', BERLIN), '2026-03-28T12:00:00.000Z')).toBe('2026-03-29T01:00:00.000Z');
      expect(next(daily('01:59', BERLIN), '2026-03-28T12:00:00.000Z')).toBe('2026-03-29T00:59:00.000Z');
      expect(next(daily('03:01', BERLIN), '2026-03-28T12:00:00.000Z')).toBe('2026-03-29T01:01:00.000Z');
      // 02:00 and 03:00 on the change day are the same instant; each runs once that day.
      expect(next(daily('03:00', BERLIN), '2026-03-29T01:00:00.000Z')).toBe('2026-03-30T01:00:00.000Z');
    });
  });

  describe('Europe/Berlin, fall back 2026-10-25 (03:00 CEST → 02:00 CET)', () => {
    const rule = daily('02:30', BERLIN);

    it('runs at 02:30 CEST the day before', () => {
      expect(next(rule, '2026-10-24T00:29:00.000Z')).toBe('2026-10-24T00:30:00.000Z');
      expect(next(rule, '2026-10-24T00:30:00.000Z')).toBe('2026-10-25T00:30:00.000Z');
    });

    it('runs the ambiguous 02:30 once, at its first occurrence (CEST, 00:30Z, not 01:30Z)', () => {
      expect(next(rule, '2026-10-24T18:00:00.000Z')).toBe('2026-10-25T00:30:00.000Z'); // evening before
      expect(next(rule, '2026-10-24T23:00:00.000Z')).toBe('2026-10-25T00:30:00.000Z'); // 01:00 CEST
      expect(next(rule, '2026-10-25T00:29:59.999Z')).toBe('2026-10-25T00:30:00.000Z');
    });

    it('after the first occurrence the next run is the following day, never the second 02:30', () => {
      expect(next(rule, '2026-10-25T00:30:00.000Z')).toBe('2026-10-26T01:30:00.000Z');
      expect(next(rule, '2026-10-25T00:31:00.000Z')).toBe('2026-10-26T01:30:00.000Z');
      expect(next(rule, '2026-10-25T01:00:00.000Z')).toBe('2026-10-26T01:30:00.000Z'); // 02:00 CET
      expect(next(rule, '2026-10-25T01:29:00.000Z')).toBe('2026-10-26T01:30:00.000Z');
      expect(next(rule, '2026-10-25T01:30:00.000Z')).toBe('2026-10-26T01:30:00.000Z'); // second 02:30
    });

    it('other times around the overlap', () => {
      expect(next(daily('02:00', BERLIN), '2026-10-24T12:00:00.000Z')).toBe('2026-10-25T00:00:00.000Z');
      expect(next(daily('02:59', BERLIN), '2026-10-24T12:00:00.000Z')).toBe('2026-10-25T00:59:00.000Z');
      expect(next(daily('03:00', BERLIN), '2026-10-24T12:00:00.000Z')).toBe('2026-10-25T02:00:00.000Z');
      expect(next(daily('01:59', BERLIN), '2026-10-24T12:00:00.000Z')).toBe('2026-10-24T23:59:00.000Z');
    });
  });

  describe('America/New_York, spring forward 2026-03-08 (02:00 EST → 03:00 EDT)', () => {
    const rule = daily('02:30', NEW_YORK);

    it('just before, exactly at and just after the occurrence of the day before', () => {
      expect(next(rule, '2026-03-07T07:29:00.000Z')).toBe('2026-03-07T07:30:00.000Z');
      expect(next(rule, '2026-03-07T07:30:00.000Z')).toBe('2026-03-08T07:00:00.000Z');
      expect(next(rule, '2026-03-07T07:30:00.001Z')).toBe('2026-03-08T07:00:00.000Z');
    });

    it('the skipped 02:30 runs at 03:00 EDT (07:00Z), also when computed the evening before', () => {
      expect(next(rule, '2026-03-08T02:00:00.000Z')).toBe('2026-03-08T07:00:00.000Z'); // 21:00 EST on the 7th
      expect(next(rule, '2026-03-08T06:59:00.000Z')).toBe('2026-03-08T07:00:00.000Z');
      expect(next(rule, '2026-03-08T07:00:00.000Z')).toBe('2026-03-09T06:30:00.000Z');
    });

    it('01:30 is unaffected by the gap', () => {
      expect(next(daily('01:30', NEW_YORK), '2026-03-08T00:00:00.000Z')).toBe('2026-03-08T06:30:00.000Z');
      expect(next(daily('01:30', NEW_YORK), '2026-03-08T06:30:00.000Z')).toBe('2026-03-09T05:30:00.000Z');
    });
  });

  describe('America/New_York, fall back 2026-11-01 (02:00 EDT → 01:00 EST)', () => {
    const rule = daily('01:30', NEW_YORK);

    it('runs the ambiguous 01:30 once, at its first occurrence (EDT, 05:30Z)', () => {
      expect(next(rule, '2026-11-01T01:00:00.000Z')).toBe('2026-11-01T05:30:00.000Z'); // evening before
      expect(next(rule, '2026-11-01T04:00:00.000Z')).toBe('2026-11-01T05:30:00.000Z'); // 00:00 EDT
      expect(next(rule, '2026-11-01T05:29:00.000Z')).toBe('2026-11-01T05:30:00.000Z');
    });

    it('then the next day at 01:30 EST (2 Nov 06:30Z), never the second 01:30 of 1 Nov', () => {
      expect(next(rule, '2026-11-01T05:30:00.000Z')).toBe('2026-11-02T06:30:00.000Z');
      expect(next(rule, '2026-11-01T05:31:00.000Z')).toBe('2026-11-02T06:30:00.000Z');
      expect(next(rule, '2026-11-01T06:00:00.000Z')).toBe('2026-11-02T06:30:00.000Z'); // 01:00 EST
      expect(next(rule, '2026-11-01T06:30:00.000Z')).toBe('2026-11-02T06:30:00.000Z');
    });

    it('the day before runs on EDT', () => {
      expect(next(rule, '2026-10-31T05:29:00.000Z')).toBe('2026-10-31T05:30:00.000Z');
      expect(next(rule, '2026-10-31T05:30:00.000Z')).toBe('2026-11-01T05:30:00.000Z');
    });

    it('02:30 exists once on the change day (EST)', () => {
      expect(next(daily('02:30', NEW_YORK), '2026-11-01T00:00:00.000Z')).toBe('2026-11-01T07:30:00.000Z');
      expect(next(daily('01:00', NEW_YORK), '2026-11-01T00:00:00.000Z')).toBe('2026-11-01T05:00:00.000Z');
      expect(next(daily('02:00', NEW_YORK), '2026-11-01T00:00:00.000Z')).toBe('2026-11-01T07:00:00.000Z');
    });
  });

  describe('Asia/Kolkata (+05:30, no DST)', () => {
    it('09:00 local is 03:30Z', () => {
      expect(next(daily('09:00', KOLKATA), '2026-06-01T00:00:00.000Z')).toBe('2026-06-01T03:30:00.000Z');
      expect(next(daily('09:00', KOLKATA), '2026-06-01T03:30:00.000Z')).toBe('2026-06-02T03:30:00.000Z');
      expect(next(daily('09:00', KOLKATA), '2026-03-29T03:29:00.000Z')).toBe('2026-03-29T03:30:00.000Z');
    });

    it('local midnight on New Year is the previous UTC day', () => {
      expect(next(daily('00:00', KOLKATA), '2026-12-31T18:29:00.000Z')).toBe('2026-12-31T18:30:00.000Z');
      expect(next(daily('00:00', KOLKATA), '2026-12-31T18:30:00.000Z')).toBe('2027-01-01T18:30:00.000Z');
      expect(next(daily('03:00', 'Asia/Calcutta'), '2026-12-31T22:00:00.000Z')).toBe('2027-01-01T21:30:00.000Z');
    });
  });
});

describe('nextRunAfter — weekly (0 = Sunday)', () => {
  it('Europe/Berlin Sunday 02:30 over the spring change day', () => {
    const rule = weekly('02:30', BERLIN, 0);
    expect(next(rule, '2026-03-22T01:29:00.000Z')).toBe('2026-03-22T01:30:00.000Z');
    expect(next(rule, '2026-03-22T01:30:00.000Z')).toBe('2026-03-29T01:00:00.000Z');
    expect(next(rule, '2026-03-28T20:00:00.000Z')).toBe('2026-03-29T01:00:00.000Z');
    expect(next(rule, '2026-03-29T01:00:00.000Z')).toBe('2026-04-05T00:30:00.000Z');
  });

  it('Europe/Berlin Sunday 02:30 over the fall change day: first occurrence only', () => {
    const rule = weekly('02:30', BERLIN, 0);
    expect(next(rule, '2026-10-20T00:00:00.000Z')).toBe('2026-10-25T00:30:00.000Z');
    expect(next(rule, '2026-10-25T00:30:00.000Z')).toBe('2026-11-01T01:30:00.000Z');
    expect(next(rule, '2026-10-25T01:00:00.000Z')).toBe('2026-11-01T01:30:00.000Z');
  });

  it('America/New_York Sunday 02:30 (spring) and 01:30 (fall)', () => {
    expect(next(weekly('02:30', NEW_YORK, 0), '2026-03-02T00:00:00.000Z')).toBe('2026-03-08T07:00:00.000Z');
    expect(next(weekly('02:30', NEW_YORK, 0), '2026-03-08T07:00:00.000Z')).toBe('2026-03-15T06:30:00.000Z');
    expect(next(weekly('01:30', NEW_YORK, 0), '2026-10-28T00:00:00.000Z')).toBe('2026-11-01T05:30:00.000Z');
    expect(next(weekly('01:30', NEW_YORK, 0), '2026-11-01T05:30:00.000Z')).toBe('2026-11-08T06:30:00.000Z');
    expect(next(weekly('01:30', NEW_YORK, 0), '2026-11-01T06:30:00.000Z')).toBe('2026-11-08T06:30:00.000Z');
  });

  it('picks the right weekday in the schedule zone, not in UTC', () => {
    // Monday 09:00 Berlin, asked on the Sunday of the spring change.
    expect(next(weekly('09:00', BERLIN, 1), '2026-03-29T12:00:00.000Z')).toBe('2026-03-30T07:00:00.000Z');
    // Monday 00:30 Kolkata is Sunday 19:00Z.
    expect(next(weekly('00:30', KOLKATA, 1), '2026-06-07T18:00:00.000Z')).toBe('2026-06-07T19:00:00.000Z');
    // Saturday 22:00 New York is Sunday 02:00Z (EDT).
    expect(next(weekly('22:00', NEW_YORK, 6), '2026-06-06T12:00:00.000Z')).toBe('2026-06-07T02:00:00.000Z');
  });

  it('same weekday: just before, exactly at, just after', () => {
    const rule = weekly('10:00', 'UTC', 3); // Wednesday
    expect(next(rule, '2026-07-01T09:59:59.999Z')).toBe('2026-07-01T10:00:00.000Z');
    expect(next(rule, '2026-07-01T10:00:00.000Z')).toBe('2026-07-08T10:00:00.000Z');
    expect(next(rule, '2026-07-01T10:00:00.001Z')).toBe('2026-07-08T10:00:00.000Z');
  });

  it('crosses year boundary and the leap day', () => {
    expect(next(weekly('23:59', 'UTC', 6), '2026-12-31T00:00:00.000Z')).toBe('2027-01-02T23:59:00.000Z');
    expect(next(weekly('08:00', BERLIN, 2), '2028-02-27T00:00:00.000Z')).toBe('2028-02-29T07:00:00.000Z');
    expect(next(weekly('08:00', BERLIN, 2), '2028-02-29T07:00:00.000Z')).toBe('2028-03-07T07:00:00.000Z');
  });

  it('requires a valid day_of_week', () => {
    expect(() => nextRunAfter({ frequency: 'weekly', time: '10:00', timezone: 'UTC' }, new Date())).toThrow(ValidationFailedError);
    expect(() => nextRunAfter(weekly('10:00', 'UTC', null as unknown as number), new Date())).toThrow(ValidationFailedError);
    expect(() => nextRunAfter(weekly('10:00', 'UTC', 7), new Date())).toThrow(ValidationFailedError);
    expect(() => nextRunAfter(weekly('10:00', 'UTC', 1.5), new Date())).toThrow(ValidationFailedError);
  });

  it('ignores day_of_week for daily', () => {
    const rule: ScheduleRule = { frequency: 'daily', time: '10:00', timezone: 'UTC', dayOfWeek: 3 };
    expect(next(rule, '2026-07-02T00:00:00.000Z')).toBe('2026-07-02T10:00:00.000Z');
  });
});

describe('nextRunAfter — hourly (minute of `time`, HH ignored)', () => {
  it('UTC: minute MM of every hour', () => {
    expect(next(hourly('00:15', 'UTC'), '2026-05-10T08:00:00.000Z')).toBe('2026-05-10T08:15:00.000Z');
    expect(next(hourly('23:15', 'UTC'), '2026-05-10T08:00:00.000Z')).toBe('2026-05-10T08:15:00.000Z');
    expect(next(hourly('00:15', 'UTC'), '2026-05-10T08:15:00.000Z')).toBe('2026-05-10T09:15:00.000Z');
    expect(next(hourly('00:15', 'UTC'), '2026-05-10T08:14:59.999Z')).toBe('2026-05-10T08:15:00.000Z');
    expect(next(hourly('00:15', 'UTC'), '2026-05-10T08:15:00.001Z')).toBe('2026-05-10T09:15:00.000Z');
    expect(next(hourly('00:00', 'UTC'), '2026-12-31T23:30:00.000Z')).toBe('2027-01-01T00:00:00.000Z');
  });

  it('Asia/Kolkata: local minute 00 is :30 UTC', () => {
    expect(next(hourly('00:00', KOLKATA), '2026-06-01T10:00:00.000Z')).toBe('2026-06-01T10:30:00.000Z');
    expect(next(hourly('17:00', KOLKATA), '2026-06-01T10:29:59.999Z')).toBe('2026-06-01T10:30:00.000Z');
    expect(next(hourly('00:00', KOLKATA), '2026-06-01T10:30:00.000Z')).toBe('2026-06-01T11:30:00.000Z');
    expect(next(hourly('09:15', KOLKATA), '2026-06-01T10:00:00.000Z')).toBe('2026-06-01T10:45:00.000Z');
    expect(next(hourly('00:45', KOLKATA), '2026-06-01T10:00:00.000Z')).toBe('2026-06-01T10:15:00.000Z');
    expect(next(hourly('00:45', KOLKATA), '2026-06-01T10:15:00.000Z')).toBe('2026-06-01T11:15:00.000Z');
  });

  it('Asia/Kathmandu (+05:45): local minute 00 is :15 UTC', () => {
    expect(next(hourly('00:00', 'Asia/Kathmandu'), '2026-06-01T10:00:00.000Z')).toBe('2026-06-01T10:15:00.000Z');
  });

  it('runs every real hour across DST changes', () => {
    const berlin = hourly('00:30', BERLIN);
    expect(next(berlin, '2026-03-29T00:30:00.000Z')).toBe('2026-03-29T01:30:00.000Z'); // 01:30 CET → 03:30 CEST
    expect(next(berlin, '2026-10-25T00:30:00.000Z')).toBe('2026-10-25T01:30:00.000Z'); // both 02:30s run
    const ny = hourly('00:30', NEW_YORK);
    expect(next(ny, '2026-11-01T05:30:00.000Z')).toBe('2026-11-01T06:30:00.000Z');
    expect(next(ny, '2026-03-08T06:30:00.000Z')).toBe('2026-03-08T07:30:00.000Z');
  });

  it('follows the local minute across a half-hour change (Australia/Lord_Howe, 2026-04-05 02:00 +11 → 01:30 +10:30)', () => {
    const rule = hourly('00:00', 'Australia/Lord_Howe');
    expect(next(rule, '2026-04-04T13:10:00.000Z')).toBe('2026-04-04T14:00:00.000Z'); // 01:00 +11:00
    expect(next(rule, '2026-04-04T14:10:00.000Z')).toBe('2026-04-04T15:30:00.000Z'); // 02:00 +10:30
    expect(next(rule, '2026-04-04T15:30:00.000Z')).toBe('2026-04-04T16:30:00.000Z');
  });
});

describe('nextRunAfter — every 5, 15 or 30 minutes (aligned to the clock in the zone; minutes of `time` mod the period)', () => {
  const every = (period: 5 | 15 | 30, time: string, timezone: string): ScheduleRule => ({ frequency: `every_${period}_minutes`, time, timezone });

  it('UTC: time 00:00 runs at :00, :05, … / :00, :15, … / :00, :30; strictly after, at whole minutes', () => {
    expect(next(every(5, '00:00', 'UTC'), '2026-05-10T08:00:00.000Z')).toBe('2026-05-10T08:05:00.000Z');
    expect(next(every(5, '00:00', 'UTC'), '2026-05-10T08:04:59.999Z')).toBe('2026-05-10T08:05:00.000Z');
    expect(next(every(5, '00:00', 'UTC'), '2026-05-10T08:05:00.001Z')).toBe('2026-05-10T08:10:00.000Z');
    expect(next(every(5, '00:00', 'UTC'), '2026-05-10T08:57:30.000Z')).toBe('2026-05-10T09:00:00.000Z');
    expect(next(every(15, '00:00', 'UTC'), '2026-05-10T08:00:00.000Z')).toBe('2026-05-10T08:15:00.000Z');
    expect(next(every(15, '00:00', 'UTC'), '2026-05-10T08:44:00.000Z')).toBe('2026-05-10T08:45:00.000Z');
    expect(next(every(15, '00:00', 'UTC'), '2026-12-31T23:45:00.000Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(next(every(30, '00:00', 'UTC'), '2026-05-10T08:00:00.000Z')).toBe('2026-05-10T08:30:00.000Z');
    expect(next(every(30, '00:00', 'UTC'), '2026-05-10T08:30:00.000Z')).toBe('2026-05-10T09:00:00.000Z');
  });

  it('the minutes of `time` shift the grid (mod the period); its hour is ignored', () => {
    expect(next(every(15, '00:05', 'UTC'), '2026-05-10T08:00:00.000Z')).toBe('2026-05-10T08:05:00.000Z');
    expect(next(every(15, '00:05', 'UTC'), '2026-05-10T08:05:00.000Z')).toBe('2026-05-10T08:20:00.000Z');
    expect(next(every(15, '17:50', 'UTC'), '2026-05-10T08:00:00.000Z')).toBe('2026-05-10T08:05:00.000Z'); // 50 mod 15 = 5
    expect(next(every(5, '00:07', 'UTC'), '2026-05-10T08:00:00.000Z')).toBe('2026-05-10T08:02:00.000Z'); // 7 mod 5 = 2
    expect(next(every(30, '09:45', 'UTC'), '2026-05-10T08:00:00.000Z')).toBe('2026-05-10T08:15:00.000Z');
    expect(next(every(30, '09:45', 'UTC'), '2026-05-10T08:15:00.000Z')).toBe('2026-05-10T08:45:00.000Z');
  });

  it('aligned to the local clock: Asia/Kathmandu (+05:45) every 30 minutes at :00/:30 local is :15/:45 UTC', () => {
    expect(next(every(30, '00:00', 'Asia/Kathmandu'), '2026-06-01T10:00:00.000Z')).toBe('2026-06-01T10:15:00.000Z');
    expect(next(every(30, '00:00', 'Asia/Kathmandu'), '2026-06-01T10:15:00.000Z')).toBe('2026-06-01T10:45:00.000Z');
    // A quarter-hour offset keeps the 5- and 15-minute grids on UTC's.
    expect(next(every(15, '00:00', 'Asia/Kathmandu'), '2026-06-01T10:01:00.000Z')).toBe('2026-06-01T10:15:00.000Z');
    expect(next(every(30, '00:00', KOLKATA), '2026-06-01T10:01:00.000Z')).toBe('2026-06-01T10:30:00.000Z'); // 16:00 IST
  });

  it('DST: the period apart in real time through the spring gap and both passes of the repeated hour', () => {
    const berlin = every(15, '00:00', BERLIN);
    // Spring forward 2026-03-29: 01:45 CET (00:45Z) → 03:00 CEST (01:00Z): 15 real minutes, no run lost or doubled.
    expect(next(berlin, '2026-03-29T00:45:00.000Z')).toBe('2026-03-29T01:00:00.000Z');
    // Fall back 2026-10-25: 02:45 CEST (00:45Z) → 02:00 CET (01:00Z): the repeated hour runs again, 15 minutes later.
    expect(next(berlin, '2026-10-25T00:45:00.000Z')).toBe('2026-10-25T01:00:00.000Z');
    const ny = every(30, '00:00', NEW_YORK);
    expect(next(ny, '2026-03-08T06:30:00.000Z')).toBe('2026-03-08T07:00:00.000Z'); // 01:30 EST → 03:00 EDT
    expect(next(ny, '2026-11-01T05:30:00.000Z')).toBe('2026-11-01T06:00:00.000Z'); // 01:30 EDT → 01:00 EST
  });

  it('follows the local grid across Lord Howe’s half-hour change (2026-04-05 02:00 +11 → 01:30 +10:30)', () => {
    const rule = every(15, '00:00', 'Australia/Lord_Howe');
    expect(next(rule, '2026-04-04T14:50:00.000Z')).toBe('2026-04-04T15:00:00.000Z'); // 01:30 +10:30, a quarter hour anyway
    const five = every(5, '00:00', 'Australia/Lord_Howe');
    expect(next(five, '2026-04-04T14:59:00.000Z')).toBe('2026-04-04T15:00:00.000Z');
  });

  it.each([
    [5, BERLIN],
    [15, NEW_YORK],
    [30, BERLIN],
    [15, 'Australia/Lord_Howe'],
  ] as const)('property: every %i minutes in %s, a chain over both 2026 changes is exactly that period apart, on the local grid', (period, zone) => {
    const rule = every(period, '00:00', zone);
    // Violations are collected and compared once: an expect per run costs more than the run itself.
    const wrong: string[] = [];
    for (const from of [
      '2026-03-07T20:00:00.000Z',
      '2026-03-28T20:00:00.000Z',
      '2026-04-04T10:00:00.000Z',
      '2026-10-24T20:00:00.000Z',
      '2026-10-31T20:00:00.000Z',
    ]) {
      let previous = nextRunAfter(rule, new Date(from));
      for (let i = 0; i < (24 * 60) / period; i++) {
        const run = nextRunAfter(rule, previous);
        if (run.getTime() - previous.getTime() !== period * 60_000) wrong.push(`gap after ${previous.toISOString()}: ${run.toISOString()}`);
        if (DateTime.fromJSDate(run, { zone }).minute % period !== 0) wrong.push(`off the local grid: ${run.toISOString()}`);
        if (run.getUTCSeconds() + run.getUTCMilliseconds() !== 0) wrong.push(`not a whole minute: ${run.toISOString()}`);
        previous = run;
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('nextRunAfter — invalid input', () => {
  it('rejects an unknown zone, a bad time, a bad frequency and an invalid date', () => {
    expect(() => nextRunAfter(daily('10:00', 'Mars/Olympus'), new Date())).toThrow(ValidationFailedError);
    expect(() => nextRunAfter(daily('24:00', 'UTC'), new Date())).toThrow(ValidationFailedError);
    expect(() => nextRunAfter({ frequency: 'monthly' as unknown as 'daily', time: '10:00', timezone: 'UTC' }, new Date())).toThrow(ValidationFailedError);
    expect(() => nextRunAfter(daily('10:00', 'UTC'), new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('defaultDayOfWeek', () => {
  it('is the weekday of `now` in the zone (0 = Sunday)', () => {
    // 2026-03-28T23:30Z is Saturday in UTC and New York, Sunday 00:30 in Berlin.
    const now = new Date('2026-03-28T23:30:00.000Z');
    expect(defaultDayOfWeek('UTC', now)).toBe(6);
    expect(defaultDayOfWeek(BERLIN, now)).toBe(0);
    expect(defaultDayOfWeek(NEW_YORK, now)).toBe(6);
    expect(defaultDayOfWeek('Pacific/Kiritimati', new Date('2026-03-29T10:00:00.000Z'))).toBe(1);
    expect(defaultDayOfWeek('Pacific/Pago_Pago', new Date('2026-03-30T10:00:00.000Z'))).toBe(0);
    expect(defaultDayOfWeek(KOLKATA, new Date('2028-02-29T12:00:00.000Z'))).toBe(2);
  });

  it('rejects an unknown zone', () => {
    expect(() => defaultDayOfWeek('Nowhere/Land', new Date())).toThrow(ValidationFailedError);
  });
});

describe('property: daily 02:30 chain over every day of 2026', () => {
  const cases: Array<{ zone: string; gapDay: string; overlapDay: string; summerOffset: number }> = [
    { zone: BERLIN, gapDay: '2026-03-29', overlapDay: '2026-10-25', summerOffset: 120 },
    { zone: NEW_YORK, gapDay: '2026-03-08', overlapDay: '2026-11-01', summerOffset: -240 },
  ];

  it.each(cases)('$zone: one run per calendar day, strictly increasing, at 02:30 (03:00 on the gap day)', ({ zone, gapDay, overlapDay, summerOffset }) => {
    const rule = daily('02:30', zone);
    const start = DateTime.fromISO('2026-01-01T00:00', { zone }).toJSDate();
    const end = DateTime.fromISO('2027-01-01T00:00', { zone }).toMillis();

    const runs: Date[] = [];
    const wrong: string[] = [];
    let after = start;
    for (;;) {
      const run = nextRunAfter(rule, after);
      if (run.getTime() <= after.getTime()) wrong.push(`not after ${after.toISOString()}: ${run.toISOString()}`);
      if (run.getTime() >= end) break;
      runs.push(run);
      after = run;
      if (runs.length > 400) throw new Error('runaway chain');
    }

    expect(runs).toHaveLength(365);
    let expectedDay = DateTime.fromISO('2026-01-01', { zone });
    for (const run of runs) {
      const local = DateTime.fromJSDate(run, { zone });
      const day = local.toISODate();
      const wallTime = `${String(local.hour).padStart(2, '0')}:${String(local.minute).padStart(2, '0')}`;
      if (day !== expectedDay.toISODate()) wrong.push(`${run.toISOString()} is on ${day}, expected ${expectedDay.toISODate()}`);
      if (local.second !== 0 || local.millisecond !== 0) wrong.push(`not a whole minute: ${run.toISOString()}`);
      if (wallTime !== (day === gapDay ? '03:00' : '02:30')) wrong.push(`${run.toISOString()} runs at ${wallTime} local`);
      if (day === overlapDay && zone === BERLIN && local.offset !== summerOffset) wrong.push(`${run.toISOString()} is not the first 02:30`);
      expectedDay = expectedDay.plus({ days: 1 });
    }
    expect(wrong).toEqual([]);
  });

  it.each(cases)('$zone: weekly Sunday 02:30 chain gives every Sunday of 2026 once', ({ zone, gapDay }) => {
    const rule = weekly('02:30', zone, 0);
    let after = DateTime.fromISO('2026-01-01T00:00', { zone }).toJSDate();
    const days: string[] = [];
    for (let i = 0; i < 52; i++) {
      const run = nextRunAfter(rule, after);
      const local = DateTime.fromJSDate(run, { zone });
      expect(local.weekday).toBe(7);
      expect(local.toFormat('HH:mm')).toBe(local.toISODate() === gapDay ? '03:00' : '02:30');
      days.push(local.toISODate() as string);
      after = run;
    }
    expect(days[0]).toBe('2026-01-04');
    expect(days[51]).toBe('2026-12-27');
    expect(new Set(days).size).toBe(52);
  });

  it('America/New_York: daily 01:30 runs once per day, on the summer offset on 1 November', () => {
    const rule = daily('01:30', NEW_YORK);
    let after = new Date('2026-10-30T00:00:00.000Z');
    const runs: string[] = [];
    for (let i = 0; i < 4; i++) {
      const run = nextRunAfter(rule, after);
      runs.push(run.toISOString());
      after = run;
    }
    expect(runs).toEqual(['2026-10-30T05:30:00.000Z', '2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });

  it.each([BERLIN, NEW_YORK, KOLKATA])('%s: hourly chain is exactly one hour apart through both 2026 changes', (zone) => {
    const rule = hourly('00:30', zone);
    const wrong: string[] = [];
    for (const from of ['2026-03-01T00:00:00.000Z', '2026-10-20T00:00:00.000Z']) {
      let previous = nextRunAfter(rule, new Date(from));
      for (let i = 0; i < 32 * 24; i++) {
        const run = nextRunAfter(rule, previous);
        if (run.getTime() - previous.getTime() !== 3_600_000) wrong.push(`gap after ${previous.toISOString()}: ${run.toISOString()}`);
        if (DateTime.fromJSDate(run, { zone }).minute !== 30) wrong.push(`not at local minute 30: ${run.toISOString()}`);
        previous = run;
      }
    }
    expect(wrong).toEqual([]);
  });
});
