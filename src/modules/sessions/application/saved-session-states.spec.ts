import type { SessionState } from '../../../shared/domain/session-state';
import { CaptureFailure } from '../../screenshots/application/capture.port';
import type { SavedSessionProps } from '../domain/saved-session';
import type { LoginRunner } from './login-runner';
import type { LoginOutcome, SavedSessionRepository } from './ports';
import { SavedSessionStates } from './saved-session-states';

const STATE: SessionState = {
  cookies: [{ name: 'sid', value: 'old', domain: 'shop.example', hostOnly: true, path: '/', expires: null, secure: false, httpOnly: true }],
  origins: [],
};

function session(over: Partial<SavedSessionProps> = {}): SavedSessionProps {
  return {
    id: 5,
    accountId: 1,
    name: 'Shop',
    loggedInSelector: '#menu',
    source: 'scenario',
    scenarioId: 3,
    status: 'ready',
    state: STATE,
    version: 1,
    refreshedAt: new Date(0),
    expiresAt: null,
    error: null,
    refreshCount: 0,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...over,
  };
}

/** An in-memory row with the repository's claim rule: one claim per version while none is live. */
function harness(row: SavedSessionProps, login: () => Promise<LoginOutcome>) {
  let claimed = false;
  const logins = jest.fn(login);
  const repo = {
    findOwned: async (accountId: number, id: number) => (accountId === row.accountId && id === row.id ? { ...row } : null),
    claimRefresh: async (_id: number, version: number) => {
      if (claimed || version !== row.version) return false;
      return (claimed = true);
    },
    releaseClaim: async () => void (claimed = false),
    recordLogin: async (_id: number, outcome: LoginOutcome) => {
      claimed = false;
      if ('error' in outcome) Object.assign(row, { status: 'failed', error: outcome.error });
      else Object.assign(row, { state: outcome.state, version: row.version + 1, refreshCount: row.refreshCount + 1 });
    },
  } as unknown as SavedSessionRepository;
  const states = new SavedSessionStates(repo, { logIn: logins } as unknown as LoginRunner, { now: () => new Date() });
  return { states, logins };
}

const FRESH: SessionState = { ...STATE, cookies: [{ ...STATE.cookies[0], value: 'new' }] };

describe('SavedSessionStates', () => {
  it('captures that find one version logged out at once share one login', async () => {
    const { states, logins } = harness(session(), async () => ({ state: FRESH, expiresAt: null }));
    const seen = await states.resolve(1, 5);
    const after = await Promise.all([states.afterLoggedOut(1, seen), states.afterLoggedOut(1, seen), states.afterLoggedOut(1, seen)]);
    expect(logins).toHaveBeenCalledTimes(1);
    for (const got of after) expect(got).toMatchObject({ version: 2, state: FRESH });
    // A capture that saw the old version later takes the new state without logging in again.
    expect(await states.afterLoggedOut(1, seen)).toMatchObject({ version: 2, state: FRESH });
    expect(logins).toHaveBeenCalledTimes(1);
  });

  it('a session made from cookies fails session_expired in words; so does a login that fails', async () => {
    const cookies = harness(session({ source: 'cookies', scenarioId: null }), async () => ({ state: FRESH, expiresAt: null }));
    await expect(cookies.states.afterLoggedOut(1, await cookies.states.resolve(1, 5))).rejects.toEqual(
      new CaptureFailure('page', "The saved session 'Shop' is logged out (session_expired)"),
    );
    expect(cookies.logins).not.toHaveBeenCalled();
    const failing = harness(session(), async () => ({ error: 'The login failed: Step 2 (click) failed: Timed out' }));
    await expect(failing.states.afterLoggedOut(1, await failing.states.resolve(1, 5))).rejects.toThrow(
      "The saved session 'Shop' is logged out, and logging in again failed: The login failed: Step 2 (click) failed: Timed out (session_expired)",
    );
  });

  it('resolve: another account’s id does not exist; a pending session without state is not ready', async () => {
    const { states } = harness(session(), async () => ({ state: FRESH, expiresAt: null }));
    await expect(states.resolve(2, 5)).rejects.toThrow('The saved session 5 does not exist');
    const pending = harness(session({ status: 'pending', state: null, version: 0 }), async () => ({ state: FRESH, expiresAt: null }));
    await expect(pending.states.resolve(1, 5)).rejects.toThrow("The saved session 'Shop' is not ready yet: its login has not run");
  });
});
