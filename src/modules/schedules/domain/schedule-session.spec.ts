import { Schedule } from './schedule';

/** A schedule's own saved session (session_id, issue 44): kept as given, changed by an update, none by default. */
describe('Schedule session_id', () => {
  const now = new Date('2026-05-01T08:00:00.000Z');
  const create = (sessionId?: number | null) =>
    Schedule.create({ accountId: 1, websiteId: 2, name: 'Nightly', frequency: 'daily', time: '09:00', timezone: 'UTC', sessionId }, now);

  it('is null by default: runs take the scenario’s or the website’s session', () => {
    expect(create().sessionId).toBeNull();
    expect(create(null).sessionId).toBeNull();
    expect(create().runSessionId()).toBeUndefined();
  });

  it('is kept as given, and named by its runs', () => {
    const s = create(5);
    expect(s.sessionId).toBe(5);
    expect(s.runSessionId()).toBe(5);
  });

  it('an update sets it, clears it with null, and keeps it when not sent', () => {
    const s = create(5);
    expect(s.update({ name: 'Renamed' }, now).sessionId).toBe(5);
    expect(s.update({ sessionId: 6 }, now).sessionId).toBe(6);
    expect(s.update({ sessionId: null }, now).runSessionId()).toBeUndefined();
  });

  it('changing it alone keeps next_run_at (it is not part of the timing)', () => {
    const s = create(null);
    const later = new Date(now.getTime() + 3_600_000);
    expect(s.update({ sessionId: 3 }, later).nextRunAt).toEqual(s.nextRunAt);
  });
});
