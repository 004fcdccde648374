import { FREQUENCIES, isFrequency, minutePeriodOf, isValidDayOfWeek, isValidTime, isValidTimeZone, parseTime, scheduleRuleErrors } from './schedule-rules';

describe('schedule rules', () => {
  it('FREQUENCIES', () => {
    expect(FREQUENCIES).toEqual(['daily', 'weekly', 'hourly', 'every_5_minutes', 'every_15_minutes', 'every_30_minutes']);
    expect(isFrequency('every_15_minutes')).toBe(true);
    expect(isFrequency('every_10_minutes')).toBe(false);
    expect([minutePeriodOf('every_5_minutes'), minutePeriodOf('every_15_minutes'), minutePeriodOf('every_30_minutes'), minutePeriodOf('hourly')]).toEqual([
      5, 15, 30, 60,
    ]);
    expect([minutePeriodOf('daily'), minutePeriodOf('weekly')]).toEqual([null, null]);
    expect(isFrequency('daily')).toBe(true);
    expect(isFrequency('hourly')).toBe(true);
    expect(isFrequency('monthly')).toBe(false);
    expect(isFrequency('Daily')).toBe(false);
    expect(isFrequency(undefined)).toBe(false);
  });

  it.each(['00:00', '07:05', '09:00', '12:59', '19:30', '23:59'])('isValidTime(%p) is true', (time) => {
    expect(isValidTime(time)).toBe(true);
  });

  it.each(['25:00', '24:00', '7:5', '7:05', '07:5', '12:60', ' 07:00', '07:00 ', '07:00:00', '0700', '', '07-00', 'ab:cd', '０７:００'])(
    'isValidTime(%p) is false',
    (time) => {
      expect(isValidTime(time)).toBe(false);
    },
  );

  it('isValidTime refuses non-strings', () => {
    expect(isValidTime(700)).toBe(false);
    expect(isValidTime(null)).toBe(false);
  });

  it('parseTime', () => {
    expect(parseTime('07:05')).toEqual({ hour: 7, minute: 5 });
    expect(parseTime('23:59')).toEqual({ hour: 23, minute: 59 });
    expect(() => parseTime('24:00')).toThrow(RangeError);
  });

  it.each([
    'UTC',
    'Etc/UTC',
    'GMT',
    'Europe/Berlin',
    'America/New_York',
    'Asia/Kolkata',
    'Asia/Calcutta',
    'Asia/Kathmandu',
    'America/Argentina/Buenos_Aires',
    'America/Port-au-Prince',
    'US/Eastern',
    'Etc/GMT-2',
  ])('isValidTimeZone(%p) is true', (tz) => {
    expect(isValidTimeZone(tz)).toBe(true);
  });

  it.each([
    'Mars/Olympus',
    'Berlin',
    '',
    ' UTC',
    'UTC ',
    'utc',
    'europe/berlin',
    'EUROPE/BERLIN',
    'GMT+2',
    'UTC+2',
    'UTC+02:00',
    '+02:00',
    '-05:00',
    'Z',
    'local',
    'Factory',
    'Europe/Berlin/',
    '../etc/passwd',
  ])('isValidTimeZone(%p) is false', (tz) => {
    expect(isValidTimeZone(tz)).toBe(false);
  });

  it('isValidTimeZone refuses non-strings and absurd lengths', () => {
    expect(isValidTimeZone(undefined)).toBe(false);
    expect(isValidTimeZone(2)).toBe(false);
    expect(isValidTimeZone('A'.repeat(65))).toBe(false);
  });

  it('isValidDayOfWeek: integers 0..6 (0 = Sunday)', () => {
    for (let d = 0; d <= 6; d++) expect(isValidDayOfWeek(d)).toBe(true);
    for (const d of [-1, 7, 1.5, Number.NaN, '1', null, undefined]) expect(isValidDayOfWeek(d)).toBe(false);
  });

  it('scheduleRuleErrors reports every bad field in wire names', () => {
    expect(scheduleRuleErrors({ frequency: 'daily', time: '09:00', timezone: 'UTC' })).toEqual([]);
    expect(scheduleRuleErrors({ frequency: 'weekly', time: '09:00', timezone: 'UTC', dayOfWeek: null })).toEqual([]);
    expect(scheduleRuleErrors({ frequency: 'yearly', time: '9:00', timezone: 'Berlin', dayOfWeek: 7 }).map((e) => e.field)).toEqual([
      'frequency',
      'time',
      'timezone',
      'day_of_week',
    ]);
  });
});
