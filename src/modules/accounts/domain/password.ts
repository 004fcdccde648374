/**
 * Dashboard passwords. Length is the rule that matters (NIST SP 800-63B): at least 10 characters, and an
 * upper bound so a megabyte "password" cannot make the slow KDF a denial-of-service lever.
 */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 512;

/** Null when acceptable, else the reason (shown to the operator or user as is). */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `password must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `password must be at most ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}
