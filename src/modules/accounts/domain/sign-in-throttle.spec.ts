import { isLocked, lockDurationMs, lockSteps, secondsUntilUnlocked, SIGN_IN_FREE_FAILURES, throttleKey } from './sign-in-throttle';

describe('sign-in throttle', () => {
  it('lets the first four failures pass and locks on the fifth', () => {
    expect(SIGN_IN_FREE_FAILURES).toBe(5);
    for (let n = 0; n < 5; n++) expect(lockDurationMs(n)).toBe(0);
    expect(lockDurationMs(5)).toBe(60_000);
  });

  it('doubles the lock with every further failure, up to 15 minutes', () => {
    expect([6, 7, 8, 9, 10, 50].map(lockDurationMs)).toEqual([120_000, 240_000, 480_000, 900_000, 900_000, 900_000]);
  });

  it('is locked only before lockedUntil', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    expect(isLocked(null, now)).toBe(false);
    expect(isLocked({ failures: 5, lockedUntil: new Date('2026-11-22T10:00:30Z') }, now)).toBe(true);
    expect(isLocked({ failures: 5, lockedUntil: now }, now)).toBe(false);
    expect(secondsUntilUnlocked({ failures: 5, lockedUntil: new Date('2026-11-22T10:00:30.200Z') }, now)).toBe(31);
  });

  it('lockSteps: the growing locks as count → duration steps, then the cap (for a store that decides a lock in one statement)', () => {
    expect(lockSteps()).toEqual({
      steps: [
        { failures: 5, ms: 60_000 },
        { failures: 6, ms: 120_000 },
        { failures: 7, ms: 240_000 },
        { failures: 8, ms: 480_000 },
      ],
      cap: 900_000,
    });
    // Whatever the rule, the steps and the cap reproduce it for every count.
    const { steps, cap } = lockSteps();
    for (let n = 1; n < 40; n++) {
      const expected = n < steps[0].failures ? 0 : (steps.find((s) => s.failures === n)?.ms ?? cap);
      expect(lockDurationMs(n)).toBe(expected);
    }
  });

  it('keys by the normalised email', () => {
    expect(throttleKey('  Alice@Example.COM ')).toBe('email:alice@example.com');
  });
});
