import { ValidationFailedError } from '../../../shared/domain/domain-error';
import {
  advanceAfterFiring,
  computeNextRun,
  createSchedule,
  CreateScheduleInput,
  isDue,
  NewSchedule,
  recordFiredJob,
  ScheduleProps,
  updateSchedule,
} from './schedule';

const input = (overrides: Partial<CreateScheduleInput> = {}): CreateScheduleInput => ({
  accountId: 1,
  websiteId: 2,
  name: 'Homepage',
  frequency: 'daily',
  time: '09:00',
  timezone: 'Europe/Berlin',
  ...overrides,
});

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

describe('Schedule', () => {
  const created = new Date('2026-03-28T23:30:00.000Z'); // Sunday 00:30 in Berlin, Saturday in UTC

  it('createSchedule: enabled by default, next run computed, no run yet', () => {
    const s = createSchedule(input(), created);
    expect(s.enabled).toBe(true);
    expect(iso(s.nextRunAt)).toBe('2026-03-29T07:00:00.000Z');
    expect(s.lastRunAt).toBeNull();
    expect(s.lastJobId).toBeNull();
    expect(s.dayOfWeek).toBeNull();
    expect(s.createdAt).toBe(created);
    expect(s.updatedAt).toBe(created);
  });

  it('createSchedule: weekly defaults day_of_week to the weekday of creation in the zone', () => {
    expect(createSchedule(input({ frequency: 'weekly' }), created).dayOfWeek).toBe(0);
    expect(createSchedule(input({ frequency: 'weekly', timezone: 'UTC' }), created).dayOfWeek).toBe(6);
    const s = createSchedule(input({ frequency: 'weekly', dayOfWeek: 3 }), created);
    expect(s.dayOfWeek).toBe(3);
    expect(iso(s.nextRunAt)).toBe('2026-04-01T07:00:00.000Z');
  });

  it('createSchedule: disabled has no next run', () => {
    expect(createSchedule(input({ enabled: false }), created).nextRunAt).toBeNull();
  });

  it('createSchedule: validation errors name every bad field', () => {
    try {
      createSchedule(input({ name: ' ', time: '25:00', timezone: 'UTC+2' }), created);
      throw new Error('expected a validation error');
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationFailedError);
      expect((e as ValidationFailedError).details.map((d) => d.field)).toEqual(['name', 'time', 'timezone']);
    }
  });

  it('computeNextRun is null when disabled', () => {
    const timing = { enabled: false, frequency: 'daily' as const, time: '09:00', timezone: 'UTC', dayOfWeek: null };
    expect(computeNextRun(timing, created)).toBeNull();
    expect(iso(computeNextRun({ ...timing, enabled: true }, created))).toBe('2026-03-29T09:00:00.000Z');
  });

  describe('firing', () => {
    const base: ScheduleProps = {
      id: 5,
      ...createSchedule(input({ timezone: 'UTC' }), new Date('2026-05-01T00:00:00.000Z')),
    };

    it('isDue at and after next_run_at, only when enabled', () => {
      expect(iso(base.nextRunAt)).toBe('2026-05-01T09:00:00.000Z');
      expect(isDue(base, new Date('2026-05-01T08:59:59.999Z'))).toBe(false);
      expect(isDue(base, new Date('2026-05-01T09:00:00.000Z'))).toBe(true);
      expect(isDue(base, new Date('2026-05-03T00:00:00.000Z'))).toBe(true);
      expect(isDue({ ...base, enabled: false }, new Date('2026-05-03T00:00:00.000Z'))).toBe(false);
      expect(isDue({ ...base, nextRunAt: null }, new Date('2026-05-03T00:00:00.000Z'))).toBe(false);
    });

    it('on time: advances to the next occurrence', () => {
      const now = new Date('2026-05-01T09:00:00.200Z');
      const fired = advanceAfterFiring(base, now);
      expect(iso(fired.nextRunAt)).toBe('2026-05-02T09:00:00.000Z');
      expect(fired.lastRunAt).toBe(now);
      expect(fired.updatedAt).toBe(now);
      expect(fired.id).toBe(5);
      expect(base.lastRunAt).toBeNull(); // not mutated
    });

    it('after downtime: fires once for everything missed, then continues on its rhythm', () => {
      const now = new Date('2026-05-04T12:00:00.000Z'); // missed the 1st..4th
      expect(isDue(base, now)).toBe(true);
      const fired = advanceAfterFiring(base, now);
      expect(iso(fired.nextRunAt)).toBe('2026-05-05T09:00:00.000Z');
      expect(isDue(fired, now)).toBe(false);
    });

    it('recordFiredJob sets last_job_id', () => {
      const fired = recordFiredJob(advanceAfterFiring(base, new Date('2026-05-01T09:00:00.000Z')), 'job-123');
      expect(fired.lastJobId).toBe('job-123');
    });
  });

  describe('updateSchedule', () => {
    const s: NewSchedule = createSchedule(input(), created);
    const later = new Date('2026-04-10T12:00:00.000Z');

    it('a rename keeps a due next_run_at: the occurrence not fired yet still fires once (API.md, missed occurrences)', () => {
      // s is due since 2026-03-29T07:00Z and has not fired (the service was down): `later` is days after it.
      const u = updateSchedule(s, { name: 'Renamed' }, later);
      expect(u.name).toBe('Renamed');
      expect(iso(u.nextRunAt)).toBe('2026-03-29T07:00:00.000Z');
      expect(isDue(u, later)).toBe(true);
      expect(u.updatedAt).toBe(later);
      expect(u.createdAt).toBe(created);
    });

    it('changes that leave the rule alone keep next_run_at: website, an echo of every field, enabling an enabled schedule', () => {
      expect(iso(updateSchedule(s, { websiteId: 9 }, later).nextRunAt)).toBe('2026-03-29T07:00:00.000Z');
      const echo = {
        name: s.name,
        websiteId: s.websiteId,
        frequency: s.frequency,
        time: s.time,
        timezone: s.timezone,
        dayOfWeek: s.dayOfWeek,
        enabled: s.enabled,
      };
      expect(updateSchedule(s, echo, later)).toEqual({ ...s, updatedAt: later });
      expect(iso(updateSchedule(s, { enabled: true }, later).nextRunAt)).toBe('2026-03-29T07:00:00.000Z');
      const weekly = createSchedule(input({ frequency: 'weekly', dayOfWeek: 3 }), created);
      expect(updateSchedule(weekly, { frequency: 'weekly', dayOfWeek: 3, time: '09:00', timezone: 'Europe/Berlin' }, later).nextRunAt).toBe(weekly.nextRunAt);
    });

    it('a change of frequency, time, timezone or day_of_week recomputes next_run_at from now', () => {
      // later is Friday 14:00 CEST.
      expect(iso(updateSchedule(s, { time: '13:00' }, later).nextRunAt)).toBe('2026-04-11T11:00:00.000Z'); // today's 13:00 has passed
      expect(iso(updateSchedule(s, { time: '15:00' }, later).nextRunAt)).toBe('2026-04-10T13:00:00.000Z');
      expect(iso(updateSchedule(s, { timezone: 'UTC' }, later).nextRunAt)).toBe('2026-04-11T09:00:00.000Z');
      expect(iso(updateSchedule(s, { frequency: 'hourly' }, later).nextRunAt)).toBe('2026-04-10T13:00:00.000Z');
      const weekly = createSchedule(input({ frequency: 'weekly', dayOfWeek: 3 }), created);
      expect(iso(updateSchedule(weekly, { dayOfWeek: 5 }, later).nextRunAt)).toBe('2026-04-17T07:00:00.000Z'); // next Friday 09:00 CEST
    });

    it('disable clears next_run_at, enable sets it again from now', () => {
      const off = updateSchedule(s, { enabled: false }, later);
      expect(off.nextRunAt).toBeNull();
      expect(updateSchedule(off, { enabled: false }, later).nextRunAt).toBeNull();
      expect(updateSchedule(off, { name: 'Still off', time: '10:00' }, later).nextRunAt).toBeNull();
      const on = updateSchedule(off, { enabled: true }, later);
      expect(iso(on.nextRunAt)).toBe('2026-04-11T07:00:00.000Z');
    });

    it('switching to weekly without a day uses the weekday of creation in the zone', () => {
      const u = updateSchedule(s, { frequency: 'weekly' }, later);
      expect(u.dayOfWeek).toBe(0);
      expect(iso(u.nextRunAt)).toBe('2026-04-12T07:00:00.000Z');
    });

    it('rejects invalid changes', () => {
      expect(() => updateSchedule(s, { timezone: '+02:00' }, later)).toThrow(ValidationFailedError);
      expect(() => updateSchedule(s, { dayOfWeek: 9 }, later)).toThrow(ValidationFailedError);
    });
  });
});
