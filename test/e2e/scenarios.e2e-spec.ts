import { lookup } from 'node:dns/promises';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, isIP } from 'node:net';
import { hostname as osHostname } from 'node:os';
import { PNG } from 'pngjs';
import request from 'supertest';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { classifyAddress } from '../../src/shared/url-policy';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';
import { binary, pixel } from '../support/assertions';

/**
 * Scenarios and their executions against real Chromium (spec: Resources/Scenario, Endpoints/Scenarios;
 * API.md: Scenarios, Jobs and executions, URL policy).
 *
 * The fixture site (PageServer on 127.0.0.1) has a login form: GET /login shows #username, #password and a
 * submit button; the form POSTs to /session, which sets a session cookie only for alice's password and
 * redirects to /dashboard; /dashboard shows #dashboard ("Welcome, alice") on a distinctive background only
 * with that cookie. GET /js-login is the same login handled by JavaScript (fetch, then the dashboard is rendered
 * in place, no navigation), so the checks of a successful run also hold where the form does not navigate.
 *
 * The main app runs with ALLOW_PRIVATE_NETWORKS=true (startTestApp's default) and SCENARIO_STEP_TIMEOUT_MS=2000,
 * so a click on a missing element fails after ~2 s. CAPTURE_TIMEOUT_MS=10000: the browser-side action of a step
 * the runner has already timed out keeps a timer alive for CAPTURE_TIMEOUT_MS (even past app.close()), which
 * at the default 30 s would keep Jest from exiting. A second app with the URL policy on (private networks
 * refused, only the page server's origin allowlisted) covers run-time policy refusals.
 *
 * Rate limit: accounts are on Pro (20 requests per calendar minute). The clocks are pinned; every test starts
 * in a fresh minute and long tests move to the next minute between groups of requests. Executions are awaited
 * by reading the jobs table directly, which costs no request.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const NOT_FOUND = { success: false, error: expect.any(String), code: 'not_found' };

const ALICE_PASSWORD = 'correct-horse-battery';
const SESSION_COOKIE = 'session=alice-session-7f3a';
/** The logged-in page's background. */
const DASHBOARD_RGB: [number, number, number] = [18, 120, 200];
const SECRET = 'hunter2-secret';

interface Execution {
  id: string;
  scenario_id: number;
  status: string;
  steps: Array<{ index: number; type: string; status: string; duration_ms: number | null; error: string | null }>;
  screenshot_ids: number[];
  error: string | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

type StepBody = Record<string, unknown>;

const LOGIN_PAGE =
  '<!doctype html><html><head><title>Sign in</title><style>html,body{margin:0;background:rgb(255,255,255)}</style></head><body>' +
  '<form id="login" method="POST" action="/session" style="padding:40px">' +
  '<label>User <input id="username" name="username" type="text" autocomplete="off"></label>' +
  '<label>Password <input id="password" name="password" type="password" autocomplete="off"></label>' +
  '<select id="plan" name="plan"><option value="basic">Basic</option><option value="pro">Pro</option></select>' +
  '<button id="submit" type="submit">Sign in</button>' +
  '</form></body></html>';

const DASHBOARD_FRAGMENT = '<div id="dashboard" style="position:absolute;left:300px;top:250px;color:#fff;font:20px sans-serif">Welcome, alice</div>';
const DASHBOARD_PAGE =
  `<!doctype html><html><head><title>Dashboard</title><style>html,body{margin:0;background:rgb(${DASHBOARD_RGB.join(',')})}</style></head><body>` +
  DASHBOARD_FRAGMENT +
  '</body></html>';

/** The same login, handled in the page: fetch() posts the credentials and the page renders the dashboard in place. */
const JS_LOGIN_PAGE =
  '<!doctype html><html><head><title>Sign in</title><style>html,body{margin:0;background:rgb(255,255,255)}</style></head><body>' +
  '<form id="login" style="padding:40px">' +
  '<input id="username" type="text" autocomplete="off"><input id="password" type="password" autocomplete="off">' +
  '<button id="submit" type="submit">Sign in</button><p id="message"></p></form>' +
  '<script>' +
  'document.getElementById("login").addEventListener("submit", async (event) => {' +
  '  event.preventDefault();' +
  '  const res = await fetch("/api/session", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },' +
  '    body: new URLSearchParams({ username: document.getElementById("username").value, password: document.getElementById("password").value }) });' +
  '  if (!res.ok) { document.getElementById("message").textContent = "Wrong credentials"; return; }' +
  '  document.body.innerHTML = await res.text();' +
  `  document.documentElement.style.background = document.body.style.background = "rgb(${DASHBOARD_RGB.join(',')})";` +
  '});' +
  '</script></body></html>';

const SIGNED_OUT_PAGE =
  '<!doctype html><html><head><style>html,body{margin:0;background:rgb(255,255,255)}</style></head><body><h1 id="signed-out">Please sign in</h1></body></html>';

/** Collects a binary response body into a Buffer (supertest's default parsers would not). */

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
  });
}

function validation(details: Array<{ field: string; message: unknown }>) {
  return { success: false, error: expect.any(String), code: 'validation_failed', details };
}

/** A server on every interface that must never be reached: counts every request and every connection. */
class InternalServer {
  private server!: Server;
  requests = 0;
  connections = 0;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((_req, res: ServerResponse) => {
      this.requests += 1;
      res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage('rgb(255,0,255)'));
    });
    this.server.on('connection', () => (this.connections += 1));
    // No host: all interfaces (IPv4 and IPv6), so a name resolving to any local address would reach it.
    await new Promise<void>((resolve) => this.server.listen(0, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A host NAME (not an IP literal, not "localhost") that resolves only to non-public addresses on this machine
 * (the machine's own hostname, or ip6-localhost from /etc/hosts): it passes the create-time syntax check, so
 * only the run-time check can refuse it. Null when this machine has none.
 */
async function localAlias(): Promise<string | null> {
  for (const name of [osHostname(), 'ip6-localhost', 'ip6-loopback']) {
    if (!name || isIP(name) || /(^|\.)localhost\.?$/i.test(name)) continue;
    try {
      const addresses = (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);
      if (addresses.length > 0 && addresses.every((a) => classifyAddress(a) !== null)) return name;
    } catch {
      // not resolvable here: try the next one
    }
  }
  return null;
}

describe('Scenarios and executions with real Chromium', () => {
  let t: TestApp;
  let pages: PageServer;
  /** Usernames POSTed to /session, in order (passwords are never recorded). */
  const logins: string[] = [];
  let minute = Date.parse('2033-07-01T09:00:00Z');
  const pinnedApps: TestApp[] = [];

  /** Pins every app's clock to a new calendar minute: every account starts a fresh 20-request window. */
  function freshMinute(): void {
    minute += 60_000;
    for (const app of pinnedApps) app.clock.set(new Date(minute));
  }

  async function createWebsite(app: TestApp, account: TestAccount, body: Record<string, unknown>): Promise<{ id: number }> {
    const res = await request(app.url).post('/websites').set(account.auth).send(body);
    expect(res.status).toBe(201);
    return res.body.data;
  }

  async function createScenario(app: TestApp, account: TestAccount, body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await request(app.url).post('/scenarios').set(account.auth).send(body);
    if (res.status !== 201) throw new Error(`POST /scenarios answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.data;
  }

  async function run(app: TestApp, account: TestAccount, scenarioId: number): Promise<string> {
    const res = await request(app.url).post(`/scenarios/${scenarioId}/run`).set(account.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String), execution_id: expect.stringMatching(UUID) });
    return res.body.execution_id;
  }

  /** Waits (reading the jobs table, no request) until the execution has finished, then GET /executions/{id}. */
  async function settle(app: TestApp, account: TestAccount, executionId: string, timeoutMs = 60_000): Promise<{ body: any; execution: Execution }> {
    const jobs = app.app.get(JobRepository);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = (await jobs.findById(executionId))?.status ?? 'missing';
      if (status === 'succeeded' || status === 'failed') break;
      if (Date.now() > deadline) throw new Error(`execution ${executionId} still ${status} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    freshMinute();
    const res = await request(app.url).get(`/executions/${executionId}`).set(account.auth);
    expect(res.status).toBe(200);
    return { body: res.body, execution: res.body.data };
  }

  async function download(app: TestApp, account: TestAccount, id: number): Promise<PNG> {
    const res = await request(app.url).get(`/screenshots/${id}/download`).set(account.auth).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/png/);
    return PNG.sync.read(res.body as Buffer);
  }

  const loginSteps = (password: string): StepBody[] => [
    { type: 'fill', selector: '#username', value: 'alice' },
    { type: 'fill', selector: '#password', value: password },
    { type: 'click', selector: '#submit' },
  ];

  beforeAll(async () => {
    t = await startTestApp({ env: { SCENARIO_STEP_TIMEOUT_MS: '2000', CAPTURE_TIMEOUT_MS: '10000' } });
    pinnedApps.push(t);
    pages = await new PageServer({
      '/login': LOGIN_PAGE,
      '/session': (req, res) => {
        void readBody(req).then((body) => {
          const form = new URLSearchParams(body);
          logins.push(form.get('username') ?? '');
          if (req.method === 'POST' && form.get('username') === 'alice' && form.get('password') === ALICE_PASSWORD) {
            res.writeHead(303, { location: '/dashboard', 'set-cookie': `${SESSION_COOKIE}; Path=/; HttpOnly` }).end();
          } else {
            res.writeHead(303, { location: '/login?error=1' }).end();
          }
        });
      },
      '/js-login': JS_LOGIN_PAGE,
      '/api/session': (req, res) => {
        void readBody(req).then((body) => {
          const form = new URLSearchParams(body);
          logins.push(form.get('username') ?? '');
          if (req.method === 'POST' && form.get('username') === 'alice' && form.get('password') === ALICE_PASSWORD) {
            res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DASHBOARD_FRAGMENT);
          } else {
            res.writeHead(401, { 'content-type': 'text/plain' }).end('wrong credentials');
          }
        });
      },
      '/dashboard': (req, res) => {
        const loggedIn = (req.headers.cookie ?? '').split(/;\s*/).includes(SESSION_COOKIE);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loggedIn ? DASHBOARD_PAGE : SIGNED_OUT_PAGE);
      },
      '/plain': solidPage('rgb(0,200,0)'),
      '/tall': solidPage('rgb(0,0,200)', 1500),
    }).start();
  });
  afterAll(async () => {
    await pages?.stop();
    await t?.close();
  });
  beforeEach(() => freshMinute());

  describe('running a login scenario', () => {
    it.each([
      ['a form POST that redirects to /dashboard (a navigation)', '/login'],
      ['a form handled by JavaScript (fetch, dashboard rendered in place)', '/js-login'],
    ])(
      'login via %s: fill, fill, click, wait_for #dashboard, screenshot → succeeded; step records, the last step’s screenshot is the final one (stored once), the PNG shows the logged-in page',
      async (_label, loginPath) => {
        const api = () => request(t.url);
        const account = await t.createAccount({ plan: 'pro' });
        const site = await createWebsite(t, account, { name: 'fixture-login', url: `${pages.url}${loginPath}`, viewport_width: 800, viewport_height: 600 });
        const scenario = await createScenario(t, account, {
          name: 'Log in as alice',
          website_id: site.id,
          steps: [...loginSteps(ALICE_PASSWORD), { type: 'wait_for', selector: '#dashboard' }, { type: 'screenshot' }],
        });
        const loginsBefore = logins.length;

        const executionId = await run(t, account, scenario.id);
        const { body, execution } = await settle(t, account, executionId);

        expect(body.success).toBe(true);
        expect(execution).toEqual({
          id: executionId,
          scenario_id: scenario.id,
          status: 'succeeded',
          steps: ['fill', 'fill', 'click', 'wait_for', 'screenshot'].map((type, index) => ({
            index,
            type,
            status: 'succeeded',
            duration_ms: expect.any(Number),
            error: null,
          })),
          // The last step is a `screenshot` taken as the final one would be: its image IS the final screenshot.
          screenshot_ids: [expect.any(Number)],
          error: null,
          error_code: null,
          attempts: expect.any(Number),
          created_at: expect.stringMatching(ISO_UTC),
          started_at: expect.stringMatching(ISO_UTC),
          finished_at: expect.stringMatching(ISO_UTC),
        });
        for (const step of execution.steps) expect(step.duration_ms).toBeGreaterThanOrEqual(0);
        // The browser really submitted the form with the filled username.
        expect(logins.slice(loginsBefore)).toEqual(['alice']);

        // The execution is a job of type 'scenario' too (GET /jobs/{id}).
        const asJob = await api().get(`/jobs/${executionId}`).set(account.auth).expect(200);
        expect(asJob.body.data).toMatchObject({ id: executionId, type: 'scenario', status: 'succeeded', website_id: site.id, error: null });
        const [stepShotId] = execution.screenshot_ids;
        expect(asJob.body.data.screenshot_id).toBe(stepShotId);

        // A normal screenshot row of the scenario's website, tied to the scenario and the execution.
        for (const id of execution.screenshot_ids) {
          const got = await api().get(`/screenshots/${id}`).set(account.auth);
          expect(got.status).toBe(200);
          expect(got.body.data).toMatchObject({
            id,
            website_id: site.id,
            scenario_id: scenario.id,
            execution_id: executionId,
            width: 800,
            height: 600,
            status: 'success',
            file_path: `screenshots/${account.id}/${site.id}/${id}.png`,
          });
        }

        // The screenshot step's PNG (the final one too) shows the logged-in page (its colour).
        const stepPng = await download(t, account, stepShotId);
        expect([stepPng.width, stepPng.height]).toEqual([800, 600]);
        expect(pixel(stepPng, 10, 10)).toEqual([...DASHBOARD_RGB, 255]);
        expect(pixel(stepPng, 790, 590)).toEqual([...DASHBOARD_RGB, 255]);

        freshMinute();
        // A plain capture of the same website: in the unfiltered list, not in the scenario_id filter.
        const take = await api().post(`/websites/${site.id}/screenshot`).set(account.auth).expect(200);
        const plainJob = await settleJob(account, take.body.job_id);
        expect(plainJob.status).toBe('succeeded');

        const filtered = await api().get(`/screenshots?scenario_id=${scenario.id}`).set(account.auth);
        expect(filtered.status).toBe(200);
        expect(filtered.body.data.map((s: { id: number }) => s.id)).toEqual([stepShotId]);
        expect(filtered.body.meta).toMatchObject({ total: 1 });
        for (const shot of filtered.body.data) expect(shot).toMatchObject({ scenario_id: scenario.id, execution_id: executionId });

        const all = await api().get(`/screenshots?website_id=${site.id}`).set(account.auth);
        expect(all.status).toBe(200);
        expect(all.body.meta).toMatchObject({ total: 2 });
        expect(all.body.data.map((s: { id: number }) => s.id)).toEqual([plainJob.screenshot_id, stepShotId]);

        const none = await api()
          .get(`/screenshots?scenario_id=${scenario.id + 1000}`)
          .set(account.auth);
        expect(none.status).toBe(200);
        expect(none.body.data).toEqual([]);
      },
    );

    // The same navigating login, queued 10 times at once: a scenario that logs in must not fail at random.
    it('the navigating login scenario is reliable: 10 runs of it all succeed', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(t, account, { name: 'fixture-login-again', url: `${pages.url}/login`, viewport_width: 800, viewport_height: 600 });
      const scenario = await createScenario(t, account, {
        name: 'Log in as alice, again and again',
        website_id: site.id,
        steps: [...loginSteps(ALICE_PASSWORD), { type: 'wait_for', selector: '#dashboard' }],
      });
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await run(t, account, scenario.id));
      const outcomes: string[] = [];
      for (const id of ids) {
        const { execution } = await settle(t, account, id);
        outcomes.push(execution.status === 'succeeded' ? 'succeeded' : `${execution.status}: ${execution.error}`);
      }
      expect(outcomes).toEqual(ids.map(() => 'succeeded'));
    });

    it('a last `screenshot` step whose full_page differs from the final shot, or one followed by another step: two screenshots, the final one last', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(t, account, { name: 'fixture-tall', url: `${pages.url}/tall`, viewport_width: 800, viewport_height: 600 });
      const fullPageLast = await createScenario(t, account, { name: 'Full page last', website_id: site.id, steps: [{ type: 'screenshot', full_page: true }] });
      const thenWait = await createScenario(t, account, {
        name: 'Screenshot, then wait',
        website_id: site.id,
        steps: [{ type: 'screenshot' }, { type: 'wait', duration: 10 }],
      });

      for (const [scenario, stepShotHeight] of [
        [fullPageLast, 1500],
        [thenWait, 600],
      ] as const) {
        const executionId = await run(t, account, scenario.id);
        const { execution } = await settle(t, account, executionId);
        expect(execution.status).toBe('succeeded');
        expect(execution.screenshot_ids).toEqual([expect.any(Number), expect.any(Number)]);
        const [stepShotId, finalShotId] = execution.screenshot_ids;
        expect(finalShotId).toBeGreaterThan(stepShotId);
        const asJob = await settleJob(account, executionId);
        expect(asJob.screenshot_id).toBe(finalShotId);
        expect((await download(t, account, stepShotId)).height).toBe(stepShotHeight);
        expect((await download(t, account, finalShotId)).height).toBe(600);
        freshMinute();
      }
    });

    async function settleJob(account: TestAccount, jobId: string): Promise<{ status: string; screenshot_id: number | null }> {
      const jobs = t.app.get(JobRepository);
      const deadline = Date.now() + 45_000;
      for (;;) {
        const job = await jobs.findById(jobId);
        if (job && (job.status === 'succeeded' || job.status === 'failed')) return { status: job.status, screenshot_id: job.resultId };
        if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish (${account.email})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    it('a click on a missing selector fails the execution at that step (later steps skipped) and still stores a screenshot', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(t, account, { name: 'fixture-missing', url: `${pages.url}/login`, viewport_width: 800, viewport_height: 600 });
      const scenario = await createScenario(t, account, {
        name: 'Click what is not there',
        website_id: site.id,
        steps: [
          { type: 'fill', selector: '#username', value: 'bob' },
          { type: 'click', selector: '#does-not-exist' },
          { type: 'screenshot' },
          { type: 'wait', duration: 10 },
        ],
      });

      const started = Date.now();
      const executionId = await run(t, account, scenario.id);
      const { execution } = await settle(t, account, executionId);
      const elapsed = Date.now() - started;

      expect(execution).toMatchObject({ id: executionId, scenario_id: scenario.id, status: 'failed' });
      expect(execution.steps).toEqual([
        { index: 0, type: 'fill', status: 'succeeded', duration_ms: expect.any(Number), error: null },
        { index: 1, type: 'click', status: 'failed', duration_ms: expect.any(Number), error: expect.any(String) },
        { index: 2, type: 'screenshot', status: 'skipped', duration_ms: null, error: null },
        { index: 3, type: 'wait', status: 'skipped', duration_ms: null, error: null },
      ]);
      // SCENARIO_STEP_TIMEOUT_MS=2000 bounds the click.
      expect(execution.steps[1].duration_ms).toBeGreaterThanOrEqual(1900);
      expect(execution.steps[1].duration_ms).toBeLessThan(10_000);
      expect(elapsed).toBeLessThan(20_000);
      expect(execution.steps[1].error!.length).toBeGreaterThan(0);
      expect(execution.steps[1].error).toMatch(/timed out|#does-not-exist|no element/i);
      // The execution's error names the step index and type.
      expect(execution.error).toEqual(expect.stringContaining('Step 1'));
      expect(execution.error).toEqual(expect.stringContaining('click'));
      expect(execution.error).toEqual(expect.stringContaining(execution.steps[1].error!));

      // One screenshot of the page as it was, for debugging (the skipped screenshot step took none).
      expect(execution.screenshot_ids).toEqual([expect.any(Number)]);
      const got = await request(t.url).get(`/screenshots/${execution.screenshot_ids[0]}`).set(account.auth).expect(200);
      expect(got.body.data).toMatchObject({ website_id: site.id, scenario_id: scenario.id, execution_id: executionId });
      const png = await download(t, account, execution.screenshot_ids[0]);
      expect(pixel(png, 5, 5)).toEqual([255, 255, 255, 255]);

      const asJob = await request(t.url).get(`/jobs/${executionId}`).set(account.auth).expect(200);
      expect(asJob.body.data).toMatchObject({ type: 'scenario', status: 'failed', error: execution.error });
    });

    it('fill values never appear in an execution, even when the failing step would echo them', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(t, account, { name: 'fixture-secret', url: `${pages.url}/login`, viewport_width: 800, viewport_height: 600 });
      const fillSecret: StepBody = { type: 'fill', selector: '#password', value: SECRET };
      const variants: Array<{ name: string; steps: StepBody[]; index: number; type: string }> = [
        // Wrong password: the form is submitted with the secret, and no dashboard ever appears.
        { name: 'wrong password', steps: [...loginSteps(SECRET), { type: 'wait_for', selector: '#dashboard', timeout: 1000 }], index: 3, type: 'wait_for' },
        // An option value equal to the secret: "no option with value ..." would echo it.
        { name: 'select echo', steps: [fillSecret, { type: 'select', selector: '#plan', value: SECRET }], index: 1, type: 'select' },
        // A selector containing the secret: a timeout message naming the selector would echo it.
        { name: 'selector echo', steps: [fillSecret, { type: 'wait_for', selector: `input[value="${SECRET}"]`, timeout: 500 }], index: 1, type: 'wait_for' },
      ];
      const runs: Array<{ id: string; variant: (typeof variants)[number]; scenarioId: number }> = [];
      for (const variant of variants) {
        const scenario = await createScenario(t, account, { name: `secret: ${variant.name}`, website_id: site.id, steps: variant.steps });
        // The owner's own scenario keeps the value as written.
        expect(scenario.steps).toContainEqual(fillSecret);
        runs.push({ id: await run(t, account, scenario.id), variant, scenarioId: scenario.id });
      }

      for (const { id, variant, scenarioId } of runs) {
        const { body, execution } = await settle(t, account, id);
        expect(execution).toMatchObject({ scenario_id: scenarioId, status: 'failed' });
        const failed = execution.steps[variant.index];
        expect(failed).toMatchObject({ index: variant.index, type: variant.type, status: 'failed', error: expect.any(String) });
        expect(failed.error!.length).toBeGreaterThan(0);
        expect(execution.error).toEqual(expect.stringContaining(`Step ${variant.index}`));
        expect(execution.screenshot_ids).toHaveLength(1);
        if (variant.name === 'wrong password') {
          // Without the right password there is no dashboard: the failure screenshot is the white login page.
          const png = await download(t, account, execution.screenshot_ids[0]);
          expect(pixel(png, 10, 10)).toEqual([255, 255, 255, 255]);
        }

        const json = JSON.stringify(body);
        expect(json).not.toContain(SECRET);
        expect(json).not.toContain(encodeURIComponent(SECRET));
        expect(json).not.toContain('hunter2');

        const asJob = await request(t.url).get(`/jobs/${id}`).set(account.auth).expect(200);
        expect(JSON.stringify(asJob.body)).not.toContain('hunter2');

        const listed = await request(t.url).get(`/scenarios/${scenarioId}/executions`).set(account.auth).expect(200);
        expect(JSON.stringify(listed.body)).not.toContain('hunter2');
      }
    });
  });

  describe('validation (422 with precise details)', () => {
    let account: TestAccount;
    let other: TestAccount;
    let websiteId: number;
    let othersWebsiteId: number;

    beforeAll(async () => {
      freshMinute();
      account = await t.createAccount({ plan: 'pro' });
      other = await t.createAccount({ plan: 'pro' });
      websiteId = (await createWebsite(t, account, { name: 'validation-site', url: `${pages.url}/plain` })).id;
      othersWebsiteId = (await createWebsite(t, other, { name: 'others-site', url: `${pages.url}/plain` })).id;
    });

    const ok: StepBody = { type: 'wait', duration: 10 };
    const cases: Array<[string, (ctx: { websiteId: number; othersWebsiteId: number }) => Record<string, unknown>, Array<{ field: string; message: unknown }>]> =
      [
        [
          'unknown step type',
          ({ websiteId }) => ({ name: 's', website_id: websiteId, steps: [{ type: 'teleport', to: 'mars' }] }),
          [{ field: 'steps[0].type', message: expect.stringMatching(/must be one of navigate, fill, click, wait/) }],
        ],
        [
          'a missing field',
          ({ websiteId }) => ({ name: 's', website_id: websiteId, steps: [ok, { type: 'click' }] }),
          [{ field: 'steps[1].selector', message: 'steps[1].selector is required' }],
        ],
        [
          '51 steps',
          ({ websiteId }) => ({ name: 's', website_id: websiteId, steps: Array.from({ length: 51 }, () => ok) }),
          [{ field: 'steps', message: expect.stringContaining('50') }],
        ],
        [
          'a wait of 60000 ms',
          ({ websiteId }) => ({ name: 's', website_id: websiteId, steps: [{ type: 'wait', duration: 60000 }] }),
          [{ field: 'steps[0].duration', message: expect.stringContaining('30000') }],
        ],
        [
          'an invalid selector',
          ({ websiteId }) => ({ name: 's', website_id: websiteId, steps: [{ type: 'click', selector: 'div[' }] }),
          [{ field: 'steps[0].selector', message: expect.stringContaining('is not a valid CSS selector') }],
        ],
        [
          'navigate to file:///etc/passwd',
          ({ websiteId }) => ({ name: 's', website_id: websiteId, steps: [{ type: 'navigate', url: 'file:///etc/passwd' }] }),
          [{ field: 'steps[0].url', message: 'url scheme must be http or https' }],
        ],
        [
          'empty steps',
          ({ websiteId }) => ({ name: 's', website_id: websiteId, steps: [] }),
          [{ field: 'steps', message: expect.stringContaining('1 to 50') }],
        ],
        [
          "another account's website",
          ({ othersWebsiteId }) => ({ name: 's', website_id: othersWebsiteId, steps: [ok] }),
          [{ field: 'website_id', message: expect.any(String) }],
        ],
        ['a missing name', ({ websiteId }) => ({ website_id: websiteId, steps: [ok] }), [{ field: 'name', message: expect.any(String) }]],
      ];

    it.each(cases)('POST /scenarios with %s → 422', async (_label, body, details) => {
      const res = await request(t.url).post('/scenarios').set(account.auth).send(body({ websiteId, othersWebsiteId }));
      expect(res.status).toBe(422);
      if (details[0].field === 'name') {
        // class-validator may report several constraints of the one field.
        expect(res.body).toEqual(validation(expect.arrayContaining(details)));
        for (const d of res.body.details) expect(d.field).toBe('name');
      } else {
        expect(res.body).toEqual(validation(details));
      }
    });

    it('nothing was created by the refused requests', async () => {
      const res = await request(t.url).get('/scenarios').set(account.auth).expect(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta.total).toBe(0);
    });
  });

  describe('CRUD, run and executions list', () => {
    it('create 201, list envelope, get 200, partial update, steps replaced as a whole, delete 200 then 404', async () => {
      const api = () => request(t.url);
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(t, account, { name: 'crud-site', url: `${pages.url}/plain` });
      const steps = [
        { type: 'navigate', url: `${pages.url}/login` },
        { type: 'fill', selector: '#username', value: 'alice' },
        { type: 'wait', duration: 100 },
      ];

      const created = await api().post('/scenarios').set(account.auth).send({ name: 'First', description: 'Opens the login page', website_id: site.id, steps });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        success: true,
        data: {
          id: expect.any(Number),
          name: 'First',
          description: 'Opens the login page',
          website_id: site.id,
          status: 'active',
          steps,
          // API.md, fourth round: a scenario's own saved session (null: its website's capture_options decide).
          session_id: null,
          created_at: expect.stringMatching(ISO_UTC),
          updated_at: expect.stringMatching(ISO_UTC),
        },
      });
      const id: number = created.body.data.id;
      const second = await createScenario(t, account, { name: 'Second', website_id: site.id, steps: [{ type: 'screenshot', full_page: true }] });
      expect(second.description).toBeNull();

      const list = await api().get('/scenarios').set(account.auth);
      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        data: expect.any(Array),
        meta: { current_page: 1, last_page: 1, per_page: 15, total: 2 },
        links: { first: expect.stringMatching(/\/scenarios\?page=1$/), last: expect.stringMatching(/\/scenarios\?page=1$/), prev: null, next: null },
      });
      expect(list.body.data.map((s: { id: number }) => s.id).sort()).toEqual([id, second.id].sort());
      expect(list.body.data.find((s: { id: number }) => s.id === id)).toEqual(created.body.data);

      const paged = await api().get('/scenarios?per_page=1&page=2').set(account.auth).expect(200);
      expect(paged.body.meta).toEqual({ current_page: 2, last_page: 2, per_page: 1, total: 2 });
      expect(paged.body.data).toHaveLength(1);
      expect(paged.body.links.prev).toMatch(/page=1/);
      expect(paged.body.links.next).toBeNull();

      const got = await api().get(`/scenarios/${id}`).set(account.auth);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ success: true, data: created.body.data });

      // Name only: everything else, steps included, is kept.
      const renamed = await api().put(`/scenarios/${id}`).set(account.auth).send({ name: 'Renamed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.data).toMatchObject({ id, name: 'Renamed', description: 'Opens the login page', website_id: site.id, status: 'active', steps });

      // Steps are replaced as a whole, never merged.
      const newSteps = [{ type: 'click', selector: '#submit' }];
      const replaced = await api().put(`/scenarios/${id}`).set(account.auth).send({ steps: newSteps });
      expect(replaced.status).toBe(200);
      expect(replaced.body.data).toMatchObject({ id, name: 'Renamed', steps: newSteps });

      // Invalid steps on update: 422 naming the field, nothing changed.
      const bad = await api()
        .put(`/scenarios/${id}`)
        .set(account.auth)
        .send({ name: 'Not applied', steps: [{ type: 'wait' }] });
      expect(bad.status).toBe(422);
      expect(bad.body).toEqual(validation([{ field: 'steps[0].duration', message: expect.any(String) }]));

      const after = await api().get(`/scenarios/${id}`).set(account.auth).expect(200);
      expect(after.body.data).toMatchObject({ name: 'Renamed', steps: newSteps });

      freshMinute();
      const deleted = await api().delete(`/scenarios/${id}`).set(account.auth);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ success: true, message: expect.any(String) });
      const gone = await api().get(`/scenarios/${id}`).set(account.auth);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual(NOT_FOUND);
      expect((await api().delete(`/scenarios/${id}`).set(account.auth)).status).toBe(404);
      const remaining = await api().get('/scenarios').set(account.auth).expect(200);
      expect(remaining.body.data.map((s: { id: number }) => s.id)).toEqual([second.id]);
    });

    it('POST /scenarios/{id}/run → 200 {success, message, execution_id}; GET /scenarios/{id}/executions lists it', async () => {
      const api = () => request(t.url);
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(t, account, { name: 'run-site', url: `${pages.url}/plain`, viewport_width: 640, viewport_height: 480 });
      const scenario = await createScenario(t, account, { name: 'Quick', website_id: site.id, steps: [{ type: 'wait', duration: 0 }] });

      const res = await api().post(`/scenarios/${scenario.id}/run`).set(account.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: expect.any(String), execution_id: expect.stringMatching(UUID) });
      const executionId: string = res.body.execution_id;

      // Visible at once, before it has finished.
      const early = await api().get(`/executions/${executionId}`).set(account.auth).expect(200);
      expect(early.body.data).toMatchObject({ id: executionId, scenario_id: scenario.id });
      expect(['queued', 'running', 'succeeded']).toContain(early.body.data.status);

      const { execution } = await settle(t, account, executionId);
      expect(execution).toMatchObject({ status: 'succeeded', error: null, steps: [{ index: 0, type: 'wait', status: 'succeeded', error: null }] });
      expect(execution.screenshot_ids).toHaveLength(1);
      const png = await download(t, account, execution.screenshot_ids[0]);
      expect([png.width, png.height]).toEqual([640, 480]);
      expect(pixel(png, 10, 10)).toEqual([0, 200, 0, 255]);

      const second = await run(t, account, scenario.id);
      expect(second).not.toBe(executionId);
      await settle(t, account, second);

      const list = await api().get(`/scenarios/${scenario.id}/executions`).set(account.auth);
      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        data: expect.any(Array),
        meta: { current_page: 1, last_page: 1, per_page: 15, total: 2 },
        links: { first: expect.any(String), last: expect.any(String), prev: null, next: null },
      });
      expect(list.body.data.map((e: Execution) => e.id).sort()).toEqual([executionId, second].sort());
      expect(list.body.data.find((e: Execution) => e.id === executionId)).toEqual(execution);
    });

    it("deleting a scenario's website deletes the scenario", async () => {
      const api = () => request(t.url);
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(t, account, { name: 'doomed-site', url: `${pages.url}/plain` });
      const keep = await createWebsite(t, account, { name: 'kept-site', url: `${pages.url}/plain` });
      const scenario = await createScenario(t, account, { name: 'Doomed', website_id: site.id, steps: [{ type: 'wait', duration: 0 }] });
      const kept = await createScenario(t, account, { name: 'Kept', website_id: keep.id, steps: [{ type: 'wait', duration: 0 }] });

      expect((await api().delete(`/websites/${site.id}`).set(account.auth)).status).toBe(200);

      const gone = await api().get(`/scenarios/${scenario.id}`).set(account.auth);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual(NOT_FOUND);
      expect((await api().post(`/scenarios/${scenario.id}/run`).set(account.auth)).status).toBe(404);
      const list = await api().get('/scenarios').set(account.auth).expect(200);
      expect(list.body.data.map((s: { id: number }) => s.id)).toEqual([kept.id]);
      expect((await api().get(`/scenarios/${kept.id}`).set(account.auth)).status).toBe(200);
    });

    it("another account's scenario and execution are 404 on every endpoint, and stay unchanged", async () => {
      const api = () => request(t.url);
      const owner = await t.createAccount({ plan: 'pro' });
      const intruder = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(t, owner, { name: 'owner-site', url: `${pages.url}/plain` });
      const scenario = await createScenario(t, owner, { name: 'Private', website_id: site.id, steps: [{ type: 'wait', duration: 0 }] });
      const executionId = await run(t, owner, scenario.id);
      await settle(t, owner, executionId);
      // The intruder has a website of their own, so a 404 is about ownership, not an empty account.
      await createWebsite(t, intruder, { name: 'intruder-site', url: `${pages.url}/plain` });

      const attempts = [
        api().get(`/scenarios/${scenario.id}`).set(intruder.auth),
        api().put(`/scenarios/${scenario.id}`).set(intruder.auth).send({ name: 'Hijacked' }),
        api().delete(`/scenarios/${scenario.id}`).set(intruder.auth),
        api().post(`/scenarios/${scenario.id}/run`).set(intruder.auth),
        api().get(`/scenarios/${scenario.id}/executions`).set(intruder.auth),
        api().get(`/executions/${executionId}`).set(intruder.auth),
        api().get(`/jobs/${executionId}`).set(intruder.auth),
      ];
      for (const attempt of attempts) {
        const res = await attempt;
        const { method, path } = (res as unknown as { req: { method: string; path: string } }).req;
        expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 404, body: NOT_FOUND });
      }

      const listed = await api().get('/scenarios').set(intruder.auth).expect(200);
      expect(listed.body.data).toEqual([]);
      const shots = await api().get(`/screenshots?scenario_id=${scenario.id}`).set(intruder.auth).expect(200);
      expect(shots.body.data).toEqual([]);

      freshMinute();
      const still = await api().get(`/scenarios/${scenario.id}`).set(owner.auth).expect(200);
      expect(still.body.data).toMatchObject({ name: 'Private', steps: [{ type: 'wait', duration: 0 }] });
      const executions = await api().get(`/scenarios/${scenario.id}/executions`).set(owner.auth).expect(200);
      expect(executions.body.data.map((e: Execution) => e.id)).toEqual([executionId]);
    });
  });

  describe('errors of ours are never shown raw', () => {
    it('a website deleted while its scenario runs: the execution fails "Website was deleted", not with the database\'s foreign-key error', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(t, account, {
        name: 'deleted-mid-run',
        url: `${pages.url}/plain?deleted-mid-run`,
        viewport_width: 640,
        viewport_height: 480,
      });
      const scenario = await createScenario(t, account, { name: 'Outlives its website', website_id: site.id, steps: [{ type: 'wait', duration: 2_000 }] });

      const executionId = await run(t, account, scenario.id);
      const jobs = t.app.get(JobRepository);
      const deadline = Date.now() + 30_000;
      while (!pages.requests.includes('/plain?deleted-mid-run')) {
        if (Date.now() > deadline) throw new Error('the run never opened its website');
        await new Promise((r) => setTimeout(r, 20));
      }
      // The run is in its 2 s wait: its final screenshot comes after the website is gone.
      expect((await request(t.url).delete(`/websites/${site.id}`).set(account.auth)).status).toBe(200);

      for (;;) {
        const job = await jobs.findById(executionId);
        if (job && (job.status === 'succeeded' || job.status === 'failed')) break;
        if (Date.now() > deadline) throw new Error(`execution ${executionId} did not finish`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const asJob = await request(t.url).get(`/jobs/${executionId}`).set(account.auth).expect(200);
      expect(asJob.body.data).toMatchObject({ type: 'scenario', status: 'failed', error: 'Final screenshot failed: Website was deleted' });
      expect(JSON.stringify(asJob.body)).not.toMatch(/foreign key|constraint|SQLITE/i);
    });
  });

  describe('the time limit of an execution (SCENARIO_TIMEOUT_MS=8000)', () => {
    const CAP_MS = 8_000;
    /** The final screenshot's share of a cap this small (a quarter; 10 s of the default 120 s). */
    const RESERVE_MS = 2_000;
    let c: TestApp;
    let capPages: PageServer;
    const opened: number[] = [];

    beforeAll(async () => {
      capPages = await new PageServer({
        '/capped': (_req, res) => {
          opened.push(Date.now());
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(solidPage('rgb(0,0,200)'));
        },
      }).start();
      c = await startTestApp({ env: { SCENARIO_TIMEOUT_MS: String(CAP_MS), CAPTURE_TIMEOUT_MS: '10000', SCENARIO_STEP_TIMEOUT_MS: '2000' } });
      pinnedApps.push(c);
      freshMinute();
    });
    afterAll(async () => {
      await c?.close();
      await capPages?.stop();
    });

    it('a step the limit cuts short fails with the limit as its reason, early enough that the debugging screenshot is stored within the limit', async () => {
      const account = await c.createAccount({ plan: 'pro' });
      const site = await createWebsite(c, account, { name: 'capped', url: `${capPages.url}/capped`, viewport_width: 640, viewport_height: 480 });
      const scenario = await createScenario(c, account, {
        name: 'Waits longer than allowed',
        website_id: site.id,
        steps: [{ type: 'wait_for', selector: '#never', timeout: 30_000 }, { type: 'screenshot' }],
      });

      const executionId = await run(c, account, scenario.id);
      const { execution } = await settle(c, account, executionId);
      const finishedAfterOpening = Date.now() - opened[opened.length - 1];

      const reason = `Scenario exceeded its time limit of ${CAP_MS} ms`;
      expect(execution).toMatchObject({ status: 'failed', error: `Step 0 (wait_for) failed: ${reason}` });
      expect(execution.steps).toEqual([
        { index: 0, type: 'wait_for', status: 'failed', duration_ms: expect.any(Number), error: reason },
        { index: 1, type: 'screenshot', status: 'skipped', duration_ms: null, error: null },
      ]);
      // The step stopped short of the cap by the final screenshot's reserve (opening the page took a little too)...
      expect(execution.steps[0].duration_ms).toBeLessThan(CAP_MS - RESERVE_MS + 500);
      // ...so the screenshot of the page as it was is stored, and the whole run ended inside the cap.
      expect(execution.screenshot_ids).toHaveLength(1);
      const png = await download(c, account, execution.screenshot_ids[0]);
      expect(pixel(png, 10, 10)).toEqual([0, 0, 200, 255]);
      expect(finishedAfterOpening).toBeLessThan(CAP_MS);
    });
  });

  describe('URL policy at run time (ALLOW_PRIVATE_NETWORKS=false, only the page server allowlisted)', () => {
    let p: TestApp;
    let internal: InternalServer;
    let linkPages: PageServer;
    let account: TestAccount;
    let alias: string | null;

    beforeAll(async () => {
      internal = await new InternalServer().start();
      alias = await localAlias();
      // A page on the allowlisted server whose link leads to the internal (refused) server.
      linkPages = await new PageServer({
        '/link-out':
          '<!doctype html><html><head><style>html,body{margin:0;background:rgb(255,255,0)}</style></head><body>' +
          `<a id="out" href="http://127.0.0.1:${internal.port}/internal" style="display:block;padding:40px">internal</a></body></html>`,
      }).start();
      p = await startTestApp({ env: { ALLOW_PRIVATE_NETWORKS: 'false', URL_ALLOWLIST: linkPages.url, SCENARIO_STEP_TIMEOUT_MS: '2000' } });
      pinnedApps.push(p);
      freshMinute();
      account = await p.createAccount({ plan: 'pro' });
    });
    afterAll(async () => {
      await p?.close();
      await linkPages?.stop();
      await internal?.stop();
    });

    it('navigate to a literal private address is refused at create time (422 steps[0].url)', async () => {
      const site = await createWebsite(p, account, { name: 'allowlisted', url: `${linkPages.url}/link-out` });
      const res = await request(p.url)
        .post('/scenarios')
        .set(account.auth)
        .send({ name: 'ssrf', website_id: site.id, steps: [{ type: 'navigate', url: `http://127.0.0.1:${internal.port}/internal` }] });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(validation([{ field: 'steps[0].url', message: 'url resolves to a loopback address' }]));
      expect(internal.requests).toBe(0);
    });

    it('navigate to a host NAME that resolves to a local address passes create but fails the run: "blocked by URL policy"', async () => {
      const site = await createWebsite(p, account, { name: 'allowlisted-2', url: `${linkPages.url}/link-out`, viewport_width: 800, viewport_height: 600 });
      // With no local alias on this machine, a .invalid name (RFC 2606: never resolves) still reaches the run-time check.
      const host = alias ?? 'scenario-e2e.invalid';
      const scenario = await createScenario(p, account, {
        name: 'ssrf by name',
        website_id: site.id,
        steps: [{ type: 'navigate', url: `http://${host}:${internal.port}/internal` }, { type: 'screenshot' }],
      });

      const executionId = await run(p, account, scenario.id);
      const { execution } = await settle(p, account, executionId);

      expect(execution.status).toBe('failed');
      expect(execution.steps).toEqual([
        { index: 0, type: 'navigate', status: 'failed', duration_ms: expect.any(Number), error: expect.stringMatching(/^blocked by URL policy: /) },
        { index: 1, type: 'screenshot', status: 'skipped', duration_ms: null, error: null },
      ]);
      expect(execution.steps[0].error).toMatch(
        alias ? /^blocked by URL policy: url resolves to a (loopback|private|link-local)/ : /^blocked by URL policy: url host could not be resolved$/,
      );
      expect(execution.error).toEqual(expect.stringContaining('Step 0 (navigate)'));
      expect(execution.error).toEqual(expect.stringContaining('blocked by URL policy'));
      expect(internal.requests).toBe(0);
      expect(internal.connections).toBe(0);

      // The failure screenshot shows the allowlisted page the run was still on, never the internal one.
      expect(execution.screenshot_ids).toHaveLength(1);
      const png = await download(p, account, execution.screenshot_ids[0]);
      expect(pixel(png, 790, 590)).toEqual([255, 255, 0, 255]);
      if (!alias) console.warn('scenarios e2e: no local host alias on this machine; the run-time refusal was tested with an unresolvable name');
    });

    it('a click on a link to the internal server: the page never reaches it; the next screenshot fails "blocked by URL policy"', async () => {
      const site = await createWebsite(p, account, { name: 'allowlisted-3', url: `${linkPages.url}/link-out`, viewport_width: 800, viewport_height: 600 });
      const scenario = await createScenario(p, account, {
        name: 'click out',
        website_id: site.id,
        steps: [{ type: 'click', selector: '#out' }, { type: 'wait', duration: 500 }, { type: 'screenshot' }],
      });

      const executionId = await run(p, account, scenario.id);
      const { execution } = await settle(p, account, executionId);

      expect(execution.status).toBe('failed');
      expect(execution.steps.map((s) => [s.type, s.status])).toEqual([
        ['click', 'succeeded'],
        ['wait', 'succeeded'],
        ['screenshot', 'failed'],
      ]);
      expect(execution.steps[2].error).toBe('blocked by URL policy: url resolves to a loopback address');
      expect(execution.error).toEqual(expect.stringContaining('Step 2 (screenshot)'));
      expect(execution.error).toEqual(expect.stringContaining('blocked by URL policy'));
      expect(internal.requests).toBe(0);
      expect(internal.connections).toBe(0);
      // Whatever was stored, none of it is the internal page (magenta).
      for (const id of execution.screenshot_ids) {
        const png = await download(p, account, id);
        expect(pixel(png, 790, 590)).not.toEqual([255, 0, 255, 255]);
      }
    });
  });
});
