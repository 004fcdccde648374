import { runSession, sessionOfRun } from './scenario';

/** Which saved session a scenario run starts with (issue 44): the schedule's, else the scenario's, else the website's. */
describe('a scenario run’s saved session', () => {
  it('runSession: the asker’s (a schedule’s) wins the scenario’s', () => {
    expect(runSession(3, 7)).toEqual({ sessionId: 3 });
    expect(runSession(3, null)).toEqual({ sessionId: 3 });
  });

  it('runSession: the scenario’s when the asker names none', () => {
    expect(runSession(null, 7)).toEqual({ sessionId: 7 });
  });

  it('runSession: neither names one → nothing in the job (the website’s is read when the run starts)', () => {
    expect(runSession(null, null)).toEqual({});
  });

  it('sessionOfRun: the job’s, else the website’s capture_options session_id, else none', () => {
    expect(sessionOfRun(3, 9)).toBe(3);
    expect(sessionOfRun(undefined, 9)).toBe(9);
    expect(sessionOfRun(undefined, undefined)).toBeUndefined();
  });
});
