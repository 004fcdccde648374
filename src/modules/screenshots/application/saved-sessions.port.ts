import { ValidationFailedError } from '../../../shared/domain/domain-error';
import type { ResolvedSession } from '../../../shared/domain/session-state';

/** A saved session as a capture starts with it, and the version it was at (a refresh is asked for against it). */
export interface UsableSession extends ResolvedSession {
  version: number;
}

/**
 * What captures (screenshots, renders, scenario runs) ask of saved sessions (`session_id`, docs/sessions.md). The
 * sessions context implements it; the capture port only ever gets the resolved state. Both methods fail with a
 * page CaptureFailure in words when the session cannot be used (unknown, not ready, logged out for good).
 */
export abstract class SavedSessions {
  /** The account's session `id`, ready to start a page with. */
  abstract resolve(accountId: number, id: number): Promise<UsableSession>;
  /**
   * A capture that started with `seen` found it logged out (its logged_in_selector missing). A session made by a
   * login scenario logs in again — once for every capture that found the same version logged out at the same
   * time — and the new state is returned; any other fails `session_expired`.
   */
  abstract afterLoggedOut(accountId: number, seen: UsableSession): Promise<UsableSession>;
}

/**
 * Whether an id is one of the account's saved sessions, whatever its state: a `session_id` written on a scenario or a
 * schedule is checked with it (another account's session is as unknown as a missing one). Apart from SavedSessions,
 * whose logins run scenarios: the scenarios and schedules services ask this one, which reads the sessions' table only.
 */
export abstract class SavedSessionIds {
  abstract isOwned(accountId: number, id: number): Promise<boolean>;
}

/**
 * The one check of a `session_id` written on a scenario or a schedule: none (undefined or null) passes; one that is
 * not the account's saved session is a 422 naming the field.
 */
export async function checkSessionId(ids: SavedSessionIds, accountId: number, sessionId: number | null | undefined): Promise<void> {
  if (sessionId === undefined || sessionId === null) return;
  if (!(await ids.isOwned(accountId, sessionId))) {
    throw ValidationFailedError.of('session_id', 'session_id must be the id of one of your saved sessions');
  }
}
