import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { CreateScheduleInput, Schedule, ScheduleProps } from './schedule';

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

  it('Schedule.create: enabled by default, next run computed, no run yet', () => {
    const s = Schedule.create(input(), created).props;
    expect(s.enabled).toBe(true);
    expect(iso(s.nextRunAt)).toBe('2026-03-29T07:00:00.000Z');
    expect(s.lastRunAt).toBeNull();
    expect(s.lastJobId).toBeNull();
    expect(s.dayOfWeek).toBeNull();
    expect(s.scenarioId).toBeNull(); // captures its website unless it names a scenario
    expect(s.createdAt).toBe(created);
    expect(s.updatedAt).toBe(created);
  });

  it('Schedule.create: weekly defaults day_of_week to the weekday of creation in the zone', () => {
    expect(Schedule.create(input({ frequency: 'weekly' }), created).props.dayOfWeek).toBe(0);
    expect(Schedule.create(input({ frequency: 'weekly', timezone: 'UTC' }), created).props.dayOfWeek).toBe(6);
    const s = Schedule.create(input({ frequency: 'weekly', dayOfWeek: 3 }), created).props;
    expect(s.dayOfWeek).toBe(3);
    expect(iso(s.nextRunAt)).toBe('2026-04-01T07:00:00.000Z');
  });

  it('Schedule.create: disabled has no next run', () => {
    expect(Schedule.create(input({ enabled: false }), created).nextRunAt).toBeNull();
  });

  it('Schedule.create: validation errors name every bad field', () => {
    try {
      Schedule.create(input({ name: ' ', time: '25:00', timezone: 'UTC+2' }), created);
      throw new Error('expected a validation error');
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationFailedError);
      expect((e as ValidationFailedError).details.map((d) => d.field)).toEqual(['name', 'time', 'timezone']);
    }
  });

  it('nextRunAfter is null when disabled', () => {
    const daily = { frequency: 'daily' as const, time: '09:00', timezone: 'UTC' };
    expect(Schedule.create(input({ ...daily, enabled: false }), created).nextRunAfter(created)).toBeNull();
    expect(iso(Schedule.create(input({ ...daily, enabled: true }), created).nextRunAfter(created))).toBe('2026-03-29T09:00:00.000Z');
  });

  describe('firing', () => {
    const base: ScheduleProps = {
      id: 5,
      ...Schedule.create(input({ timezone: 'UTC' }), new Date('2026-05-01T00:00:00.000Z')).props,
    };

    it('isDue at and after next_run_at, only when enabled', () => {
      expect(iso(base.nextRunAt)).toBe('2026-05-01T09:00:00.000Z');
      expect(Schedule.restore(base).isDue(new Date('2026-05-01T08:59:59.999Z'))).toBe(false);
      expect(Schedule.restore(base).isDue(new Date('2026-05-01T09:00:00.000Z'))).toBe(true);
      expect(Schedule.restore(base).isDue(new Date('2026-05-03T00:00:00.000Z'))).toBe(true);
      expect(Schedule.restore({ ...base, enabled: false }).isDue(new Date('2026-05-03T00:00:00.000Z'))).toBe(false);
      expect(Schedule.restore({ ...base, nextRunAt: null }).isDue(new Date('2026-05-03T00:00:00.000Z'))).toBe(false);
    });

    it('on time: advances to the next occurrence', () => {
      const now = new Date('2026-05-01T09:00:00.200Z');
      const fired = Schedule.restore(base).fire(now);
      expect(iso(fired.nextRunAt)).toBe('2026-05-02T09:00:00.000Z');
      expect(fired.lastRunAt).toBe(now);
      expect(fired.updatedAt).toBe(now);
      expect(fired.id).toBe(5);
      expect(base.lastRunAt).toBeNull(); // not mutated
    });

    it('after downtime: fires once for everything missed, then continues on its rhythm', () => {
      const now = new Date('2026-05-04T12:00:00.000Z'); // missed the 1st..4th
      expect(Schedule.restore(base).isDue(now)).toBe(true);
      const fired = Schedule.restore(base).fire(now);
      expect(iso(fired.nextRunAt)).toBe('2026-05-05T09:00:00.000Z');
      expect(fired.isDue(now)).toBe(false);
    });

    it('ranJob sets last_job_id', () => {
      const fired = Schedule.restore(base).fire(new Date('2026-05-01T09:00:00.000Z')).ranJob('job-123');
      expect(fired.props.lastJobId).toBe('job-123');
    });

    it('fire leaves last_job_id for ranJob, and ranJob changes nothing else', () => {
      const now = new Date('2026-05-01T09:00:00.200Z');
      const previous = Schedule.restore({ ...base, lastJobId: 'job-1' });
      const fired = previous.fire(now);
      expect(fired.lastJobId).toBe('job-1');
      const ran = fired.ranJob('job-2');
      expect(ran.props).toEqual({ ...fired.props, lastJobId: 'job-2' });
      expect(fired.lastJobId).toBe('job-1'); // not mutated
      expect(previous.props).toEqual({ ...base, lastJobId: 'job-1' }); // not mutated
    });

    it('fire keeps the invariant that a disabled schedule has no next run', () => {
      const now = new Date('2026-05-01T09:00:00.200Z');
      const fired = Schedule.restore({ ...base, enabled: false }).fire(now);
      expect(fired.nextRunAt).toBeNull();
      expect(fired.lastRunAt).toBe(now);
    });
  });

  describe('stored and new schedules', () => {
    const stored: ScheduleProps = {
      id: 5,
      ...Schedule.create(input({ frequency: 'weekly', dayOfWeek: 2 }), created).props,
      lastRunAt: new Date('2026-03-31T07:00:00.000Z'),
      lastJobId: 'job-9',
    };

    it('restore keeps every stored field, readable on the entity', () => {
      const s = Schedule.restore(stored);
      expect(s.props).toEqual(stored);
      expect({
        id: s.id,
        accountId: s.accountId,
        websiteId: s.websiteId,
        scenarioId: s.scenarioId,
        sessionId: s.sessionId,
        name: s.name,
        frequency: s.frequency,
        time: s.time,
        timezone: s.timezone,
        dayOfWeek: s.dayOfWeek,
        enabled: s.enabled,
        nextRunAt: s.nextRunAt,
        lastRunAt: s.lastRunAt,
        lastJobId: s.lastJobId,
        createdAt: s.createdAt,
        updatedAt: s.updatedAt,
      }).toEqual(stored);
    });

    it('restore copies what it is given: changing the stored object afterwards does not change the entity', () => {
      const props = { ...stored };
      const s = Schedule.restore(props);
      props.name = 'Changed behind its back';
      expect(s.name).toBe('Homepage');
    });

    it('a created schedule has no id until the repository stores it', () => {
      const s = Schedule.create(input(), created);
      expect(s.props.id).toBeUndefined();
      expect(() => s.id).toThrow('a schedule has no id until it is stored');
    });

    it('nextRunAfter follows the current rule: weekly on its day in its zone, hourly at its minute', () => {
      const s = Schedule.restore(stored); // Tuesdays 09:00 Berlin
      expect(iso(s.nextRunAfter(new Date('2026-04-01T00:00:00.000Z')))).toBe('2026-04-07T07:00:00.000Z');
      const hourly = Schedule.restore({ ...stored, frequency: 'hourly', time: '00:15', dayOfWeek: null });
      expect(iso(hourly.nextRunAfter(new Date('2026-04-01T10:15:00.000Z')))).toBe('2026-04-01T11:15:00.000Z');
      expect(iso(hourly.nextRunAfter(new Date('2026-04-01T10:14:59.999Z')))).toBe('2026-04-01T10:15:00.000Z');
    });
  });

  describe('update', () => {
    const s = Schedule.create(input(), created);
    const later = new Date('2026-04-10T12:00:00.000Z');

    it('a rename keeps a due next_run_at: the occurrence not fired yet still fires once (API.md, missed occurrences)', () => {
      // s is due since 2026-03-29T07:00Z and has not fired (the service was down): `later` is days after it.
      const u = s.update({ name: 'Renamed' }, later);
      expect(u.props.name).toBe('Renamed');
      expect(iso(u.nextRunAt)).toBe('2026-03-29T07:00:00.000Z');
      expect(u.isDue(later)).toBe(true);
      expect(u.props.updatedAt).toBe(later);
      expect(u.props.createdAt).toBe(created);
    });

    it('changes that leave the rule alone keep next_run_at: website, an echo of every field, enabling an enabled schedule', () => {
      expect(iso(s.update({ websiteId: 9 }, later).nextRunAt)).toBe('2026-03-29T07:00:00.000Z');
      const echo = {
        name: s.props.name,
        websiteId: s.props.websiteId,
        frequency: s.props.frequency,
        time: s.props.time,
        timezone: s.props.timezone,
        dayOfWeek: s.props.dayOfWeek,
        enabled: s.props.enabled,
      };
      expect(s.update(echo, later).props).toEqual({ ...s.props, updatedAt: later });
      expect(iso(s.update({ enabled: true }, later).nextRunAt)).toBe('2026-03-29T07:00:00.000Z');
      const weekly = Schedule.create(input({ frequency: 'weekly', dayOfWeek: 3 }), created);
      expect(weekly.update({ frequency: 'weekly', dayOfWeek: 3, time: '09:00', timezone: 'Europe/Berlin' }, later).nextRunAt).toBe(weekly.nextRunAt);
    });

    it('a change of frequency, time, timezone or day_of_week recomputes next_run_at from now', () => {
      // later is Friday 14:00 CEST.
      expect(iso(s.update({ time: '13:00' }, later).nextRunAt)).toBe('2026-04-11T11:00:00.000Z'); // today's 13:00 has passed
      expect(iso(s.update({ time: '15:00' }, later).nextRunAt)).toBe('2026-04-10T13:00:00.000Z');
      expect(iso(s.update({ timezone: 'UTC' }, later).nextRunAt)).toBe('2026-04-11T09:00:00.000Z');
      expect(iso(s.update({ frequency: 'hourly' }, later).nextRunAt)).toBe('2026-04-10T13:00:00.000Z');
      const weekly = Schedule.create(input({ frequency: 'weekly', dayOfWeek: 3 }), created);
      expect(iso(weekly.update({ dayOfWeek: 5 }, later).nextRunAt)).toBe('2026-04-17T07:00:00.000Z'); // next Friday 09:00 CEST
    });

    it('disable clears next_run_at, enable sets it again from now', () => {
      const off = s.update({ enabled: false }, later);
      expect(off.nextRunAt).toBeNull();
      expect(off.update({ enabled: false }, later).nextRunAt).toBeNull();
      expect(off.update({ name: 'Still off', time: '10:00' }, later).nextRunAt).toBeNull();
      const on = off.update({ enabled: true }, later);
      expect(iso(on.nextRunAt)).toBe('2026-04-11T07:00:00.000Z');
    });

    it('switching to weekly without a day uses the weekday of creation in the zone', () => {
      const u = s.update({ frequency: 'weekly' }, later);
      expect(u.props.dayOfWeek).toBe(0);
      expect(iso(u.nextRunAt)).toBe('2026-04-12T07:00:00.000Z');
    });

    it('returns the schedule as it is afterwards and leaves the one it was called on (and its id) as it was', () => {
      const stored = Schedule.restore({ id: 8, ...s.props });
      const before = { ...stored.props };
      const u = stored.update({ name: 'Renamed', time: '15:00' }, later);
      expect(u).not.toBe(stored);
      expect(u.id).toBe(8);
      expect(u.name).toBe('Renamed');
      expect(stored.props).toEqual(before);
    });

    it('rejects invalid changes', () => {
      expect(() => s.update({ timezone: '+02:00' }, later)).toThrow(ValidationFailedError);
      expect(() => s.update({ dayOfWeek: 9 }, later)).toThrow(ValidationFailedError);
    });
  });

  describe('a scenario target', () => {
    it('is kept as given on create, and an update can set it, move it, or clear it (null) without touching the timing', () => {
      const s = Schedule.create(input({ scenarioId: 7, timezone: 'UTC' }), created);
      expect(s.scenarioId).toBe(7);
      const later = new Date('2026-03-29T05:00:00.000Z');
      const moved = s.update({ scenarioId: 8, websiteId: 3 }, later);
      expect(moved.props).toMatchObject({ scenarioId: 8, websiteId: 3, nextRunAt: s.nextRunAt });
      expect(moved.update({ scenarioId: null }, later).scenarioId).toBeNull();
      expect(moved.update({ name: 'Renamed' }, later).scenarioId).toBe(8);
    });
  });
});
