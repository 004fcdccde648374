import { createHash, randomBytes } from 'node:crypto';

/**
 * Dashboard sign-in sessions. Like API tokens, only the SHA-256 of the cookie's secret is stored, so a
 * leaked database cannot be replayed as a session. Sessions end 12 hours after sign-in whatever happens:
 * an absolute lifetime keeps a stolen cookie from living forever.
 */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

export interface IssuedSession {
  secret: string;
  hash: string;
  /** Per-session CSRF token, embedded in every form of the dashboard. */
  csrfToken: string;
}

export function hashSessionSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function issueSession(): IssuedSession {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: hashSessionSecret(secret), csrfToken: randomBytes(32).toString('base64url') };
}

/** Cookie values we issue are 43 base64url characters; anything else is not worth a database lookup. */
export function isWellFormedSessionSecret(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

export interface SessionProps {
  accountId: number;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}
