import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { loggedOutMessage, SESSION_EXPIRED } from '../../../shared/domain/session-state';
import { CaptureFailure } from '../../screenshots/application/capture.port';
import { SavedSessions, type UsableSession } from '../../screenshots/application/saved-sessions.port';
import { canLogInAgain, REFRESH_CLAIM_MS, type SavedSessionProps } from '../domain/saved-session';
import { LoginRunner } from './login-runner';
import { SavedSessionRepository } from './ports';

/** How often a capture waiting for another process's login looks whether it ended. */
const WAIT_POLL_MS = 250;

function expired(message: string): CaptureFailure {
  return new CaptureFailure('page', `${message} (${SESSION_EXPIRED})`);
}

function usable(session: SavedSessionProps): UsableSession {
  return {
    id: session.id,
    name: session.name,
    state: session.state ?? { cookies: [], origins: [] },
    loggedInSelector: session.loggedInSelector,
    version: session.version,
  };
}

/**
 * Saved sessions as captures use them (the capture side's SavedSessions port): the state a page starts with, and
 * the one refresh a logged-out session gets. Captures that find the same version logged out at once share one
 * login: in this process through one promise per session and version, across processes through a claim on the
 * row (the others wait for the new version instead of logging in themselves).
 */
@Injectable()
export class SavedSessionStates extends SavedSessions {
  private readonly refreshing = new Map<string, Promise<UsableSession>>();

  constructor(
    private readonly sessions: SavedSessionRepository,
    private readonly login: LoginRunner,
    private readonly clock: Clock,
  ) {
    super();
  }

  async resolve(accountId: number, id: number): Promise<UsableSession> {
    const session = await this.sessions.findOwned(accountId, id);
    if (!session) throw new CaptureFailure('page', `The saved session ${id} does not exist`);
    if (session.status === 'failed') throw expired(`${loggedOutMessage(session.name)}: its last login failed (${session.error ?? 'no reason given'})`);
    if (!session.state) throw new CaptureFailure('page', `The saved session '${session.name}' is not ready yet: its login has not run`);
    return usable(session);
  }

  afterLoggedOut(accountId: number, seen: UsableSession): Promise<UsableSession> {
    const key = `${seen.id}:${seen.version}`;
    const running = this.refreshing.get(key);
    if (running) return running;
    const refresh = this.refresh(accountId, seen).finally(() => this.refreshing.delete(key));
    this.refreshing.set(key, refresh);
    return refresh;
  }

  private async refresh(accountId: number, seen: UsableSession): Promise<UsableSession> {
    const waitUntil = Date.now() + REFRESH_CLAIM_MS;
    for (;;) {
      const current = await this.sessions.findOwned(accountId, seen.id);
      if (!current) throw new CaptureFailure('page', `The saved session ${seen.id} does not exist`);
      // Another capture (here or in another process) logged in since this one started: its state is used.
      if (current.version > seen.version && current.state && current.status !== 'failed') return usable(current);
      if (!canLogInAgain(current)) throw expired(loggedOutMessage(current.name));
      if (current.status === 'failed' && current.version === seen.version)
        throw expired(`${loggedOutMessage(current.name)}, and logging in again failed: ${current.error ?? 'no reason given'}`);
      const now = this.clock.now();
      if (await this.sessions.claimRefresh(current.id, seen.version, now, new Date(now.getTime() + REFRESH_CLAIM_MS))) {
        let outcome;
        try {
          outcome = await this.login.logIn(accountId, current.scenarioId);
        } catch (err) {
          await this.sessions.releaseClaim(current.id);
          throw err;
        }
        await this.sessions.recordLogin(current.id, outcome, this.clock.now(), true);
        if ('error' in outcome) throw expired(`${loggedOutMessage(current.name)}, and logging in again failed: ${outcome.error}`);
        return { ...usable(current), state: outcome.state, version: seen.version + 1 };
      }
      if (Date.now() > waitUntil) throw expired(`${loggedOutMessage(current.name)}, and logging in again did not end in time`);
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS).unref());
    }
  }
}
