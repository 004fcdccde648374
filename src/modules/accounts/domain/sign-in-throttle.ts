/**
 * Lock-out after repeated wrong passwords, per email address (known or not, so the answer never tells
 * whether an account exists). The first FREE_FAILURES mistakes cost nothing; each further one locks the
 * address for twice as long as the last, from one minute up to fifteen. A correct password resets it;
 * while locked even a correct password is refused, otherwise the lock would not slow a guesser down.
 */
export const SIGN_IN_FREE_FAILURES = 5;
const FIRST_LOCK_MS = 60_000;
const MAX_LOCK_MS = 15 * 60_000;

export interface SignInThrottleState {
  failures: number;
  lockedUntil: Date | null;
}

/** How long the address is locked after its `failures`-th consecutive failure (0 = not locked). */
export function lockDurationMs(failures: number): number {
  if (failures < SIGN_IN_FREE_FAILURES) return 0;
  return Math.min(MAX_LOCK_MS, FIRST_LOCK_MS * 2 ** (failures - SIGN_IN_FREE_FAILURES));
}

/**
 * The lock durations as (failure count → ms) steps up to the cap, for a store that must decide a lock in
 * one statement: `steps` lists each count from the first lock until the duration stops growing, `cap`
 * applies beyond the last step.
 */
export function lockSteps(): { steps: Array<{ failures: number; ms: number }>; cap: number } {
  const steps: Array<{ failures: number; ms: number }> = [];
  let n = 1;
  while (lockDurationMs(n) === 0) n += 1;
  for (; lockDurationMs(n + 1) !== lockDurationMs(n); n += 1) steps.push({ failures: n, ms: lockDurationMs(n) });
  return { steps, cap: lockDurationMs(n) };
}

export function isLocked(state: SignInThrottleState | null, now: Date): boolean {
  return Boolean(state?.lockedUntil && state.lockedUntil.getTime() > now.getTime());
}

/** Whole seconds until the lock lifts (at least 1 while locked). */
export function secondsUntilUnlocked(state: SignInThrottleState, now: Date): number {
  return state.lockedUntil ? Math.max(1, Math.ceil((state.lockedUntil.getTime() - now.getTime()) / 1000)) : 0;
}

/** The key a sign-in attempt is throttled under. */
export function throttleKey(email: string): string {
  return `email:${email.trim().toLowerCase()}`;
}
