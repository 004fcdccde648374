import { isLocked, lockDurationMs, secondsUntilUnlocked, SIGN_IN_FREE_FAILURES, throttleKey } from './sign-in-throttle';

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

  it('keys by the normalised email', () => {
    expect(throttleKey('  Alice@Example.COM ')).toBe('email:alice@example.com');
  });
});
