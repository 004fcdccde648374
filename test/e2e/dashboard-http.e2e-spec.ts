import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import AdmZip from 'adm-zip';
import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { SchedulesService } from '../../src/modules/schedules/application/schedules.service';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { ScreenshotRepository } from '../../src/modules/screenshots/application/ports';
import { csrfFieldOf, DashboardClient, FormFields, ParsedCookie, setCookieNamed, setCookies } from '../support/dashboard-session';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The account dashboard over plain HTTP (spec: Authentication 2 and 3 — tokens generated and revoked in the
 * dashboard; README: the dashboard's sign-in, sessions, CSRF, lock-out and limits): every status, header,
 * cookie and text below is what src/modules/dashboard produces, checked against the database, the files on
 * disk and the real API. Captures are real Chromium renderings of pages served on 127.0.0.1.
 *
 * Two apps: `t` (the main one; its per-address sign-in and dashboard limits are raised so this file's many
 * sign-ins from 127.0.0.1 never meet them — those limits are tested on `aux`) and `aux` (TRUST_PROXY=true,
 * SIGN_IN_LIMIT_PER_MINUTE=3, DASHBOARD_LIMIT_PER_MINUTE=5; each of its tests comes from its own
 * X-Forwarded-For address, so the per-address counters of one test never touch another's).
 *
 * t's clock is pinned to a winter day (Europe/Berlin is UTC+1) and moved to a fresh calendar minute before
 * every test, so no test shares an API rate-limit window (Pro: 20 per minute) with another.
 */

const PASSWORD = 'dashboard password one';
const START = Date.parse('2031-01-15T12:00:00.000Z');
const CSRF_REJECTED = 'This form has expired or was not sent from this site. Go back, reload the page and try again.';
const WRONG_CREDENTIALS = 'The email or password is incorrect.';
const LOCKED = 'Too many failed sign-in attempts. Try again in 1 minute.';
const NO_API_ACCESS = 'API access is not available on your plan';
const UNAUTHORIZED = { success: false, error: 'Unauthorized', code: 'unauthorized' };
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const HTML = 'text/html; charset=utf-8';
const ACCESS_TAIL =
  'Screenshots, scenario runs and new API tokens need an active Starter, Pro or Business subscription. Your existing screenshots stay available here.';

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const sorted = (values: string[]) => [...values].sort();

/** The error page's title for a status, as views/pages/error-page.ts words it. */
function errorTitle(status: number): string {
  return status === 404
    ? 'Not found'
    : status === 429
      ? 'Too many requests'
      : status === 403
        ? 'Not allowed'
        : status >= 500
          ? 'Something went wrong'
          : 'That did not work';
}

function expectErrorPage(res: Response, status: number, message: string): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status, type: HTML });
  expect(res.text).toContain(`<div class="card signin" role="alert"><h1>${errorTitle(status)}</h1><p>${message}</p>`);
  expect(res.headers['content-disposition']).toBeUndefined();
}

function expectPage(res: Response, title: string): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 200, type: HTML });
  expect(res.text).toContain(`<h1>${title}</h1>`);
}

function expectRedirect(res: Response, location: string): void {
  expect({ status: res.status, location: res.headers.location }).toEqual({ status: 303, location });
}

/** The headers views/…/guards.ts puts on every dashboard response, and none of the API's quota headers. */
function expectDashboardHeaders(res: Response, cacheControl = 'no-store'): void {
  expect(res.headers['cache-control']).toBe(cacheControl);
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['content-security-policy']).toBe(CSP);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('same-origin');
  expect(Object.keys(res.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
}

function expectCookieAttributes(cookie: ParsedCookie | undefined, maxAge: number, secure: boolean): void {
  expect(cookie).toBeDefined();
  expect(sorted(cookie!.attributes)).toEqual(sorted(['Path=/dashboard', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAge}`, ...(secure ? ['Secure'] : [])]));
}

const galleryIds = (html: string) => [...html.matchAll(/<li data-screenshot-id="(\d+)">/g)].map((m) => Number(m[1]));
const newSecretOf = (html: string) => /<input type="text" id="new-token-value" readonly value="(sst_[A-Za-z0-9_-]{43})">/.exec(html)?.[1];

/** The `<tr data-…-id="id">…</tr>` row of a list page. */
function rowOf(html: string, kind: string, id: number): string {
  const match = new RegExp(`<tr data-${kind}-id="${id}">[\\s\\S]*?</tr>`).exec(html);
  if (!match) throw new Error(`no ${kind} row ${id} on the page`);
  return match[0];
}

describe('Dashboard over HTTP', () => {
  let t: TestApp;
  let aux: TestApp;
  let site: PageServer;
  let accounts: AccountsService;
  let alice: TestAccount; // pro: two websites with a screenshot each, a scenario, a schedule
  let bob: TestAccount; // pro: one website with a screenshot, a scenario, a schedule
  let sam: TestAccount; // starter: one website with a screenshot
  let auxUser: TestAccount;
  let a: DashboardClient; // alice signed in on t
  let b: DashboardClient; // bob signed in on t
  const ids = {
    aliceHome: 0,
    aliceBlog: 0,
    shotHome: 0,
    shotBlog: 0,
    aliceScenario: 0,
    aliceSchedule: 0,
    bobSite: 0,
    bobShot: 0,
    bobScenario: 0,
    bobSchedule: 0,
    samSite: 0,
    samShot: 0,
  };
  let addressCounter = 0;

  const api = () => request(t.url);
  /** A client of `aux` from an address of its own (aux trusts X-Forwarded-For). */
  const auxClient = (extra: Record<string, string> = {}) => new DashboardClient(aux.url, { 'X-Forwarded-For': `198.51.100.${++addressCounter}`, ...extra });

  function freshMinute(): void {
    const now = t.clock.now().getTime();
    t.clock.set(new Date(Math.floor(now / 60_000) * 60_000 + 60_000 + 5_000));
  }

  async function createWebsite(account: TestAccount, name: string, path: string): Promise<number> {
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name, url: `${site.url}${path}` });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  /** POST /websites/{id}/screenshot through the API, waits for the real capture; the screenshot id. */
  async function capture(account: TestAccount, websiteId: number): Promise<number> {
    const res = await api().post(`/websites/${websiteId}/screenshot`).set(account.auth);
    expect(res.status).toBe(200);
    const job = await waitForJob(t.url, account.auth, res.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded', error: null });
    return job.screenshot_id as number;
  }

  async function automation(account: TestAccount, websiteId: number, name: string): Promise<{ scenario: number; schedule: number }> {
    const scenario = await api()
      .post('/scenarios')
      .set(account.auth)
      .send({ name: `${name} check`, website_id: websiteId, steps: [{ type: 'wait', duration: 50 }] });
    expect(scenario.status).toBe(201);
    const schedule = await api()
      .post('/schedules')
      .set(account.auth)
      .send({ name: 'Every morning', website_id: websiteId, frequency: 'daily', time: '07:30', timezone: 'Europe/Berlin' });
    expect(schedule.status).toBe(201);
    return { scenario: scenario.body.data.id, schedule: schedule.body.data.id };
  }

  const jobTotal = async (account: TestAccount) => (await t.app.get(JobRepository).list(account.id, { page: 1, perPage: 1 }, {})).total;
  const screenshotIdsOf = async (account: TestAccount, websiteId?: number) =>
    (await t.app.get(ScreenshotRepository).list(account.id, { page: 1, perPage: 100 }, { websiteId })).items.map((s) => s.id);
  const storagePath = (filePath: string) => join(t.config.storageDir, filePath.replace(/^screenshots\//, ''));

  async function signedInAs(account: TestAccount, app: TestApp = t): Promise<DashboardClient> {
    return new DashboardClient(app.url).signInOk(account.email, PASSWORD);
  }

  async function withPassword(opts: Parameters<TestApp['createAccount']>[0] = {}, app: TestApp = t): Promise<TestAccount> {
    const account = await app.createAccount(opts);
    await app.app.get(AccountsService).setPassword(account.email, PASSWORD);
    return account;
  }

  beforeAll(async () => {
    site = await new PageServer({
      '/alice-home': solidPage('rgb(200,30,30)'),
      '/alice-blog': solidPage('rgb(30,160,60)'),
      '/bob': solidPage('rgb(30,60,200)'),
      '/sam': solidPage('rgb(220,200,40)'),
      '/carol': solidPage('rgb(120,40,160)'),
    }).start();
    [t, aux] = await Promise.all([
      startTestApp({ env: { SIGN_IN_LIMIT_PER_MINUTE: '100000', DASHBOARD_LIMIT_PER_MINUTE: '100000' } }),
      startTestApp({ env: { TRUST_PROXY: 'true', SIGN_IN_LIMIT_PER_MINUTE: '3', DASHBOARD_LIMIT_PER_MINUTE: '5' } }),
    ]);
    t.clock.set(new Date(START));
    accounts = t.app.get(AccountsService);
    // One at a time: on SQLite, createAccount's transaction cannot overlap another one on the shared connection.
    alice = await withPassword({ plan: 'pro', name: 'Alice' });
    bob = await withPassword({ plan: 'pro', name: 'Bob' });
    sam = await withPassword({ plan: 'starter', name: 'Sam' });
    auxUser = await withPassword({ plan: 'pro', name: 'Aux' }, aux);
    await Promise.all([
      (async () => {
        ids.aliceHome = await createWebsite(alice, 'Alice home', '/alice-home');
        ids.aliceBlog = await createWebsite(alice, 'Alice blog', '/alice-blog');
        ids.shotHome = await capture(alice, ids.aliceHome);
        ids.shotBlog = await capture(alice, ids.aliceBlog);
        ({ scenario: ids.aliceScenario, schedule: ids.aliceSchedule } = await automation(alice, ids.aliceHome, 'Alice'));
      })(),
      (async () => {
        ids.bobSite = await createWebsite(bob, 'Bob site', '/bob');
        ids.bobShot = await capture(bob, ids.bobSite);
        ({ scenario: ids.bobScenario, schedule: ids.bobSchedule } = await automation(bob, ids.bobSite, 'Bob'));
      })(),
      (async () => {
        ids.samSite = await createWebsite(sam, 'Sam site', '/sam');
        ids.samShot = await capture(sam, ids.samSite);
      })(),
    ]);
    [a, b] = await Promise.all([signedInAs(alice), signedInAs(bob)]);
  });

  afterAll(async () => {
    await Promise.all([t?.close(), aux?.close()]);
    await site?.stop();
  });

  beforeEach(() => freshMinute());

  describe('sign-in', () => {
    it('a page without a session → 303 to the sign-in page with ?next=; the form and its HTTP-only token cookie', async () => {
      const anon = new DashboardClient(t.url);
      const root = await anon.get('/dashboard');
      expectRedirect(root, '/dashboard/login?next=%2Fdashboard');
      expect(setCookies(root)).toEqual([]);
      expectDashboardHeaders(root);
      expectRedirect(await anon.get('/dashboard/screenshots?website_id=7'), '/dashboard/login?next=%2Fdashboard%2Fscreenshots%3Fwebsite_id%3D7');
      // A form post without a session also goes to sign-in (without next: a POST cannot be replayed by a link).
      expectRedirect(await anon.post('/dashboard/settings/api-keys', { name: 'x' }), '/dashboard/login');

      const form = await anon.get('/dashboard/login?next=%2Fdashboard%2Fscreenshots%3Fwebsite_id%3D7');
      expectPage(form, 'Sign in');
      expectDashboardHeaders(form);
      const cookie = setCookieNamed(form, 'sst_signin_csrf');
      expectCookieAttributes(cookie, 3600, false);
      expect(cookie!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(csrfFieldOf(form.text)).toBe(cookie!.value);
      expect(form.text).toContain('<input type="hidden" name="next" value="/dashboard/screenshots?website_id=7">');
      expect(form.text).toContain('<input type="email" id="email" name="email" autocomplete="username" required value="" autofocus>');
      // An off-site next is not even put into the form.
      const evil = await anon.get('/dashboard/login?next=https%3A%2F%2Fevil.example');
      expect(evil.text).toContain('<input type="hidden" name="next" value="/dashboard">');
      expect(evil.text).not.toContain('evil.example');
    });

    it('the right password → 303 to /dashboard with sst_session (HttpOnly, SameSite=Lax, Path=/dashboard, Max-Age=43200, not Secure over http); only its SHA-256 is stored', async () => {
      const c = new DashboardClient(t.url);
      const form = await c.get('/dashboard/login');
      const res = await c.post('/dashboard/login', { _csrf: csrfFieldOf(form.text), email: alice.email, password: PASSWORD });
      expectRedirect(res, '/dashboard');
      expectDashboardHeaders(res);
      const session = setCookieNamed(res, 'sst_session');
      expectCookieAttributes(session, 43200, false);
      expect(session!.raw).toBe(`sst_session=${session!.value}; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=43200`);
      expect(session!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // The sign-in form's token is spent.
      expect(setCookieNamed(res, 'sst_signin_csrf')!.raw).toBe('sst_signin_csrf=; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=0');

      const overview = await c.get('/dashboard');
      expectPage(overview, 'Overview');
      expect(overview.text).toContain(`<span title="${alice.email}">${alice.email}</span>`);

      const rows: Array<Record<string, unknown>> = await t.app.get(DataSource).query(`SELECT * FROM dashboard_sessions WHERE account_id = ${alice.id}`);
      const mine = rows.filter((r) => r.session_hash === sha256(session!.value));
      expect(mine).toHaveLength(1);
      expect(mine[0].csrf_token).toBe(csrfFieldOf(overview.text));
      expect(new Date(mine[0].expires_at as string).getTime() - new Date(mine[0].created_at as string).getTime()).toBe(12 * 3600_000);
      for (const row of rows) expect(row.session_hash).toMatch(/^[0-9a-f]{64}$/);
      const dump = JSON.stringify(await t.app.get(DataSource).query('SELECT * FROM dashboard_sessions'));
      expect(dump).not.toContain(session!.value);
      expect(dump).not.toContain(a.sessionCookie);

      // Signed in, the sign-in page sends you on (to a safe next only).
      expectRedirect(await c.get('/dashboard/login'), '/dashboard');
      expectRedirect(await c.get('/dashboard/login?next=%2Fdashboard%2Fschedules'), '/dashboard/schedules');
      expectRedirect(await c.get('/dashboard/login?next=https%3A%2F%2Fevil.example'), '/dashboard');
      // The email is matched without regard to case or surrounding spaces.
      expectRedirect(await new DashboardClient(t.url).signIn(`  ${alice.email.toUpperCase()} `, PASSWORD), '/dashboard');
    });

    it('a wrong password and an unknown email get the same 401 page and message, and no session', async () => {
      const dave = await withPassword();
      const c = new DashboardClient(t.url);
      const wrong = await c.signIn(dave.email, 'not the password at all');
      const unknown = await c.signIn('nobody-at-all@example.com', PASSWORD);
      const empty = await c.signIn(dave.email, '');
      for (const res of [wrong, unknown, empty]) {
        expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 401, type: HTML });
        expect(res.text).toContain(`<div class="notice error" role="alert" id="signin-error">${WRONG_CREDENTIALS}</div>`);
        expect(setCookieNamed(res, 'sst_session')).toBeUndefined();
        // A fresh form token comes with the page, so the person can simply try again.
        expect(csrfFieldOf(res.text)).toBe(setCookieNamed(res, 'sst_signin_csrf')!.value);
        expectDashboardHeaders(res);
      }
      expect(wrong.text).toContain(`name="email" autocomplete="username" required value="${dave.email}"`);
      // What was typed comes back escaped.
      const hostile = await c.signIn('"><script>alert(1)</script>', PASSWORD);
      expect(hostile.status).toBe(401);
      expect(hostile.text).toContain('required value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
      expect(hostile.text).not.toContain('<script>alert(1)');
      const normalise = (res: Response, email: string) => res.text.replace(csrfFieldOf(res.text), 'TOKEN').split(email).join('EMAIL');
      expect(normalise(wrong, dave.email)).toBe(normalise(unknown, 'nobody-at-all@example.com'));
      expect(c.sessionCookie).toBeUndefined();
      expect(await t.app.get(DataSource).query(`SELECT * FROM dashboard_sessions WHERE account_id = ${dave.id}`)).toEqual([]);
      // Below the lock-out threshold the right password still works.
      expectRedirect(await c.signIn(dave.email, PASSWORD), '/dashboard');
    });

    it.each([
      ['/dashboard/screenshots?website_id=7', '/dashboard/screenshots?website_id=7'],
      ['/dashboard/settings/api-keys', '/dashboard/settings/api-keys'],
      ['https://evil.example', '/dashboard'],
      ['//evil.example', '/dashboard'],
      ['/dashboard//evil.example', '/dashboard'],
      ['/dashboard.evil.example', '/dashboard'],
      ['/\\evil.example', '/dashboard'],
      ['javascript:alert(1)', '/dashboard'],
    ])('next=%s → 303 to %s', async (next, location) => {
      expectRedirect(await new DashboardClient(t.url).signIn(alice.email, PASSWORD, { next }), location);
    });

    it('behind a trusted proxy that says HTTPS (TRUST_PROXY=true, X-Forwarded-Proto: https) both cookies are Secure; plain http or an untrusted header → not Secure', async () => {
      aux.clock.set(new Date());
      const host = new URL(aux.url).host;
      const viaHttps = auxClient({ 'X-Forwarded-Proto': 'https' });
      const form = await viaHttps.get('/dashboard/login');
      expectCookieAttributes(setCookieNamed(form, 'sst_signin_csrf'), 3600, true);
      // The browser's Origin is then https://<host>: the origin check follows the forwarded protocol.
      const res = await viaHttps.post(
        '/dashboard/login',
        { _csrf: csrfFieldOf(form.text), email: auxUser.email, password: PASSWORD },
        { headers: { Origin: `https://${host}` } },
      );
      expectRedirect(res, '/dashboard');
      expectCookieAttributes(setCookieNamed(res, 'sst_session'), 43200, true);
      expectPage(await viaHttps.get('/dashboard'), 'Overview');

      const plain = auxClient();
      const plainRes = await plain.signIn(auxUser.email, PASSWORD);
      expectRedirect(plainRes, '/dashboard');
      expectCookieAttributes(setCookieNamed(plainRes, 'sst_session'), 43200, false);

      // The main app does not trust proxies: the header is ignored.
      const spoofed = new DashboardClient(t.url, { 'X-Forwarded-Proto': 'https' });
      const spoofedRes = await spoofed.signIn(alice.email, PASSWORD);
      expectRedirect(spoofedRes, '/dashboard');
      expectCookieAttributes(setCookieNamed(spoofedRes, 'sst_session'), 43200, false);
    });
  });

  describe('lock-out and the per-address sign-in limit', () => {
    it('5 wrong passwords: the 5th answer and then even the right password are 429 with Retry-After; another email is unaffected; after the minute the right password works', async () => {
      const victim = await withPassword();
      const other = await withPassword();
      const c = new DashboardClient(t.url);
      for (let i = 1; i <= 4; i++) {
        const res = await c.signIn(victim.email, `wrong password ${i}`);
        expect(res.status).toBe(401);
        expect(res.headers['retry-after']).toBeUndefined();
      }
      const fifth = await c.signIn(victim.email, 'wrong password 5');
      expect({ status: fifth.status, retryAfter: fifth.headers['retry-after'], type: fifth.headers['content-type'] }).toEqual({
        status: 429,
        retryAfter: '60',
        type: HTML,
      });
      expect(fifth.text).toContain(`<div class="notice error" role="alert" id="signin-error">${LOCKED}</div>`);

      const sixth = await c.signIn(victim.email, PASSWORD);
      expect({ status: sixth.status, retryAfter: sixth.headers['retry-after'] }).toEqual({ status: 429, retryAfter: '60' });
      expect(sixth.text).toContain(LOCKED);
      expect(setCookieNamed(sixth, 'sst_session')).toBeUndefined();
      // The lock is on the address, whatever its spelling.
      expect((await c.signIn(victim.email.toUpperCase(), PASSWORD)).status).toBe(429);
      expect(c.sessionCookie).toBeUndefined();

      expectRedirect(await new DashboardClient(t.url).signIn(other.email, PASSWORD), '/dashboard');

      t.clock.advance(30_000);
      const halfway = await c.signIn(victim.email, PASSWORD);
      expect({ status: halfway.status, retryAfter: halfway.headers['retry-after'] }).toEqual({ status: 429, retryAfter: '30' });

      t.clock.advance(31_000); // 61 s after the lock began
      expectRedirect(await c.signIn(victim.email, PASSWORD), '/dashboard');
      expectPage(await c.get('/dashboard'), 'Overview');
      // Success cleared the count: a single mistake now is an ordinary 401 again.
      expect((await new DashboardClient(t.url).signIn(victim.email, 'one more mistake')).status).toBe(401);
    });

    it('parallel guesses right after a lock lifts get one password check between them, not one each', async () => {
      const victim = await withPassword();
      const c = new DashboardClient(t.url);
      for (let i = 1; i <= 5; i++) await c.signIn(victim.email, `wrong password ${i}`);
      t.clock.advance(61_000); // the 1-minute lock has lifted
      const forms = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const client = new DashboardClient(t.url);
          const form = await client.get('/dashboard/login');
          return { client, csrf: csrfFieldOf(form.text) };
        }),
      );
      const answers = await Promise.all(
        forms.map(({ client, csrf }, i) => client.post('/dashboard/login', { _csrf: csrf, email: victim.email, password: `parallel guess ${i}` })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(429));
      // Only the first attempt was counted (and earned the 2-minute lock); the rest were refused unchecked.
      const [row] = await t.app.get(DataSource).query(`SELECT failures FROM sign_in_throttle WHERE throttle_key = 'email:${victim.email.toLowerCase()}'`);
      expect(Number(row.failures)).toBe(6);
      expect((await c.signIn(victim.email, PASSWORD)).headers['retry-after']).toBe('120');
    });

    it('an unknown email locks out exactly like a known one (the answers never tell which exists)', async () => {
      const c = new DashboardClient(t.url);
      const statuses: number[] = [];
      for (let i = 1; i <= 5; i++) statuses.push((await c.signIn('ghost-account@example.com', `guess number ${i}`)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 429]);
      const locked = await c.signIn('ghost-account@example.com', PASSWORD);
      expect({ status: locked.status, retryAfter: locked.headers['retry-after'] }).toEqual({ status: 429, retryAfter: '60' });
      expect(locked.text).toContain(LOCKED);
    });

    it('SIGN_IN_LIMIT_PER_MINUTE=3: the 4th POST /dashboard/login of an address in a minute is 429 (even with the right password); other addresses are unaffected', async () => {
      aux.clock.set(new Date());
      const c = auxClient();
      const form = await c.get('/dashboard/login');
      let token = csrfFieldOf(form.text);
      for (let i = 1; i <= 3; i++) {
        const res = await c.post('/dashboard/login', { _csrf: token, email: auxUser.email, password: `wrong password ${i}` });
        expect(res.status).toBe(401);
        token = csrfFieldOf(res.text);
      }
      const fourth = await c.post('/dashboard/login', { _csrf: token, email: auxUser.email, password: PASSWORD });
      expectErrorPage(fourth, 429, 'Rate limit of 3 sign-in attempts per minute exceeded');
      expectDashboardHeaders(fourth);
      const retryAfter = Number(fourth.headers['retry-after']);
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      expect(setCookieNamed(fourth, 'sst_session')).toBeUndefined();

      expectRedirect(await auxClient().signIn(auxUser.email, PASSWORD), '/dashboard');
    });

    it('TRUST_PROXY=true believes one hop: a forged leftmost X-Forwarded-For entry does not give a guesser a fresh address', async () => {
      aux.clock.set(new Date());
      const real = `198.51.100.${++addressCounter}`;
      // What a reverse proxy forwards: the client's own header, then the address the proxy saw.
      const via = (forged: string) => ({ headers: { 'X-Forwarded-For': `${forged}, ${real}` } });
      const c = new DashboardClient(aux.url);
      let token = csrfFieldOf((await c.get('/dashboard/login', via('203.0.113.250'))).text);
      const statuses: number[] = [];
      for (let i = 1; i <= 4; i++) {
        const res = await c.post('/dashboard/login', { _csrf: token, email: `nobody-${i}@example.com`, password: `guess ${i}` }, via(`203.0.113.${i}`));
        statuses.push(res.status);
        if (res.status === 401) token = csrfFieldOf(res.text);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
    });
  });

  describe('CSRF', () => {
    it('POST /dashboard/login without _csrf, with one not matching the cookie, without the cookie, as JSON or from another origin → 403, no session', async () => {
      const c = new DashboardClient(t.url);
      const form = await c.get('/dashboard/login');
      const token = csrfFieldOf(form.text);
      const foreignToken = csrfFieldOf((await new DashboardClient(t.url).get('/dashboard/login')).text);
      const credentials = { email: alice.email, password: PASSWORD };
      const attempts: Response[] = [
        await c.post('/dashboard/login', credentials),
        await c.post('/dashboard/login', { ...credentials, _csrf: '' }),
        await c.post('/dashboard/login', { ...credentials, _csrf: foreignToken }),
        await new DashboardClient(t.url).post('/dashboard/login', { ...credentials, _csrf: token }),
        await c.post('/dashboard/login', { ...credentials, _csrf: token }, { headers: { Origin: 'http://evil.example' } }),
        // A sandboxed iframe or a data: page posts with `Origin: null`: not our origin, whatever the token.
        await c.post('/dashboard/login', { ...credentials, _csrf: token }, { headers: { Origin: 'null' } }),
        await request(t.url)
          .post('/dashboard/login')
          .set('Cookie', `sst_signin_csrf=${token}`)
          .send({ ...credentials, _csrf: token }),
      ];
      for (const res of attempts) {
        expectErrorPage(res, 403, CSRF_REJECTED);
        expectDashboardHeaders(res);
        expect(setCookieNamed(res, 'sst_session')).toBeUndefined();
      }
      expect(c.sessionCookie).toBeUndefined();
      // The same cookie and token, from our own origin: accepted (the 403s were the checks, not a broken pair).
      expectRedirect(await c.post('/dashboard/login', { ...credentials, _csrf: token }, { headers: { Origin: t.url } }), '/dashboard');
    });

    it("signed-in posts without _csrf, with another session's token, as JSON or from another origin → 403 and nothing changes", async () => {
      const target = await accounts.createToken(alice.email, 'csrf target');
      const actions: Array<[string, FormFields]> = [
        ['/dashboard/settings/api-keys', { name: 'made by a forged form' }],
        [`/dashboard/settings/api-keys/${target.token.id}/revoke`, {}],
        [`/dashboard/websites/${ids.aliceHome}/screenshot`, {}],
        [`/dashboard/screenshots/${ids.shotHome}/delete`, {}],
        ['/dashboard/screenshots/download', { ids: [ids.shotHome, ids.shotBlog] }],
        [`/dashboard/scenarios/${ids.aliceScenario}/run`, {}],
        [`/dashboard/schedules/${ids.aliceSchedule}/disable`, {}],
        ['/dashboard/logout', {}],
      ];
      const state = async () => ({
        tokens: (await accounts.listTokensOf(alice.id)).map((tk) => [tk.id, tk.isRevoked]),
        jobs: await jobTotal(alice),
        screenshots: await screenshotIdsOf(alice),
        schedule: await t.app.get(SchedulesService).get(alice.id, ids.aliceSchedule),
        sessions: await t.app
          .get(DataSource)
          .query<unknown[]>(`SELECT session_hash FROM dashboard_sessions WHERE account_id = ${alice.id} ORDER BY session_hash`),
      });
      const before = await state();
      const aliceToken = await a.csrf();
      const bobToken = await b.csrf();
      expect(bobToken).not.toBe(aliceToken);

      for (const [path, fields] of actions) {
        const attempts: Array<[string, Response]> = [
          ['no _csrf', await a.post(path, fields)],
          ['an empty _csrf', await a.post(path, { ...fields, _csrf: '' })],
          ["another session's token", await a.post(path, { ...fields, _csrf: bobToken })],
          ["this session's token on another session's cookie", await b.post(path, { ...fields, _csrf: aliceToken })],
          ['the right token from another origin', await a.post(path, { ...fields, _csrf: aliceToken }, { headers: { Origin: 'http://evil.example' } })],
          ['the right token from Origin: null', await a.post(path, { ...fields, _csrf: aliceToken }, { headers: { Origin: 'null' } })],
          [
            'the right token in a JSON body',
            await request(t.url)
              .post(path)
              .set('Cookie', `sst_session=${a.sessionCookie}`)
              .send({ ...fields, _csrf: aliceToken }),
          ],
        ];
        for (const [what, res] of attempts) {
          try {
            expectErrorPage(res, 403, CSRF_REJECTED);
            expectDashboardHeaders(res);
          } catch (err) {
            throw new Error(`POST ${path} with ${what}: ${(err as Error).message}`, { cause: err });
          }
        }
      }
      expect(await state()).toEqual(before);
      expectPage(await a.get('/dashboard'), 'Overview');
      expectPage(await b.get('/dashboard'), 'Overview');

      // The right token from our own origin works.
      const made = await a.submit('/dashboard/settings/api-keys', { name: 'made by the real form' }, { headers: { Origin: t.url } });
      expectRedirect(made, '/dashboard/settings/api-keys');
      expect((await accounts.listTokensOf(alice.id)).length).toBe(before.tokens.length + 1);
    });
  });

  describe('sessions', () => {
    it('after POST /dashboard/logout the old cookie is useless; other sessions of the account live on', async () => {
      const c = await signedInAs(alice);
      await c.csrf(); // the copy keeps the token too: a page left open in another tab
      const stolen = c.copy();
      const cookie = c.sessionCookie!;
      const res = await c.submit('/dashboard/logout');
      expectRedirect(res, '/dashboard/login?notice=signed-out');
      expect(setCookieNamed(res, 'sst_session')!.raw).toBe('sst_session=; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=0');
      expect(c.sessionCookie).toBeUndefined();
      const signedOut = await c.get('/dashboard/login?notice=signed-out');
      expect(signedOut.text).toContain('<div class="notice info" role="status">You have signed out.</div>');

      expectRedirect(await stolen.get('/dashboard'), '/dashboard/login?next=%2Fdashboard');
      expectRedirect(await stolen.get('/dashboard/settings/api-keys'), '/dashboard/login?next=%2Fdashboard%2Fsettings%2Fapi-keys');
      // A form sent with a dead session: sign-in says why (issue 46); this form keeps no draft (dashboard-playground-try).
      expectRedirect(await stolen.submit('/dashboard/settings/api-keys', { name: 'after logout' }), '/dashboard/login?notice=session-expired');
      expect(await t.app.get(DataSource).query(`SELECT * FROM dashboard_sessions WHERE session_hash = '${sha256(cookie)}'`)).toEqual([]);
      expectPage(await a.get('/dashboard'), 'Overview');
    });

    it('an unknown or ill-formed session cookie is simply no session', async () => {
      for (const value of ['x', 'A'.repeat(43), '', 'not a session at all']) {
        expectRedirect(await request(t.url).get('/dashboard').set('Cookie', `sst_session=${value}`), '/dashboard/login?next=%2Fdashboard');
      }
    });

    it('a cookie value that is not valid percent-encoding is no session either (not a 500), and the sign-in page still opens', async () => {
      const page = await request(t.url).get('/dashboard').set('Cookie', 'sst_session=%E0%A4%A');
      const form = await request(t.url).get('/dashboard/login').set('Cookie', 'sst_session=%E0%A4%A');
      const post = await request(t.url)
        .post('/dashboard/login')
        .set('Cookie', 'sst_signin_csrf=%E0%A4%A')
        .type('form')
        .send(`_csrf=x&email=${encodeURIComponent(alice.email)}&password=x`);
      // All three at once, so a failure shows every one of them.
      expect({ page: [page.status, page.headers.location], form: form.status, post: post.status }).toEqual({
        page: [303, '/dashboard/login?next=%2Fdashboard'],
        form: 200,
        post: 403,
      });
      expect(post.text).toContain(CSRF_REJECTED);
    });

    it('setting a new password ends every session of the account', async () => {
      const erin = await withPassword();
      const first = await signedInAs(erin);
      const second = await signedInAs(erin);
      expectPage(await first.get('/dashboard'), 'Overview');
      await accounts.setPassword(erin.email, 'a brand new password');
      expectRedirect(await first.get('/dashboard'), '/dashboard/login?next=%2Fdashboard');
      expectRedirect(await second.get('/dashboard'), '/dashboard/login?next=%2Fdashboard');
      expect(await t.app.get(DataSource).query(`SELECT * FROM dashboard_sessions WHERE account_id = ${erin.id}`)).toEqual([]);
      expect((await new DashboardClient(t.url).signIn(erin.email, PASSWORD)).status).toBe(401);
      expectRedirect(await new DashboardClient(t.url).signIn(erin.email, 'a brand new password'), '/dashboard');
    });

    it('a session ends 12 hours after sign-in, however it is used', async () => {
      aux.clock.set(new Date());
      const c = auxClient();
      expectRedirect(await c.signIn(auxUser.email, PASSWORD), '/dashboard');
      aux.clock.advance(12 * 3600_000 - 1_000);
      expectPage(await c.get('/dashboard'), 'Overview');
      aux.clock.advance(2_000); // 12 h + 1 s
      expectRedirect(await c.get('/dashboard'), '/dashboard/login?next=%2Fdashboard');
      expectRedirect(await c.get('/dashboard/settings/api-keys'), '/dashboard/login?next=%2Fdashboard%2Fsettings%2Fapi-keys');
    });
  });

  describe('API keys', () => {
    it('generate shows the secret once; it works on GET /test; the database holds only its SHA-256', async () => {
      const tokensBefore = (await accounts.listTokensOf(alice.id)).length;
      const posted = await a.submit('/dashboard/settings/api-keys', { name: 'ci pipeline' });
      // Post/Redirect/Get: the form's answer is a redirect; the page it leads to shows the new token once.
      expectRedirect(posted, '/dashboard/settings/api-keys');
      expectDashboardHeaders(posted);
      const res = await a.get('/dashboard/settings/api-keys');
      expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 200, type: HTML });
      expectDashboardHeaders(res);
      expect(res.text).toContain('<h1>Settings · API Keys</h1>');
      expect(res.text).toContain(
        '<p><strong>Your new API token “ci pipeline”.</strong> Copy it now: it is shown only this once and cannot be shown again (only its SHA-256 hash is kept).</p>',
      );
      const secret = newSecretOf(res.text)!;
      expect(secret).toMatch(/^sst_[A-Za-z0-9_-]{43}$/);

      const tokens = await accounts.listTokensOf(alice.id);
      expect(tokens.length).toBe(tokensBefore + 1);
      const token = tokens.find((tk) => tk.props.name === 'ci pipeline')!;
      expect(secret.startsWith(token.props.displayPrefix)).toBe(true);

      const again = await a.get('/dashboard/settings/api-keys');
      expectPage(again, 'Settings · API Keys');
      expect(again.text).not.toContain(secret);
      expect(again.text).not.toContain('id="new-token-value"');
      const row = rowOf(again.text, 'token', token.id);
      expect(row).toContain('<td>ci pipeline</td>');
      expect(row).toContain(`<td class="mono">${token.props.displayPrefix}…</td>`);
      expect(row).toContain('<span class="badge badge-active">active</span>');

      const me = await api().get('/test').set('Authorization', `Bearer ${secret}`);
      expect(me.status).toBe(200);
      expect(me.body.user).toMatchObject({ id: alice.id, email: alice.email, subscription_tier: 'pro' });

      const [stored] = await t.app.get(DataSource).query(`SELECT token_hash, display_prefix FROM api_tokens WHERE id = ${token.id}`);
      expect(stored).toEqual({ token_hash: sha256(secret), display_prefix: secret.slice(0, 8) });
      const dump = JSON.stringify(await t.app.get(DataSource).query('SELECT * FROM api_tokens'));
      expect(dump).not.toContain(secret.slice(8));

      // No name → "dashboard"; a name over 255 characters → 422 page, nothing made.
      expectRedirect(await a.submit('/dashboard/settings/api-keys', { name: '   ' }), '/dashboard/settings/api-keys');
      const unnamed = await a.get('/dashboard/settings/api-keys');
      expect(unnamed.text).toContain('Your new API token “dashboard”.');
      const count = (await accounts.listTokensOf(alice.id)).length;
      const tooLong = await a.submit('/dashboard/settings/api-keys', { name: 'n'.repeat(256) });
      expect({ status: tooLong.status, type: tooLong.headers['content-type'] }).toEqual({ status: 422, type: HTML });
      expect(tooLong.text).toContain('<p class="notice error" id="name-error">The name must be at most 255 characters.</p>');
      expect(newSecretOf(tooLong.text)).toBeUndefined();
      expect((await accounts.listTokensOf(alice.id)).length).toBe(count);
    });

    it('reloading the page that showed a new token neither shows it again nor makes another; another session never sees it', async () => {
      const count = (await accounts.listTokensOf(alice.id)).length;
      const thief = a.copy(); // the same session cookie, but not the flash cookie set after this point
      expectRedirect(await a.submit('/dashboard/settings/api-keys', { name: 'reloaded' }), '/dashboard/settings/api-keys');
      const carried = a.cookies.get('sst_new_token')!;
      expect(carried).toBeDefined();
      expect(carried).not.toContain('sst_'); // sealed, not the token itself
      const shown = await a.get('/dashboard/settings/api-keys');
      const secret = newSecretOf(shown.text)!;
      expect(secret).toMatch(/^sst_/);
      for (let reload = 0; reload < 3; reload++) {
        const again = await a.get('/dashboard/settings/api-keys');
        expect(again.text).not.toContain(secret);
        expect(newSecretOf(again.text)).toBeUndefined();
      }
      expect((await accounts.listTokensOf(alice.id)).length).toBe(count + 1);
      // The sealed cookie is bound to the session that made it: presented by another session, it shows nothing.
      const bob = await signedInAs(alice);
      bob.cookies.set('sst_new_token', carried);
      expect(newSecretOf((await bob.get('/dashboard/settings/api-keys')).text)).toBeUndefined();
      expect(newSecretOf((await thief.get('/dashboard/settings/api-keys')).text)).toBeUndefined();
    });

    it("revoke through the confirm page's form → the very next API call with it is 401 with exactly the spec body", async () => {
      expectRedirect(await a.submit('/dashboard/settings/api-keys', { name: 'to revoke' }), '/dashboard/settings/api-keys');
      const secret = newSecretOf((await a.get('/dashboard/settings/api-keys')).text)!;
      await api().get('/test').set('Authorization', `Bearer ${secret}`).expect(200);
      const token = (await accounts.listTokensOf(alice.id)).find((tk) => tk.props.name === 'to revoke')!;

      const list = await a.get('/dashboard/settings/api-keys');
      expect(rowOf(list.text, 'token', token.id)).toContain(`<a class="button danger" href="/dashboard/settings/api-keys/${token.id}/revoke">Revoke Token</a>`);
      const confirm = await a.get(`/dashboard/settings/api-keys/${token.id}/revoke`);
      expectPage(confirm, 'Revoke API token?');
      expect(confirm.text).toContain(`Revoke <strong>to revoke</strong> (<span class="mono">${token.props.displayPrefix}…</span>)?`);
      const action = /<form method="post" action="([^"]+)">/.exec(confirm.text)![1];
      expect(action).toBe(`/dashboard/settings/api-keys/${token.id}/revoke`);
      const res = await a.post(action, { _csrf: csrfFieldOf(confirm.text) });
      expectRedirect(res, '/dashboard/settings/api-keys?notice=token-revoked');

      const refused = await api().get('/test').set('Authorization', `Bearer ${secret}`);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual(UNAUTHORIZED);
      await api().get('/test').set(alice.auth).expect(200); // the account's other tokens still work

      const after = await a.get('/dashboard/settings/api-keys?notice=token-revoked');
      expect(after.text).toContain('<div class="notice ok" role="status">Token revoked. Every request using it is now refused.</div>');
      const row = rowOf(after.text, 'token', token.id);
      expect(row).toContain('<span class="badge badge-revoked">revoked</span>');
      expect(row).not.toContain('Revoke Token');
      expectErrorPage(await a.get(`/dashboard/settings/api-keys/${token.id}/revoke`), 404, 'Token not found');
    });

    it("another account's token id → 404 page (confirm and revoke), and that token keeps working", async () => {
      const aliceDefault = (await accounts.listTokensOf(alice.id)).find((tk) => tk.props.name === 'default')!;
      expectErrorPage(await b.get(`/dashboard/settings/api-keys/${aliceDefault.id}/revoke`), 404, 'Token not found');
      const res = await b.submit(`/dashboard/settings/api-keys/${aliceDefault.id}/revoke`);
      expectErrorPage(res, 404, 'Token not found');
      expectDashboardHeaders(res);
      expect((await accounts.listTokensOf(alice.id)).find((tk) => tk.id === aliceDefault.id)!.isRevoked).toBe(false);
      await api().get('/test').set(alice.auth).expect(200);
      // Bob's page does not list it either.
      expect((await b.get('/dashboard/settings/api-keys')).text).not.toContain(`data-token-id="${aliceDefault.id}"`);
    });

    it.each([
      ['a free-plan account', { plan: 'free' }, 'The Free plan has no API access.'],
      ['an account past its expires_at', { plan: 'pro', expiresAt: new Date(START - 86_400_000) }, 'Your subscription has expired.'],
      ['an inactive subscription', { plan: 'business', status: 'inactive' }, 'Your subscription is inactive.'],
      ['an expired subscription', { plan: 'starter', status: 'expired' }, 'Your subscription is expired.'],
    ])('%s sees why it cannot make tokens, and POST generate → 403 page, no token', async (_, opts, why) => {
      const account = await withPassword(opts);
      const c = await signedInAs(account);
      const notice = `<div class="notice warn" role="note"><strong>${why}</strong> ${ACCESS_TAIL}</div>`;
      const page = await c.get('/dashboard/settings/api-keys');
      expectPage(page, 'Settings · API Keys');
      expect(page.text).toContain(notice);
      expect(page.text).toContain('<button type="submit" id="generate-token" disabled aria-disabled="true">Generate API Token</button>');
      const overview = await c.get('/dashboard');
      expect(overview.text).toContain(notice);

      const before = (await accounts.listTokensOf(account.id)).map((tk) => tk.id);
      const res = await c.submit('/dashboard/settings/api-keys', { name: 'should not exist' });
      expectErrorPage(res, 403, NO_API_ACCESS);
      expect(newSecretOf(res.text)).toBeUndefined();
      expect((await accounts.listTokensOf(account.id)).map((tk) => tk.id)).toEqual(before);
    });
  });

  describe('tenant isolation', () => {
    it("account B gets the same 404 page for every one of A's screenshot routes as for an id that does not exist; A's screenshot survives", async () => {
      const missing = 2_000_000_000;
      const routes = (id: number) => [
        `/dashboard/screenshots/${id}`,
        `/dashboard/screenshots/${id}/image`,
        `/dashboard/screenshots/${id}/download`,
        `/dashboard/screenshots/${id}/thumbnail`,
      ];
      for (const [foreign, absent] of routes(ids.shotHome).map((path, i) => [path, routes(missing)[i]])) {
        const res = await b.get(foreign, { binary: true });
        expect({ path: foreign, status: res.status, type: res.headers['content-type'], etag: res.headers.etag }).toEqual({
          path: foreign,
          status: 404,
          type: HTML,
          etag: undefined,
        });
        const body = (res.body as Buffer).toString('utf8');
        expect(body).toContain('<h1>Not found</h1><p>Screenshot not found</p>');
        expect(body).toBe(((await b.get(absent, { binary: true })).body as Buffer).toString('utf8'));
        expect(res.headers['content-disposition']).toBeUndefined();
        expectDashboardHeaders(res);
      }
      expectErrorPage(await b.submit(`/dashboard/screenshots/${ids.shotHome}/delete`), 404, 'Screenshot not found');
      expectErrorPage(await b.submit('/dashboard/screenshots/download', { ids: [ids.bobShot, ids.shotHome] }), 404, `Screenshots ${ids.shotHome} not found`);

      expect(await screenshotIdsOf(alice)).toContain(ids.shotHome);
      const shot = await t.app.get(ScreenshotRepository).findOwned(alice.id, ids.shotHome);
      expect(existsSync(storagePath(shot!.filePath))).toBe(true);
      const own = await a.get(`/dashboard/screenshots/${ids.shotHome}/image`, { binary: true });
      expect({ status: own.status, type: own.headers['content-type'] }).toEqual({ status: 200, type: 'image/png' });
      // The owner still gets the thumbnail B was refused.
      const thumb = await a.get(`/dashboard/screenshots/${ids.shotHome}/thumbnail`, { binary: true });
      expect({ status: thumb.status, type: thumb.headers['content-type'] }).toEqual({ status: 200, type: 'image/webp' });
    });

    it("account B cannot take a screenshot of A's website, run A's scenario or switch A's schedule: 404 pages, nothing queued or changed", async () => {
      const schedules = t.app.get(SchedulesService);
      const before = { a: await jobTotal(alice), b: await jobTotal(bob), schedule: await schedules.get(alice.id, ids.aliceSchedule) };
      expectErrorPage(await b.submit(`/dashboard/websites/${ids.aliceHome}/screenshot`), 404, 'Website not found');
      expectErrorPage(await b.submit(`/dashboard/scenarios/${ids.aliceScenario}/run`), 404, 'Scenario not found');
      expectErrorPage(await b.submit(`/dashboard/schedules/${ids.aliceSchedule}/disable`), 404, 'Schedule not found');
      expectErrorPage(await b.submit(`/dashboard/schedules/${ids.aliceSchedule}/enable`), 404, 'Schedule not found');
      expect({ a: await jobTotal(alice), b: await jobTotal(bob), schedule: await schedules.get(alice.id, ids.aliceSchedule) }).toEqual(before);
      expect(before.schedule.enabled).toBe(true);
    });

    it("B's pages never show A's screenshots, websites, scenarios or schedules", async () => {
      const aliceShots = await screenshotIdsOf(alice);
      const gallery = await b.get('/dashboard/screenshots');
      expectPage(gallery, 'Screenshots');
      expect(galleryIds(gallery.text)).toEqual(await screenshotIdsOf(bob));
      for (const id of aliceShots) expect(gallery.text).not.toContain(`/dashboard/screenshots/${id}`);
      expect(gallery.text).not.toContain('Alice');
      const filtered = await b.get(`/dashboard/screenshots?website_id=${ids.aliceHome}`);
      expect(galleryIds(filtered.text)).toEqual([]);
      expect(filtered.text).toContain('<p class="muted">No screenshots of this website yet.</p>');

      const websites = await b.get('/dashboard/websites');
      expect(websites.text).toContain(`<tr data-website-id="${ids.bobSite}">`);
      expect(websites.text).not.toMatch(new RegExp(`data-website-id="(${ids.aliceHome}|${ids.aliceBlog})"`));
      const scenarios = await b.get('/dashboard/scenarios');
      expect(scenarios.text).toContain(`<tr data-scenario-id="${ids.bobScenario}">`);
      expect(scenarios.text).not.toContain(`data-scenario-id="${ids.aliceScenario}"`);
      const schedules = await b.get('/dashboard/schedules');
      expect(schedules.text).toContain(`<tr data-schedule-id="${ids.bobSchedule}">`);
      expect(schedules.text).not.toContain(`data-schedule-id="${ids.aliceSchedule}"`);
      const overview = await b.get('/dashboard');
      for (const id of aliceShots) expect(overview.text).not.toContain(`/dashboard/screenshots/${id}"`);
    });
  });

  describe('gallery, pictures and ZIP', () => {
    it("the gallery lists the account's screenshots newest first; website_id filters; a screenshot's page, image, download and thumbnail", async () => {
      const all = await screenshotIdsOf(alice);
      const gallery = await a.get('/dashboard/screenshots');
      expectPage(gallery, 'Screenshots');
      expect(galleryIds(gallery.text)).toEqual(all);
      expect([...all].sort((x, y) => y - x)).toEqual(all);
      expect(gallery.text).toContain('<button type="submit" id="download-zip">Download selected as ZIP</button>');
      expect(gallery.text).not.toContain('id="zip-upgrade"');

      const filtered = await a.get(`/dashboard/screenshots?website_id=${ids.aliceBlog}`);
      expect(galleryIds(filtered.text)).toEqual(await screenshotIdsOf(alice, ids.aliceBlog));
      expect(galleryIds(filtered.text)).toContain(ids.shotBlog);
      expect(galleryIds(filtered.text)).not.toContain(ids.shotHome);
      expect(filtered.text).toContain(`<option value="${ids.aliceBlog}" selected>Alice blog</option>`);
      expect(filtered.text).toContain(`<option value="${ids.aliceHome}">Alice home</option>`);

      const shot = (await t.app.get(ScreenshotRepository).findOwned(alice.id, ids.shotHome))!;
      const page = await a.get(`/dashboard/screenshots/${shot.id}`);
      expectPage(page, `Screenshot ${shot.id}`);
      expect(page.text).toContain(
        `<img src="/dashboard/screenshots/${shot.id}/image" alt="Screenshot ${shot.id} of Alice home, full size" width="1280" height="800">`,
      );
      expect(page.text).toContain(`<form class="inline" method="post" action="/dashboard/screenshots/${shot.id}/delete"`);

      const onDisk = readFileSync(storagePath(shot.filePath));
      const image = await a.get(`/dashboard/screenshots/${shot.id}/image`, { binary: true });
      expect(image.status).toBe(200);
      expect(image.headers).toMatchObject({
        'content-type': 'image/png',
        'content-disposition': `inline; filename="Alice-home-${shot.id}.png"`,
        etag: `"ss-${shot.id}-${shot.fileSize}"`,
        'cache-control': 'private, max-age=31536000, immutable',
      });
      expect(Buffer.compare(image.body as Buffer, onDisk)).toBe(0);
      expect((await a.get(`/dashboard/screenshots/${shot.id}/image`, { headers: { 'If-None-Match': `"ss-${shot.id}-${shot.fileSize}"` } })).status).toBe(304);
      const download = await a.get(`/dashboard/screenshots/${shot.id}/download`, { binary: true });
      expect(download.headers['content-disposition']).toBe(`attachment; filename="Alice-home-${shot.id}.png"`);
      expect(Buffer.compare(download.body as Buffer, onDisk)).toBe(0);

      const thumb = await a.get(`/dashboard/screenshots/${shot.id}/thumbnail`, { binary: true });
      expect({ status: thumb.status, type: thumb.headers['content-type'], cache: thumb.headers['cache-control'] }).toEqual({
        status: 200,
        type: 'image/webp',
        cache: 'private, max-age=31536000, immutable',
      });
      const webp = thumb.body as Buffer;
      expect([webp.subarray(0, 4).toString('latin1'), webp.subarray(8, 12).toString('latin1')]).toEqual(['RIFF', 'WEBP']);
      expect((await a.get(`/dashboard/screenshots/${shot.id}/thumbnail`, { headers: { 'If-None-Match': thumb.headers.etag } })).status).toBe(304);
    });

    it('a Pro account downloads two of its screenshots as one ZIP', async () => {
      const res = await a.submit('/dashboard/screenshots/download', { ids: [ids.shotHome, ids.shotBlog] }, { binary: true });
      expect(res.headers['content-type']).toBe('application/zip');
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="screenshots-\d+\.zip"$/);
      expectDashboardHeaders(res);
      const zip = new AdmZip(res.body as Buffer);
      const entries = zip.getEntries();
      expect(entries.map((e) => e.entryName)).toEqual([`${ids.shotHome}-Alice-home.png`, `${ids.shotBlog}-Alice-blog.png`]);
      for (const [entry, id] of entries.map((e, i) => [e, [ids.shotHome, ids.shotBlog][i]] as const)) {
        const shot = (await t.app.get(ScreenshotRepository).findOwned(alice.id, id))!;
        expect(Buffer.compare(entry.getData(), readFileSync(storagePath(shot.filePath)))).toBe(0);
      }
      // A download, not a creation: 200 like the API's POST /screenshots/download-bulk (checked last, so the
      // contents above are checked whatever the status).
      expect(res.status).toBe(200);
    });

    it('a Starter account: the gallery explains the ZIP needs Pro or Business, and POST → 403 page', async () => {
      const c = await signedInAs(sam);
      const gallery = await c.get('/dashboard/screenshots');
      expect(galleryIds(gallery.text)).toEqual([ids.samShot]);
      expect(gallery.text).toContain('<button type="submit" id="download-zip" disabled aria-disabled="true">Download selected as ZIP</button>');
      expect(gallery.text).toContain('<span class="muted" id="zip-upgrade">Downloading several screenshots as one ZIP needs the Pro or Business plan.</span>');
      const res = await c.submit('/dashboard/screenshots/download', { ids: [ids.samShot] }, { binary: true });
      expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 403, type: HTML });
      expect((res.body as Buffer).toString('utf8')).toContain('<h1>Not allowed</h1><p>Bulk download requires the Pro or Business plan</p>');
      expect(res.headers['content-disposition']).toBeUndefined();
    });

    it('nothing selected → 303 back to the gallery with a notice; more than 100 → 422 page', async () => {
      expectRedirect(await a.submit('/dashboard/screenshots/download'), '/dashboard/screenshots?notice=nothing-selected');
      expectRedirect(await a.submit('/dashboard/screenshots/download', { ids: ['abc', '0', '-1'] }), '/dashboard/screenshots?notice=nothing-selected');
      const back = await a.get('/dashboard/screenshots?notice=nothing-selected');
      expect(back.text).toContain('<div class="notice warn" role="status">Select at least one screenshot first.</div>');
      const tooMany = await a.submit('/dashboard/screenshots/download', { ids: Array.from({ length: 101 }, (_, i) => i + 1) });
      expectErrorPage(tooMany, 422, 'The given data was invalid');
    });

    it('delete removes the row, the PNG and its thumbnail', async () => {
      const id = await capture(alice, ids.aliceHome);
      const shot = (await t.app.get(ScreenshotRepository).findOwned(alice.id, id))!;
      const png = storagePath(shot.filePath);
      const webp = png.replace(/\.png$/, '.thumb.webp');
      expect((await a.get(`/dashboard/screenshots/${id}/thumbnail`, { binary: true })).status).toBe(200);
      expect([existsSync(png), existsSync(webp)]).toEqual([true, true]);

      const res = await a.submit(`/dashboard/screenshots/${id}/delete`);
      expectRedirect(res, '/dashboard/screenshots?notice=screenshot-deleted');
      expect(await t.app.get(ScreenshotRepository).findOwned(alice.id, id)).toBeNull();
      expect([existsSync(png), existsSync(webp)]).toEqual([false, false]);
      const gallery = await a.get('/dashboard/screenshots?notice=screenshot-deleted');
      expect(gallery.text).toContain('<div class="notice ok" role="status">Screenshot deleted.</div>');
      expect(galleryIds(gallery.text)).not.toContain(id);
      expectErrorPage(await a.get(`/dashboard/screenshots/${id}`), 404, 'Screenshot not found');
      expect((await api().get(`/screenshots/${id}`).set(alice.auth)).status).toBe(404);
    });
  });

  describe('the dashboard is not the API', () => {
    it("dashboard responses carry no X-RateLimit-* headers and use none of the account's API quota", async () => {
      const first = await api().get('/test').set(alice.auth).expect(200);
      const remaining = Number(first.headers['x-ratelimit-remaining']);
      const paths = [
        '/dashboard',
        '/dashboard/websites',
        '/dashboard/screenshots',
        `/dashboard/screenshots/${ids.shotHome}`,
        '/dashboard/scenarios',
        '/dashboard/schedules',
        '/dashboard/settings/api-keys',
        '/dashboard/login',
        '/dashboard/assets/dashboard.css',
        '/dashboard/nope',
      ];
      for (const path of paths) {
        const res = await a.get(path);
        expect(Object.keys(res.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
      }
      const zip = await a.submit('/dashboard/screenshots/download', { ids: [ids.shotHome] }, { binary: true });
      expect(zip.headers['content-type']).toBe('application/zip'); // its status is the ZIP test's business
      expect(Object.keys(zip.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
      const second = await api().get('/test').set(alice.auth).expect(200);
      expect(Number(second.headers['x-ratelimit-remaining'])).toBe(remaining - 1);
    });

    it('an API route given a form body (and a valid bearer) is still 400 "Content-Type must be application/json"', async () => {
      const res = await api()
        .post('/websites')
        .set(alice.auth)
        .type('form')
        .send(`name=Form&url=${encodeURIComponent(`${site.url}/alice-home`)}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: 'Content-Type must be application/json', code: 'bad_request' });
      expect(res.headers['x-ratelimit-limit']).toBe('20');
    });

    it('pages, redirects and error pages carry Cache-Control: no-store, X-Frame-Options: DENY and the CSP; pages have no inline script or style', async () => {
      const responses = [
        await a.get('/dashboard'),
        await a.get('/dashboard/websites'),
        await a.get('/dashboard/screenshots'),
        await a.get(`/dashboard/screenshots/${ids.shotHome}`),
        await a.get('/dashboard/scenarios'),
        await a.get('/dashboard/schedules'),
        await a.get('/dashboard/settings/api-keys'),
        await new DashboardClient(t.url).get('/dashboard/login'),
        await new DashboardClient(t.url).get('/dashboard'),
        await a.get('/dashboard/whatever'),
        await a.post('/dashboard/logout'),
      ];
      for (const res of responses) {
        expectDashboardHeaders(res);
        if (res.headers['content-type'] === HTML && res.text) {
          expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
          expect(res.text).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
        }
      }
    });

    it('error pages keep the navigation for a signed-in viewer (a wrong address is not a dead end); without a session they have none', async () => {
      const signedIn = await a.get('/dashboard/whatever/else');
      expectErrorPage(signedIn, 404, 'Page not found');
      expect(signedIn.text).toContain('<nav class="main" aria-label="Main">');
      expect(signedIn.text).toContain('<a href="/dashboard/websites">Websites</a>');
      const inPage = await a.get(`/dashboard/settings/api-keys/999999/revoke`);
      expectErrorPage(inPage, 404, 'Token not found');
      expect(inPage.text).toContain('<nav class="main" aria-label="Main">');
      const anonymous = await new DashboardClient(t.url).get('/dashboard/whatever/else');
      expectErrorPage(anonymous, 404, 'Page not found');
      expect(anonymous.text).not.toContain('<nav class="main"');
    });

    it('/dashboard/api-keys, where people look first, redirects to Settings → API Keys', async () => {
      const res = await a.get('/dashboard/api-keys');
      expect({ status: res.status, location: res.headers.location }).toEqual({ status: 301, location: '/dashboard/settings/api-keys' });
    });

    it('unknown /dashboard/… addresses are 404 HTML pages, signed in or not; the assets are served', async () => {
      for (const client of [a, new DashboardClient(t.url)]) {
        const res = await client.get('/dashboard/whatever/else');
        expectErrorPage(res, 404, 'Page not found');
        expectDashboardHeaders(res);
      }
      expectErrorPage(await a.get('/dashboard/assets/other.css'), 404, 'Not found');
      expectErrorPage(await a.get('/dashboard/screenshots/not-a-number'), 404, 'Resource not found');
      const css = await request(t.url).get('/dashboard/assets/dashboard.css');
      expect({ status: css.status, type: css.headers['content-type'], cache: css.headers['cache-control'] }).toEqual({
        status: 200,
        type: 'text/css; charset=utf-8',
        cache: 'public, max-age=3600',
      });
      const js = await request(t.url).get('/dashboard/assets/dashboard.js');
      expect({ status: js.status, type: js.headers['content-type'], cache: js.headers['cache-control'] }).toEqual({
        status: 200,
        type: 'text/javascript; charset=utf-8',
        cache: 'public, max-age=3600',
      });
      expectDashboardHeaders(js, 'public, max-age=3600');
    });

    it('the stylesheet and script are the files in src/modules/dashboard/static, with an ETag: a revalidation is a bodiless 304', async () => {
      for (const [name, type] of [
        ['dashboard.css', 'text/css; charset=utf-8'],
        ['dashboard.js', 'text/javascript; charset=utf-8'],
      ]) {
        const res = await request(t.url).get(`/dashboard/assets/${name}`);
        expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 200, type });
        expect(res.text).toBe(readFileSync(join(__dirname, '../../src/modules/dashboard/static', name), 'utf8'));
        const etag = res.headers.etag;
        expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
        const again = await request(t.url).get(`/dashboard/assets/${name}`).set('If-None-Match', etag);
        expect({ status: again.status, body: again.text ?? '', etag: again.headers.etag, cache: again.headers['cache-control'] }).toEqual({
          status: 304,
          body: '',
          etag,
          cache: 'public, max-age=3600',
        });
      }
    });

    it('DASHBOARD_LIMIT_PER_MINUTE=5: the 6th dashboard request of an address in a minute is 429; other addresses and the API are unaffected', async () => {
      aux.clock.set(new Date());
      const c = auxClient();
      for (let i = 1; i <= 5; i++) expect((await c.get('/dashboard/login')).status).toBe(200);
      const sixth = await c.get('/dashboard/login');
      expectErrorPage(sixth, 429, 'Rate limit of 5 dashboard requests per minute exceeded');
      expectDashboardHeaders(sixth);
      const retryAfter = Number(sixth.headers['retry-after']);
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      expectErrorPage(await c.get('/dashboard/assets/dashboard.css'), 429, 'Rate limit of 5 dashboard requests per minute exceeded');
      expect((await c.post('/dashboard/login', { email: auxUser.email, password: PASSWORD })).status).toBe(429);

      expect((await auxClient().get('/dashboard/login')).status).toBe(200);
      const health = await request(aux.url).get('/health').set('X-Forwarded-For', c.headers['X-Forwarded-For']);
      expect(health.status).toBe(200);
    });
  });

  describe('pages', () => {
    it("overview: plan, subscription, this minute's and hour's API usage (3 calls → 3) and the recent jobs", async () => {
      const carol = await withPassword({ plan: 'pro', expiresAt: new Date('2031-12-31T00:00:00.000Z') });
      // Exactly three API calls: create, take screenshot, and waitForJob's final GET /jobs/{id}.
      const website = await createWebsite(carol, 'Carol site', '/carol');
      const taken = await api().post(`/websites/${website}/screenshot`).set(carol.auth).expect(200);
      const job = await waitForJob(t.url, carol.auth, taken.body.job_id);
      expect(job.status).toBe('succeeded');

      const c = await signedInAs(carol);
      const page = await c.get('/dashboard');
      expectPage(page, 'Overview');
      expect(page.text).toContain('<div class="card stat"><div class="label">Plan</div><div class="value">Pro</div>');
      expect(page.text).toContain('<div>Subscription <span class="badge badge-active">active</span></div>');
      expect(page.text).toContain('<div class="muted">expires <time datetime="2031-12-31T00:00:00.000Z">2031-12-31 00:00 UTC</time></div>');
      expect(page.text).toMatch(/<div class="label">API requests this minute<\/div>\s*<div class="value">3 <span class="muted">\/ 20<\/span><\/div>/);
      expect(page.text).toContain('<progress max="20" value="3" aria-label="API requests this minute: 3 of 20 used"></progress>');
      expect(page.text).toMatch(/<div class="label">API requests this hour<\/div>\s*<div class="value">3 <span class="muted">\/ 1200<\/span><\/div>/);
      const minuteEnd = new Date(Math.floor(t.clock.now().getTime() / 60_000) * 60_000 + 60_000).toISOString();
      expect(page.text).toContain(`resets <time datetime="${minuteEnd}">`);
      // No access notice (the subscription is active); the one note is the PUBLIC_URL warning (the test app sets none).
      expect([...page.text.matchAll(/<div class="notice warn" role="note"( id="[^"]+")?>/g)].map((m) => m[1] ?? '')).toEqual([' id="public-url-warning"']);

      expect(page.text).toContain('<h2>Recent jobs</h2>');
      expect(page.text).toContain(`<td><a class="mono" href="/dashboard/jobs/${job.id}" title="${job.id}">${job.id.slice(0, 8)}</a></td>`);
      expect(page.text).toMatch(new RegExp(`<td>screenshot</td>\\s*<td>Carol site</td>\\s*<td><span class="badge badge-succeeded">succeeded</span></td>`));
      expect(page.text).toContain(`<a href="/dashboard/screenshots/${job.screenshot_id}">View</a>`);
      // Reading the page counted nothing.
      expect((await c.get('/dashboard')).text).toContain('aria-label="API requests this minute: 3 of 20 used"');

      // Near the limit the bar turns amber; at or over it the card says the account is rate limited, until when.
      for (let i = 0; i < 14; i++) await api().get('/test').set(carol.auth).expect(200);
      const near = (await c.get('/dashboard')).text;
      expect(near).toContain('<progress class="near" max="20" value="17" aria-label="API requests this minute: 17 of 20 used"></progress>');
      expect(near).not.toContain('Rate limited');
      for (let i = 0; i < 3; i++) await api().get('/test').set(carol.auth).expect(200);
      const refused = await api().get('/test').set(carol.auth);
      expect(refused.status).toBe(429);
      const over = (await c.get('/dashboard')).text;
      expect(over).toContain('<div class="card stat limited">');
      expect(over).toMatch(/<progress class="limited" max="20" value="20" aria-label="API requests this minute: 2\d of 20 used"><\/progress>/);
      expect(over).toContain(`<div class="limit-note" role="status">Rate limited: API requests are answered 429 until <time datetime="${minuteEnd}">`);
    });

    it('websites: the latest screenshot as a thumbnail; "Take screenshot" queues a real job that GET /jobs lists and that succeeds', async () => {
      const page = await a.get('/dashboard/websites');
      expectPage(page, 'Websites');
      const latest = (await screenshotIdsOf(alice, ids.aliceBlog))[0];
      expect(rowOf(page.text, 'website', ids.aliceBlog)).toContain(
        `<a href="/dashboard/screenshots/${latest}"><img src="/dashboard/screenshots/${latest}/thumbnail" alt="Latest screenshot of Alice blog" width="160" height="100" loading="lazy"></a>`,
      );
      expect(rowOf(page.text, 'website', ids.aliceBlog)).toContain(
        `<form class="inline" method="post" action="/dashboard/websites/${ids.aliceBlog}/screenshot">`,
      );

      const jobsBefore = await api().get('/jobs').set(alice.auth).expect(200);
      const res = await a.submit(`/dashboard/websites/${ids.aliceBlog}/screenshot`);
      expectRedirect(res, '/dashboard/websites?notice=screenshot-queued');
      const queuedPage = await a.get('/dashboard/websites?notice=screenshot-queued');
      const status = /<td class="job-status"><span class="badge badge-\w+">(\w+)<\/span>/.exec(rowOf(queuedPage.text, 'website', ids.aliceBlog))![1];
      const unfinished = status === 'queued' || status === 'running';
      // The page refreshes itself exactly while the job is unfinished, and says so only then (issue 31: once the job
      // has ended, the reloaded page with the same ?notice= no longer claims it is queued).
      expect(queuedPage.text.includes('<meta http-equiv="refresh" content="3">')).toBe(unfinished);
      const QUEUED = '<div class="notice ok" role="status">Screenshot job queued. This page refreshes until it has finished.</div>';
      const ENDED = '<div class="notice info" role="status">The screenshot job has ended: the Last job column shows how it went.</div>';
      expect(queuedPage.text).toContain(unfinished ? QUEUED : ENDED);

      const jobs = await api().get('/jobs').set(alice.auth).expect(200);
      expect(jobs.body.meta.total).toBe(jobsBefore.body.meta.total + 1);
      const newest = jobs.body.data[0];
      expect(newest).toMatchObject({ type: 'screenshot', website_id: ids.aliceBlog });
      const done = await waitForJob(t.url, alice.auth, newest.id);
      expect(done.status).toBe('succeeded');
      const endedPage = await a.get('/dashboard/websites?notice=screenshot-queued');
      expect(endedPage.text).toContain(ENDED);
      expect(endedPage.text).not.toContain('Screenshot job queued');
      expect(endedPage.text).not.toContain('http-equiv="refresh"');

      const after = await a.get('/dashboard/websites');
      const row = rowOf(after.text, 'website', ids.aliceBlog);
      expect(row).toContain(`<img src="/dashboard/screenshots/${done.screenshot_id}/thumbnail"`);
      expect(row).toContain('<td class="job-status"><span class="badge badge-succeeded">succeeded</span>');
      expect(after.text).not.toContain('http-equiv="refresh"');
      const thumb = await a.get(`/dashboard/screenshots/${done.screenshot_id}/thumbnail`, { binary: true });
      expect({ status: thumb.status, type: thumb.headers['content-type'] }).toEqual({ status: 200, type: 'image/webp' });
    });

    it('names from the API are escaped on every page that shows them', async () => {
      const name = `<img src=x onerror=alert(1)> "Bob's" & co`;
      const escaped = '&lt;img src=x onerror=alert(1)&gt; &quot;Bob&#39;s&quot; &amp; co';
      const website = await createWebsite(bob, name, '/bob');
      const websites = await b.get('/dashboard/websites');
      expect(rowOf(websites.text, 'website', website)).toContain(`<strong>${escaped}</strong>`);
      const gallery = await b.get('/dashboard/screenshots');
      expect(gallery.text).toContain(`<option value="${website}">${escaped}</option>`);
      for (const page of [websites, gallery]) expect(page.text).not.toContain('<img src=x');
    });

    it('an account whose subscription lapsed cannot take a screenshot from the page (403), and nothing is queued', async () => {
      const lapsed = await withPassword({ plan: 'pro' });
      const website = await createWebsite(lapsed, 'Lapsed site', '/carol');
      const c = await signedInAs(lapsed);
      await accounts.updateAccount(lapsed.email, { status: 'expired' });
      const page = await c.get('/dashboard/websites');
      expect(rowOf(page.text, 'website', website)).toContain('<button type="submit" disabled aria-disabled="true">Take screenshot</button>');
      expect(page.text).toContain(`<div class="notice warn" role="note"><strong>Your subscription is expired.</strong> ${ACCESS_TAIL}</div>`);
      expectErrorPage(await c.submit(`/dashboard/websites/${website}/screenshot`), 403, NO_API_ACCESS);
      expect(await jobTotal(lapsed)).toBe(0);
    });

    it("schedules: the next run in the schedule's own zone and in UTC; disable and enable from the page", async () => {
      const fromApi = await api().get(`/schedules/${ids.aliceSchedule}`).set(alice.auth).expect(200);
      expect(fromApi.body.data.next_run_at).toBe('2031-01-16T06:30:00.000Z');
      const page = await a.get('/dashboard/schedules');
      expectPage(page, 'Schedules');
      const row = rowOf(page.text, 'schedule', ids.aliceSchedule);
      expect(row).toContain('<td><strong>Every morning</strong></td>');
      expect(row).toContain('<td>Screenshot of Alice home</td>'); // what it runs: the website's screenshot (or a scenario)
      expect(row).toContain('<td>daily at 07:30<br><span class="muted">Europe/Berlin</span></td>');
      expect(row).toMatch(
        /<time datetime="2031-01-16T06:30:00\.000Z">2031-01-16 07:30 (CET|GMT\+1)<\/time><br><span class="muted"><time datetime="2031-01-16T06:30:00\.000Z">2031-01-16 06:30 UTC<\/time><\/span>/,
      );
      expect(row).toContain('<span class="badge badge-enabled">enabled</span>');

      const disabled = await a.submit(`/dashboard/schedules/${ids.aliceSchedule}/disable`);
      expectRedirect(disabled, '/dashboard/schedules?notice=schedule-disabled');
      const afterDisable = await a.get('/dashboard/schedules?notice=schedule-disabled');
      expect(afterDisable.text).toContain('<div class="notice ok" role="status">Schedule disabled.</div>');
      const offRow = rowOf(afterDisable.text, 'schedule', ids.aliceSchedule);
      expect(offRow).toContain('<span class="muted">— (disabled)</span>');
      expect(offRow).toContain(`<form class="inline" method="post" action="/dashboard/schedules/${ids.aliceSchedule}/enable">`);
      expect((await api().get(`/schedules/${ids.aliceSchedule}`).set(alice.auth)).body.data).toMatchObject({ enabled: false, next_run_at: null });

      expectRedirect(await a.submit(`/dashboard/schedules/${ids.aliceSchedule}/enable`), '/dashboard/schedules?notice=schedule-enabled');
      expect((await api().get(`/schedules/${ids.aliceSchedule}`).set(alice.auth)).body.data).toMatchObject({
        enabled: true,
        next_run_at: '2031-01-16T06:30:00.000Z',
      });
      expect(rowOf((await a.get('/dashboard/schedules')).text, 'schedule', ids.aliceSchedule)).toContain('<span class="badge badge-enabled">enabled</span>');
    });

    it('scenarios: "Run" queues an execution; the page then shows its status and when it finished', async () => {
      const before = await a.get('/dashboard/scenarios');
      expectPage(before, 'Scenarios');
      const row = rowOf(before.text, 'scenario', ids.aliceScenario);
      expect(row).toContain('<td><strong>Alice check</strong></td>');
      expect(row).toContain('<td>Alice home</td>');
      expect(row).toContain('<td>1</td>');
      expect(row).toContain('<span class="muted">never run</span>');

      expectRedirect(await a.submit(`/dashboard/scenarios/${ids.aliceScenario}/run`), '/dashboard/scenarios?notice=scenario-started');
      expect((await a.get('/dashboard/scenarios?notice=scenario-started')).text).toContain('<div class="notice ok" role="status">Scenario run queued.</div>');
      const jobs = await api().get('/jobs').set(alice.auth).expect(200);
      const run = jobs.body.data.find((j: { type: string }) => j.type === 'scenario');
      expect(run).toBeDefined();
      const done = await waitForJob(t.url, alice.auth, run.id);
      expect(done.status).toBe('succeeded');

      const after = await a.get('/dashboard/scenarios');
      expect(rowOf(after.text, 'scenario', ids.aliceScenario)).toContain(
        `<span class="badge badge-succeeded">succeeded</span> <time datetime="${String(done.finished_at)}">`,
      );
      expect(after.text).not.toContain('http-equiv="refresh"');
    });
  });
});
