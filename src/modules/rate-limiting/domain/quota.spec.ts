import { decide, RateLimitExceededError, windowAt } from './quota';

describe('quota windows and decisions', () => {
  it('windows are calendar-aligned: 1:00:05 belongs to the minute ending 1:01:00 and the hour ending 2:00:00', () => {
    const now = new Date('2026-11-22T01:00:05Z');
    expect(windowAt('minute', now)).toEqual({ kind: 'minute', start: new Date('2026-11-22T01:00:00Z'), end: new Date('2026-11-22T01:01:00Z') });
    expect(windowAt('hour', now).end).toEqual(new Date('2026-11-22T02:00:00Z'));
    expect(windowAt('minute', new Date('2026-11-22T01:00:59.999Z')).end).toEqual(new Date('2026-11-22T01:01:00Z'));
    expect(windowAt('minute', new Date('2026-11-22T01:01:00Z')).end).toEqual(new Date('2026-11-22T01:02:00Z'));
  });

  const limits = { perMinute: 5, perHour: 300 };
  const now = new Date('2026-11-22T01:00:05Z');

  it('allows up to the limit and counts remaining down', () => {
    expect(decide(limits, { minute: 1, hour: 1 }, now)).toMatchObject({
      allowed: true,
      limit: 5,
      remaining: 4,
      reset: Date.parse('2026-11-22T01:01:00Z') / 1000,
    });
    expect(decide(limits, { minute: 5, hour: 5 }, now)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('refuses past the minute limit with remaining 0', () => {
    const d = decide(limits, { minute: 6, hour: 5 }, now);
    expect(d).toMatchObject({ allowed: false, remaining: 0 });
    expect(d.exceeded).toMatchObject({ limit: 5, current: 6 });
    expect(d.exceeded?.window.kind).toBe('minute');
  });

  it('refuses past the hour limit and points the reset to the end of the hour', () => {
    const d = decide(limits, { minute: 1, hour: 301 }, now);
    expect(d.exceeded?.window.kind).toBe('hour');
    expect(d.reset).toBe(Date.parse('2026-11-22T02:00:00Z') / 1000);
  });

  it('the error carries the spec body fields and a Retry-After', () => {
    const err = new RateLimitExceededError(windowAt('minute', now), 5, 6);
    expect(err.extra).toEqual({ message: 'Rate limit of 5 requests per minute exceeded', limit: 5, current: 6, reset_at: '2026-11-22T01:01:00.000Z' });
    expect(err.retryAfterSeconds(now)).toBe(55);
  });
});
