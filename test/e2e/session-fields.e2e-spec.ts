import request from 'supertest';
import { waitForJob } from '../support/jobs';
import { LoginApp } from '../support/login-app';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * `session_id` as a field of its own on scenarios and schedules (issue 44; docs/sessions.md), through the API against
 * the real login app with real Chromium. The website names no session, so only the scenario's or the schedule's own
 * session_id can log its runs in: a schedule's Run now captures the logged-in page, a scenario's run finds the
 * logged-in menu, a schedule's session wins its scenario's. Another account's session is 422 exactly as a missing
 * one; a session a schedule or scenario names cannot be deleted (409 naming them).
 */
describe('session_id on scenarios and schedules (real Chromium, a real login app)', () => {
  let t: TestApp;
  let app: LoginApp;
  let account: TestAccount;
  let other: TestAccount;
  let websiteId: number;
  let sessionId: number;
  let foreignSessionId: number;
  const api = () => request(t.url);

  async function call(method: 'get' | 'post' | 'put' | 'delete', path: string, body?: unknown, auth = account.auth) {
    return api()
      [method](path)
      .set(auth)
      .send(body as object);
  }

  /** A scenario whose run succeeds only on the logged-in page (logged out, the app redirects to its login form). */
  const loggedInSteps = [{ type: 'wait_for', selector: '#account-menu', timeout: 3000 }];

  async function execution(id: string) {
    await waitForJob(t.url, account.auth, id);
    return (await call('get', `/executions/${id}`)).body.data;
  }

  beforeAll(async () => {
    app = await new LoginApp().start();
    t = await startTestApp({ env: { CAPTURE_TIMEOUT_MS: '15000' } });
    account = await t.createAccount({ plan: 'business' });
    other = await t.createAccount({ plan: 'business' });
    websiteId = (await call('post', '/websites', { name: 'Shop account', url: `${app.url}/account` })).body.data.id;
    const cookie = (sid: string) => ({ cookies: [{ name: 'sid', value: sid, domain: '127.0.0.1', http_only: true }] });
    const created = await call('post', '/sessions', { name: 'Shop', logged_in_selector: '#account-menu', from: cookie(app.newSession()) });
    expect(created.status).toBe(201);
    sessionId = created.body.data.id;
    foreignSessionId = (await call('post', '/sessions', { name: 'Theirs', from: cookie(app.newSession()) }, other.auth)).body.data.id;
  });
  afterAll(async () => {
    await t?.close();
    await app?.stop();
  });

  it('a schedule with session_id: shown by GET, and its Run now captures the logged-in page (the website names no session)', async () => {
    const created = await call('post', '/schedules', {
      name: 'Nightly logged in',
      website_id: websiteId,
      session_id: sessionId,
      frequency: 'daily',
      time: '03:00',
      timezone: 'UTC',
      enabled: false,
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ session_id: sessionId, scenario_id: null, website_id: websiteId });
    const scheduleId = created.body.data.id;
    expect((await call('get', `/schedules/${scheduleId}`)).body.data.session_id).toBe(sessionId);
    expect((await call('get', '/schedules')).body.data[0].session_id).toBe(sessionId);

    const run = await call('post', `/schedules/${scheduleId}/run`);
    expect(run.status).toBe(202);
    const done = await waitForJob(t.url, account.auth, run.body.job_id);
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    const shot = (await call('get', `/screenshots/${done.screenshot_id}`)).body.data.capture;
    expect(shot.title).toBe('Account of alice, token none');
    expect(shot.final_url).toBe(`${app.url}/account`);
    expect(shot.session).toEqual({ id: sessionId, name: 'Shop', refreshed: false });

    // Without its session_id the same schedule captures the login form: the website has none.
    const cleared = await call('put', `/schedules/${scheduleId}`, { session_id: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.session_id).toBeNull();
    const plain = await waitForJob(t.url, account.auth, (await call('post', `/schedules/${scheduleId}/run`)).body.job_id);
    expect(plain).toMatchObject({ status: 'succeeded' });
    const loggedOut = (await call('get', `/screenshots/${plain.screenshot_id}`)).body.data.capture;
    expect(loggedOut.title).toBe('Login');
    expect(loggedOut.session).toBeNull();
    expect((await call('delete', `/schedules/${scheduleId}`)).status).toBe(200);
  });

  it('a scenario with session_id runs logged in; without, the same steps fail; a schedule’s session_id wins its scenario’s', async () => {
    const created = await call('post', '/scenarios', { name: 'Account menu', website_id: websiteId, session_id: sessionId, steps: loggedInSteps });
    expect(created.status).toBe(201);
    expect(created.body.data.session_id).toBe(sessionId);
    const scenarioId = created.body.data.id;
    expect((await call('get', `/scenarios/${scenarioId}`)).body.data.session_id).toBe(sessionId);

    const run = await call('post', `/scenarios/${scenarioId}/run`);
    expect(run.status).toBe(200);
    expect(await execution(run.body.execution_id)).toMatchObject({ status: 'succeeded', error: null });

    // No session of its own (the website names none): the page is the login form, and the step times out.
    expect((await call('put', `/scenarios/${scenarioId}`, { session_id: null })).body.data.session_id).toBeNull();
    const loggedOut = await execution((await call('post', `/scenarios/${scenarioId}/run`)).body.execution_id);
    expect(loggedOut.status).toBe('failed');
    expect(loggedOut.steps[0]).toMatchObject({ status: 'failed' });

    // The scenario names a logged-out session; a schedule that runs it with its own session_id starts logged in.
    const stale = await call('post', '/sessions', {
      name: 'Stale',
      logged_in_selector: '#account-menu',
      from: { cookies: [{ name: 'sid', value: 'not-a-session', domain: '127.0.0.1' }] },
    });
    expect((await call('put', `/scenarios/${scenarioId}`, { session_id: stale.body.data.id })).body.data.session_id).toBe(stale.body.data.id);
    const staleRun = await execution((await call('post', `/scenarios/${scenarioId}/run`)).body.execution_id);
    // (A run checks no logged_in_selector: its steps find the page logged out.)
    expect(staleRun).toMatchObject({ status: 'failed', steps: [{ status: 'failed' }] });
    const schedule = await call('post', '/schedules', {
      name: 'Menu check',
      scenario_id: scenarioId,
      session_id: sessionId,
      frequency: 'daily',
      time: '04:00',
      timezone: 'UTC',
      enabled: false,
    });
    expect(schedule.status).toBe(201);
    expect(schedule.body.data).toMatchObject({ scenario_id: scenarioId, session_id: sessionId });
    const runNow = await call('post', `/schedules/${schedule.body.data.id}/run`);
    expect(runNow.status).toBe(202);
    expect(await execution(runNow.body.execution_id)).toMatchObject({ status: 'succeeded', error: null });
    expect((await call('delete', `/schedules/${schedule.body.data.id}`)).status).toBe(200);
    expect((await call('delete', `/scenarios/${scenarioId}`)).status).toBe(200);
    expect((await call('delete', `/sessions/${stale.body.data.id}`)).status).toBe(200);
  });

  it('another account’s session_id is a 422 naming session_id, exactly as a missing one (create and update, scenarios and schedules)', async () => {
    const schedule = (session: unknown) =>
      call('post', '/schedules', { name: 'S', website_id: websiteId, session_id: session, frequency: 'daily', time: '05:00', timezone: 'UTC', enabled: false });
    const scenario = (session: unknown) => call('post', '/scenarios', { name: 'C', website_id: websiteId, session_id: session, steps: loggedInSteps });
    for (const create of [schedule, scenario]) {
      const foreign = await create(foreignSessionId);
      const missing = await create(999_999);
      expect(foreign.status).toBe(422);
      expect(missing.status).toBe(422);
      expect(foreign.body).toEqual(missing.body);
      expect(foreign.body).toMatchObject({
        success: false,
        code: 'validation_failed',
        details: [{ field: 'session_id', message: 'session_id must be the id of one of your saved sessions' }],
      });
    }
    const scheduleId = (await schedule(null)).body.data.id;
    const scenarioId = (await scenario(null)).body.data.id;
    for (const path of [`/schedules/${scheduleId}`, `/scenarios/${scenarioId}`]) {
      const foreign = await call('put', path, { session_id: foreignSessionId });
      const missing = await call('put', path, { session_id: 999_999 });
      expect(foreign.status).toBe(422);
      expect(foreign.body).toEqual(missing.body);
      expect(foreign.body.details).toEqual([{ field: 'session_id', message: 'session_id must be the id of one of your saved sessions' }]);
      expect((await call('get', path)).body.data.session_id).toBeNull();
    }
    // Not an id at all: the DTO's own rule.
    expect((await schedule('one')).body.details[0].field).toBe('session_id');
    await call('delete', `/schedules/${scheduleId}`);
    await call('delete', `/scenarios/${scenarioId}`);
  });

  it('deleting a session a schedule or a scenario names is a 409 naming them; once they let go it is deleted', async () => {
    const schedule = await call('post', '/schedules', {
      name: 'Keeps it',
      website_id: websiteId,
      session_id: sessionId,
      frequency: 'daily',
      time: '06:00',
      timezone: 'UTC',
      enabled: false,
    });
    const scheduleId = schedule.body.data.id;
    const refused = await call('delete', `/sessions/${sessionId}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'conflict',
      error: `The saved session 'Shop' is used by the schedule 'Keeps it' (${scheduleId}): remove their session_id first`,
    });

    const scenarioId = (await call('post', '/scenarios', { name: 'Also', website_id: websiteId, session_id: sessionId, steps: loggedInSteps })).body.data.id;
    const both = await call('delete', `/sessions/${sessionId}`);
    expect(both.status).toBe(409);
    expect(both.body.error).toBe(
      `The saved session 'Shop' is used by the scenario 'Also' (${scenarioId}) and the schedule 'Keeps it' (${scheduleId}): remove their session_id first`,
    );

    expect((await call('put', `/schedules/${scheduleId}`, { session_id: null })).status).toBe(200);
    expect((await call('put', `/scenarios/${scenarioId}`, { session_id: null })).status).toBe(200);
    expect((await call('delete', `/sessions/${sessionId}`)).status).toBe(200);
  });
});
