/**
 * Saved sessions (API.md fourth round, "Saved sessions"; docs/sessions.md): a logged-in browser state an account
 * keeps under a name, made by running a login scenario or from cookies it brings, and started with by captures
 * that name it (`session_id`). The state is plain here; wherever it is stored it is sealed, and no answer or log
 * ever shows a value (names, domains and expiry only).
 */
import { type SessionState } from '../../../shared/domain/session-state';

export const SESSION_SOURCES = ['scenario', 'cookies', 'cookies_txt', 'storage_state'] as const;
export type SessionSource = (typeof SESSION_SOURCES)[number];

/** `pending`: its login has not run yet; `ready`: captures can start with it; `failed`: its login failed (`error`). */
export const SESSION_STATUSES = ['pending', 'ready', 'failed'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const SESSION_LIMITS = { nameMax: 100, perAccount: 100 } as const;

/**
 * How long one process's claim on a refresh lasts (the login runs under it): another capture that finds the
 * session logged out meanwhile waits for that login instead of starting its own; a claim left by a dead worker
 * lapses after this.
 */
export const REFRESH_CLAIM_MS = 150_000;

export interface SavedSessionProps {
  id: number;
  accountId: number;
  name: string;
  loggedInSelector: string | null;
  source: SessionSource;
  /** The login scenario (source `scenario`); null otherwise, or once that scenario was deleted. */
  scenarioId: number | null;
  status: SessionStatus;
  /** Null until a login ran. */
  state: SessionState | null;
  /** Counts every new state: a capture that saw version n logged out refreshes only while it is still n. */
  version: number;
  refreshedAt: Date | null;
  expiresAt: Date | null;
  /** The last login's failure, in words (fill values never in it). */
  error: string | null;
  /** How many times captures found it logged out and logged in again. */
  refreshCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Only a session made by a login scenario can log in again by itself. */
export function canLogInAgain(session: Pick<SavedSessionProps, 'source' | 'scenarioId'>): boolean {
  return session.source === 'scenario' && session.scenarioId !== null;
}
