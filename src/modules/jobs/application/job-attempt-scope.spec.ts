import { setImmediate as nextTurn } from 'node:timers/promises';
import { JobAttemptScope } from './job-attempt-scope';

describe('JobAttemptScope', () => {
  it('gives the attempt to the work it runs, across awaits, and to nothing outside it', async () => {
    const seen: Array<number | null> = [];
    await JobAttemptScope.run({ jobId: 'job-1', attempt: 3 }, async () => {
      seen.push(JobAttemptScope.attemptOf('job-1'));
      await nextTurn();
      seen.push(JobAttemptScope.attemptOf('job-1'), JobAttemptScope.attemptOf('job-2'));
    });
    expect(seen).toEqual([3, 3, null]);
    expect(JobAttemptScope.attemptOf('job-1')).toBeNull();
  });

  it('keeps an attempt that still runs when an overlapping one ends, and switches off after the last', async () => {
    let releaseFirst!: () => void;
    let releaseSecond!: () => void;
    const first = JobAttemptScope.run({ jobId: 'a', attempt: 1 }, () => new Promise<void>((resolve) => (releaseFirst = resolve)));
    const secondSaw: Array<number | null> = [];
    const second = JobAttemptScope.run({ jobId: 'b', attempt: 7 }, async () => {
      await new Promise<void>((resolve) => (releaseSecond = resolve));
      secondSaw.push(JobAttemptScope.attemptOf('b'));
      await nextTurn();
      secondSaw.push(JobAttemptScope.attemptOf('b'));
    });
    expect(JobAttemptScope.openCount()).toBe(2);
    releaseFirst();
    await first;
    expect(JobAttemptScope.openCount()).toBe(1);
    releaseSecond();
    await second;
    expect(secondSaw).toEqual([7, 7]);
    expect(JobAttemptScope.openCount()).toBe(0);
  });

  it('closes a run whose work fails, and scopes a run started after the storage was switched off', async () => {
    await expect(JobAttemptScope.run({ jobId: 'x', attempt: 2 }, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(JobAttemptScope.openCount()).toBe(0);
    const again = await JobAttemptScope.run({ jobId: 'x', attempt: 4 }, async () => {
      await nextTurn();
      return JobAttemptScope.attemptOf('x');
    });
    expect(again).toBe(4);
    expect(JobAttemptScope.openCount()).toBe(0);
  });
});
