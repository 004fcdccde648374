import { monitorFieldErrors, monitorScheduleName, monitorTiming, parseEvery } from './monitor';

describe('monitor rules', () => {
  it('every: the short words, or the schedules’ frequency names; anything else is null', () => {
    expect(['5m', '15m', '30m', '1h', '1d', '1w'].map(parseEvery)).toEqual(['5m', '15m', '30m', '1h', '1d', '1w']);
    expect(['every_5_minutes', 'every_15_minutes', 'every_30_minutes', 'hourly', 'daily', 'weekly'].map(parseEvery)).toEqual([
      '5m',
      '15m',
      '30m',
      '1h',
      '1d',
      '1w',
    ]);
    expect(['', '1H', '10m', 'monthly', ' 1h', 'every_7_minutes', 5, null, undefined, ['1h']].map(parseEvery)).toEqual(Array(10).fill(null));
  });

  it('field errors name monitor.every and monitor.channel_ids', () => {
    expect(monitorFieldErrors({ every: '1h', channelIds: [1, 2] })).toEqual([]);
    expect(monitorFieldErrors({ every: 'often', channelIds: Array.from({ length: 21 }, (_, i) => i + 1) }).map((e) => e.field)).toEqual([
      'monitor.every',
      'monitor.channel_ids',
    ]);
  });

  it('timing: from the minute it is made, in UTC — the minute of the hour within a day, the time of day, the weekday too', () => {
    const now = new Date('2030-03-06T17:42:59.900Z'); // a Wednesday
    expect(monitorTiming('5m', now)).toEqual({ frequency: 'every_5_minutes', time: '00:42', timezone: 'UTC', dayOfWeek: null });
    expect(monitorTiming('1h', now)).toEqual({ frequency: 'hourly', time: '00:42', timezone: 'UTC', dayOfWeek: null });
    expect(monitorTiming('1d', now)).toEqual({ frequency: 'daily', time: '17:42', timezone: 'UTC', dayOfWeek: null });
    expect(monitorTiming('1w', now)).toEqual({ frequency: 'weekly', time: '17:42', timezone: 'UTC', dayOfWeek: 3 });
  });

  it('the schedule’s name says it is a monitor and fits the 255 characters of a name', () => {
    expect(monitorScheduleName('Pricing')).toBe('Monitor: Pricing');
    expect(monitorScheduleName('x'.repeat(255))).toHaveLength(255);
  });
});
