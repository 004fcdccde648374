import { createHmac } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { SessionsService } from '../../src/modules/sessions/application/sessions.service';
import { waitForJob } from '../support/jobs';
import { LoginApp } from '../support/login-app';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Saved sessions (issue 44, API.md fourth round; docs/sessions.md), driven through the API against a real login app
 * (a CSRF-protected form, an HttpOnly session cookie, an account page that redirects to /login when logged out, an
 * endpoint that ends every session) with real Chromium: a session from a login scenario, from cookies, from a
 * cookies.txt and from a Playwright storage state; expiry → one refresh; two captures at once → one refresh.
 */
describe('Saved sessions (real Chromium, a real login app)', () => {
  let t: TestApp;
  let app: LoginApp;
  let account: TestAccount;
  let other: TestAccount;
  let websiteId: number;
  let scenarioId: number;
  let shopId: number;
  /** Every answer's text: no cookie value or password may appear in any. */
  const answers: string[] = [];
  const api = () => request(t.url);

  async function call(method: 'get' | 'post' | 'put' | 'delete', path: string, body?: unknown, auth = account.auth) {
    const res = await api()
      [method](path)
      .set(auth)
      .send(body as object);
    answers.push(res.text);
    return res;
  }

  /** Waits (reading the service, not the API: polls would eat the rate limit) until the session's login ran. */
  async function ready(id: number) {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      if ((await t.app.get(SessionsService).get(account.id, id)).status !== 'pending') return (await call('get', `/sessions/${id}`)).body.data;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`session ${id} still pending`);
  }

  async function capture(sessionId: number, auth = account.auth) {
    const take = await call('post', `/websites/${websiteId}/screenshot`, { session_id: sessionId }, auth);
    expect(take.status).toBe(200);
    return waitForJob(t.url, auth, take.body.job_id);
  }

  async function report(jobId: { screenshot_id: number | null }) {
    return (await call('get', `/screenshots/${jobId.screenshot_id}`)).body.data.capture;
  }

  beforeAll(async () => {
    app = await new LoginApp().start();
    t = await startTestApp({ env: { CAPTURE_TIMEOUT_MS: '15000' } });
    account = await t.createAccount({ plan: 'business' });
    other = await t.createAccount({ plan: 'business' });
    websiteId = (await call('post', '/websites', { name: 'Shop account', url: `${app.url}/account` })).body.data.id;
    const scenario = await call('post', '/scenarios', {
      name: 'Log in to the shop',
      website_id: websiteId,
      steps: [
        { type: 'fill', selector: '#user', value: app.user },
        { type: 'fill', selector: '#password', value: app.password, secret: true },
        { type: 'click', selector: '#submit' },
        { type: 'wait_for', selector: '#account-menu' },
      ],
    });
    expect(scenario.status).toBe(201);
    scenarioId = scenario.body.data.id;
  });
  afterAll(async () => {
    await t?.close();
    await app?.stop();
  });
  let minute = Date.parse('2034-09-01T08:00:00Z');
  beforeEach(() => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  });

  it('from a login scenario: pending, then ready with the cookies’ names and the origin’s storage (no value shown); a capture starts logged in', async () => {
    const created = await call('post', '/sessions', { name: 'Shop', logged_in_selector: '#account-menu', from: { scenario_id: scenarioId } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Shop', status: 'pending', source: 'scenario', cookie_count: 0, refreshed_at: null });
    shopId = created.body.data.id;
    const session = await ready(shopId);
    expect(session).toMatchObject({ status: 'ready', origins: [app.url], domains: ['127.0.0.1'], error: null, refresh_count: 0 });
    expect(session.cookies.map((c: { name: string }) => c.name).sort()).toEqual(['pre', 'sid']);
    expect(Object.keys(session.cookies[0]).sort()).toEqual(['domain', 'expires', 'name', 'path']);
    expect(app.logins).toBe(1);

    const done = await capture(shopId);
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    const shot = await report(done);
    // The cookie logged the page in, and the storage was there before the page's script read it.
    expect(shot.title).toBe('Account of alice, token tok-1');
    expect(shot.final_url).toBe(`${app.url}/account`);
    expect(shot.session).toEqual({ id: shopId, name: 'Shop', refreshed: false });
    // The cookies went to their own host only: the page's image from `localhost` carried none of them.
    expect(app.thirdPartyCookies.length).toBeGreaterThan(0);
    expect(app.thirdPartyCookies.every((header) => !header.includes('sid='))).toBe(true);
    // Listed, with the spec's envelope.
    const list = await call('get', '/sessions');
    expect(list.body.data.map((s: { id: number }) => s.id)).toEqual([shopId]);
    expect(list.body.meta).toMatchObject({ current_page: 1, total: 1 });
  });

  it('expired: a capture refreshes it once (the login runs again) and retries; the report says so', async () => {
    app.expireAll();
    const before = app.logins;
    const done = await capture(shopId);
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    expect(app.logins).toBe(before + 1);
    const shot = await report(done);
    expect(shot.title).toBe(`Account of alice, token tok-${before + 1}`);
    expect(shot.session).toEqual({ id: shopId, name: 'Shop', refreshed: true });
    expect((await call('get', `/sessions/${shopId}`)).body.data).toMatchObject({ status: 'ready', refresh_count: 1 });
  });

  it('two captures that find it expired at once refresh it once', async () => {
    app.expireAll();
    const before = app.logins;
    const takes = await Promise.all([1, 2].map(() => call('post', `/websites/${websiteId}/screenshot`, { session_id: shopId })));
    const done = await Promise.all(takes.map((take) => waitForJob(t.url, account.auth, take.body.job_id)));
    expect(done.map((d) => [d.status, d.error])).toEqual([
      ['succeeded', null],
      ['succeeded', null],
    ]);
    expect(app.logins).toBe(before + 1);
    const reports = await Promise.all(done.map((d) => report(d)));
    for (const shot of reports) expect(shot.title).toBe(`Account of alice, token tok-${before + 1}`);
    expect((await call('get', `/sessions/${shopId}`)).body.data.refresh_count).toBeGreaterThanOrEqual(2);
  });

  it('from cookies, from a cookies.txt and from a storage state: captures start logged in; expired, they fail session_expired in words', async () => {
    const sid = app.newSession();
    const fromCookies = await call('post', '/sessions', {
      name: 'Cookies',
      logged_in_selector: '#account-menu',
      from: { cookies: [{ name: 'sid', value: sid, domain: '127.0.0.1', http_only: true }] },
    });
    expect(fromCookies.status).toBe(201);
    expect(fromCookies.body.data).toMatchObject({ status: 'ready', source: 'cookies', cookie_count: 1, origins: [], domains: ['127.0.0.1'] });

    const txt = ['# Netscape HTTP Cookie File', '', `#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tsid\t${sid}`, ''].join('\n');
    const fromTxt = await call('post', '/sessions', { name: 'Cookies file', logged_in_selector: '#account-menu', from: { cookies_txt: txt } });
    expect(fromTxt.status).toBe(201);
    expect(fromTxt.body.data).toMatchObject({ status: 'ready', source: 'cookies_txt', expires_at: '2100-01-01T00:00:00.000Z' });
    expect(fromTxt.body.data.cookies).toEqual([{ name: 'sid', domain: '127.0.0.1', path: '/', expires: '2100-01-01T00:00:00.000Z' }]);

    const fromState = await call('post', '/sessions', {
      name: 'Playwright',
      logged_in_selector: '#account-menu',
      from: {
        storage_state: {
          cookies: [{ name: 'sid', value: sid, domain: '127.0.0.1', path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' }],
          origins: [{ origin: app.url, localStorage: [{ name: 'api_token', value: 'tok-from-playwright' }] }],
        },
      },
    });
    expect(fromState.status).toBe(201);
    expect(fromState.body.data).toMatchObject({ status: 'ready', source: 'storage_state', origins: [app.url], expires_at: null });

    const titles = [];
    for (const id of [fromCookies.body.data.id, fromTxt.body.data.id, fromState.body.data.id]) {
      const done = await capture(id);
      expect(done).toMatchObject({ status: 'succeeded', error: null });
      titles.push((await report(done)).title);
    }
    expect(titles).toEqual(['Account of alice, token none', 'Account of alice, token none', 'Account of alice, token tok-from-playwright']);

    // Expired: no login to run again, so the capture fails in words naming the session.
    app.expireAll();
    const before = app.logins;
    const failed = await capture(fromCookies.body.data.id);
    expect(failed).toMatchObject({ status: 'failed', error: "The saved session 'Cookies' is logged out (session_expired)" });
    expect(app.logins).toBe(before);
    // And it cannot be refreshed by itself.
    const refresh = await call('post', `/sessions/${fromCookies.body.data.id}/refresh`);
    expect(refresh.status).toBe(409);
    expect(refresh.body.code).toBe('conflict');
  });

  it('POST /sessions/{id}/refresh runs the login again; the state is sealed at rest and no answer shows a value', async () => {
    const before = app.logins;
    const res = await call('post', `/sessions/${shopId}/refresh`);
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('pending');
    expect(await ready(shopId)).toMatchObject({ status: 'ready' });
    expect(app.logins).toBe(before + 1);

    const rows: Array<{ state_sealed: string }> = await t.app.get(DataSource).query('SELECT state_sealed FROM saved_sessions');
    const values = [...app.issued, app.password];
    expect(app.issued.length).toBeGreaterThan(3);
    // The storage value too (it is in a picture's title, the page's own doing, so not looked for in answers).
    for (const row of rows) for (const value of [...values, 'tok-from-playwright']) expect(row.state_sealed).not.toContain(value);
    for (const text of answers) for (const value of values) expect(text).not.toContain(value);
  });

  it('bad input is a 422 naming the field; names are unique; another account’s session is 404 and fails its captures', async () => {
    const two = await call('post', '/sessions', { name: 'Two', from: { scenario_id: scenarioId, cookies_txt: 'x' } });
    expect(two.status).toBe(422);
    expect(two.body.details).toEqual([
      { field: 'from', message: 'from must have exactly one of scenario_id, cookies, cookies_txt or storage_state (got scenario_id, cookies_txt)' },
    ]);
    const txt = await call('post', '/sessions', { name: 'Bad file', from: { cookies_txt: 'not a cookie line' } });
    expect(txt.status).toBe(422);
    expect(txt.body.details[0].field).toBe('from.cookies_txt');
    const noDomain = await call('post', '/sessions', { name: 'No domain', from: { cookies: [{ name: 'sid', value: 'x' }] } });
    expect(noDomain.body.details).toEqual([
      { field: 'from.cookies[0].domain', message: 'from.cookies[0].domain is required: a saved session belongs to no one website' },
    ]);
    const theirs = await call('post', '/sessions', { name: 'Theirs', from: { scenario_id: scenarioId } }, other.auth);
    expect(theirs.status).toBe(422);
    expect(theirs.body.details[0].field).toBe('from.scenario_id');
    expect((await call('post', '/sessions', { name: 'Shop', from: { cookies_txt: `127.0.0.1\tFALSE\t/\tFALSE\t0\ta\tb` } })).status).toBe(409);

    expect((await call('get', `/sessions/${shopId}`, undefined, other.auth)).status).toBe(404);
    expect((await call('delete', `/sessions/${shopId}`, undefined, other.auth)).status).toBe(404);
    const site = await call('post', '/websites', { name: 'Theirs', url: `${app.url}/account` }, other.auth);
    const take = await call('post', `/websites/${site.body.data.id}/screenshot`, { session_id: shopId }, other.auth);
    const failed = await waitForJob(t.url, other.auth, take.body.job_id);
    expect(failed).toMatchObject({ status: 'failed', error: `The saved session ${shopId} does not exist` });
  });

  it('a signed /render link of the same account names the session by id; deleting a session a website uses is a 409 naming it', async () => {
    const key = await call('post', '/render-keys', { name: 'links' });
    const { access_key, secret } = key.body.data as { access_key: string; secret: string };
    const query = `url=${encodeURIComponent(`${app.url}/account`)}&session_id=${shopId}&response_type=json&access_key=${access_key}`;
    const link = `/render?${query}&signature=${createHmac('sha256', secret).update(query).digest('hex')}`;
    const rendered = await api().get(link);
    expect(rendered.status).toBe(200);
    expect(rendered.body.data.capture).toMatchObject({ title: expect.stringMatching(/^Account of alice, token tok-/), session: { id: shopId, name: 'Shop' } });

    const saved = await call('put', `/websites/${websiteId}`, { capture_options: { session_id: shopId } });
    expect(saved.status).toBe(200);
    const used = await call('delete', `/sessions/${shopId}`);
    expect(used.status).toBe(409);
    expect(used.body.error).toBe(
      `The saved session 'Shop' is used by the website 'Shop account' (${websiteId}): remove session_id from their capture options first`,
    );
    // The website's saved session applies to its captures (and so to its schedules).
    const take = await call('post', `/websites/${websiteId}/screenshot`, {});
    const done = await waitForJob(t.url, account.auth, take.body.job_id);
    expect((await report(done)).session).toMatchObject({ id: shopId });

    expect((await call('put', `/websites/${websiteId}`, { capture_options: {} })).status).toBe(200);
    expect((await call('delete', `/sessions/${shopId}`)).status).toBe(200);
    expect((await call('get', `/sessions/${shopId}`)).status).toBe(404);
  });
});
