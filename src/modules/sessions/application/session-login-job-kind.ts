import type { JobKind } from '../../jobs/application/job-kinds';

export interface SessionLoginJobOptions extends Record<string, unknown> {
  sessionId: number;
}

/**
 * A saved session's login (POST /sessions from a scenario, POST /sessions/{id}/refresh): runs the login scenario
 * and keeps the browser state it ends with. Bounded like a scenario run (SCENARIO_TIMEOUT_MS, plus a capture
 * timeout for opening the page); no events (the session's status says how it went).
 */
export const SESSION_LOGIN_JOB_KIND: JobKind<SessionLoginJobOptions> = {
  name: 'session_login',
  label: 'session login',
  maxRunMs: (config) => config.scenarioTimeoutMs + config.captureTimeoutMs,
  events: null,
};
