import { loggedOutMessage, SESSION_EXPIRED } from '../../../shared/domain/session-state';
import { CaptureFailure, LoggedOutFailure, type CaptureResult, type SessionStart } from './capture.port';
import { SavedSessions, type UsableSession } from './saved-sessions.port';

function startOf(session: UsableSession): SessionStart {
  return { state: session.state, loggedInSelector: session.loggedInSelector };
}

/**
 * A capture that starts with the saved session `sessionId` (none: as it is). Found logged out (its
 * logged_in_selector missing after load), the session is refreshed once — a login scenario's session logs in again,
 * shared with every capture that found it so at the same time — and the capture is tried once more; still logged
 * out, or a session that cannot log in by itself, fails `session_expired` in words. The report names the session
 * and says whether it was refreshed.
 */
export async function captureWithSession(
  sessions: SavedSessions,
  accountId: number,
  sessionId: number | undefined,
  capture: (session?: SessionStart) => Promise<CaptureResult>,
): Promise<CaptureResult> {
  if (sessionId === undefined) return capture();
  let session = await sessions.resolve(accountId, sessionId);
  let refreshed = false;
  let result: CaptureResult;
  try {
    result = await capture(startOf(session));
  } catch (err) {
    if (!(err instanceof LoggedOutFailure)) throw err;
    session = await sessions.afterLoggedOut(accountId, session);
    refreshed = true;
    try {
      result = await capture(startOf(session));
    } catch (again) {
      if (again instanceof LoggedOutFailure)
        throw new CaptureFailure('page', `${loggedOutMessage(session.name)}, even after logging in again (${SESSION_EXPIRED})`);
      throw again;
    }
  }
  return result.report ? { ...result, report: { ...result.report, session: { id: session.id, name: session.name, refreshed } } } : result;
}
