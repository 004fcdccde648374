import type { PageRequest } from '../../../shared/domain/page-request';
import type { SessionState } from '../../../shared/domain/session-state';
import type { SavedSessionProps, SessionSource, SessionStatus } from '../domain/saved-session';

export interface NewSavedSession {
  name: string;
  loggedInSelector: string | null;
  source: SessionSource;
  scenarioId: number | null;
  status: SessionStatus;
  state: SessionState | null;
  expiresAt: Date | null;
}

/** The outcome of a login: a new state (ready), or its failure in words (failed; the old state is kept). */
export type LoginOutcome = { state: SessionState; expiresAt: Date | null } | { error: string };

export abstract class SavedSessionRepository {
  /** Creates the session unless the account already has `limit` of them (null then). */
  abstract createWithinLimit(accountId: number, fields: NewSavedSession, now: Date, limit: number): Promise<SavedSessionProps | null>;
  abstract findOwned(accountId: number, id: number): Promise<SavedSessionProps | null>;
  abstract findById(id: number): Promise<SavedSessionProps | null>;
  abstract findByName(accountId: number, name: string): Promise<SavedSessionProps | null>;
  abstract list(accountId: number, page: PageRequest): Promise<{ items: SavedSessionProps[]; total: number }>;
  /** Every session of the account, by name (the dashboard's choices). */
  abstract listAll(accountId: number): Promise<SavedSessionProps[]>;
  abstract markPending(id: number, now: Date): Promise<void>;
  /** Records a login's outcome: a state bumps the version; `refreshed` counts a refresh a capture asked for. */
  abstract recordLogin(id: number, outcome: LoginOutcome, now: Date, refreshed: boolean): Promise<void>;
  /**
   * Takes the right to refresh the session a capture saw at `version` logged out: true only for one caller
   * while the version is unchanged and no other claim is live (until `until`).
   */
  abstract claimRefresh(id: number, version: number, now: Date, until: Date): Promise<boolean>;
  abstract releaseClaim(id: number): Promise<void>;
  abstract delete(id: number): Promise<void>;
}
