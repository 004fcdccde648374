import { IncomingMessage } from 'node:http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { ScenarioRepository } from '../../src/modules/scenarios/application/ports';
import { DashboardClient } from '../support/dashboard-session';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Secret fill values (issue 27, README "Scenarios"): `{type: "fill", secret: true}` is sealed in the scenario's
 * row and in a run's job row, shown as "********" by the API and the dashboard, kept when "********" comes
 * back, and typed for real by a run (real Chromium against a login form this test serves, which records the
 * password it receives).
 */

const SECRET = 'correct-horse-7f3a';
const MASK = '********';
const PASSWORD = 'dashboard password one';

const LOGIN_PAGE =
  '<!doctype html><html><body><form method="POST" action="/session">' +
  '<input id="username" name="username"><input id="password" name="password" type="password">' +
  '<button id="submit" type="submit">Sign in</button></form></body></html>';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
  });
}

describe('secret fill values of scenarios', () => {
  let t: TestApp;
  let site: PageServer;
  let alice: TestAccount;
  let websiteId: number;
  /** The passwords the login form received, in order. */
  const received: string[] = [];

  const steps = (password: unknown) => [
    { type: 'fill', selector: '#username', value: 'alice' },
    { type: 'fill', selector: '#password', value: password, secret: true },
    { type: 'click', selector: '#submit' },
    { type: 'wait_for', selector: '#welcome' },
  ];

  /** A column as the database holds it (text), whatever the engine. */
  async function rawColumn(table: string, column: string, id: number | string): Promise<string> {
    const row = (await t.app.get(DataSource).createQueryBuilder().select(column, 'value').from(table, 't').where('t.id = :id', { id }).getRawOne()) as {
      value: unknown;
    };
    return typeof row.value === 'string' ? row.value : JSON.stringify(row.value);
  }

  async function runAndSettle(scenarioId: number): Promise<string> {
    const run = await request(t.url).post(`/scenarios/${scenarioId}/run`).set(alice.auth).expect(200);
    const id: string = run.body.execution_id;
    const jobs = t.app.get(JobRepository);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const status = (await jobs.findById(id))?.status;
      if (status === 'succeeded' || status === 'failed') return id;
      if (Date.now() > deadline) throw new Error(`execution ${id} still ${status}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    site = await new PageServer({
      '/login': LOGIN_PAGE,
      '/session': (req, res) => {
        void readBody(req).then((body) => {
          const password = new URLSearchParams(body).get('password') ?? '';
          received.push(password);
          res.writeHead(200, { 'content-type': 'text/html' }).end(`<p id="${password === SECRET ? 'welcome' : 'denied'}">hello</p>`);
        });
      },
    }).start();
    t = await startTestApp({ env: { SCENARIO_STEP_TIMEOUT_MS: '5000', CAPTURE_TIMEOUT_MS: '10000' } });
    alice = await t.createAccount({ plan: 'business' });
    await t.app.get(AccountsService).setPassword(alice.email, PASSWORD);
    const website = await request(t.url)
      .post('/websites')
      .set(alice.auth)
      .send({ name: 'Login', url: `${site.url}/login` })
      .expect(201);
    websiteId = website.body.data.id;
  });
  afterAll(async () => {
    await t?.close();
    await site?.stop();
  });

  it('the API shows "********", the database holds no plain value, "********" sent back keeps it, and a run types the real value', async () => {
    const created = await request(t.url)
      .post('/scenarios')
      .set(alice.auth)
      .send({ name: 'Log in', website_id: websiteId, steps: steps(SECRET) })
      .expect(201);
    const id: number = created.body.data.id;
    expect(created.body.data.steps[1]).toEqual({ type: 'fill', selector: '#password', value: MASK, secret: true });
    expect(created.body.data.steps[0]).toEqual({ type: 'fill', selector: '#username', value: 'alice' });

    const got = await request(t.url).get(`/scenarios/${id}`).set(alice.auth).expect(200);
    expect(got.body.data.steps).toEqual(created.body.data.steps);
    const list = await request(t.url).get('/scenarios').set(alice.auth).expect(200);
    expect(JSON.stringify(list.body)).not.toContain(SECRET);
    expect(JSON.stringify(list.body)).toContain(MASK);

    const row = await rawColumn('scenarios', 'steps', id);
    expect(row).not.toContain(SECRET);
    expect(row).toContain('sealed_value');

    // A client echoing what GET showed: the stored value stays.
    const echoed = await request(t.url)
      .put(`/scenarios/${id}`)
      .set(alice.auth)
      .send({ ...got.body.data, name: 'Log in (renamed)' })
      .expect(200);
    expect(echoed.body.data.steps[1].value).toBe(MASK);
    expect((await t.app.get(ScenarioRepository).findOwned(alice.id, id))?.steps[1]).toEqual({
      type: 'fill',
      selector: '#password',
      value: SECRET,
      secret: true,
    });

    const executionId = await runAndSettle(id);
    const execution = await request(t.url).get(`/executions/${executionId}`).set(alice.auth).expect(200);
    expect(execution.body.data.status).toBe('succeeded');
    expect(received.at(-1)).toBe(SECRET);
    expect(await rawColumn('jobs', 'options', executionId)).not.toContain(SECRET);
    expect(JSON.stringify(execution.body)).not.toContain(SECRET);
  });

  it('"********" with no stored value behind it is 422 naming the step, never typed', async () => {
    const res = await request(t.url)
      .post('/scenarios')
      .set(alice.auth)
      .send({ name: 'Masked', website_id: websiteId, steps: steps(MASK) })
      .expect(422);
    expect(res.body.details).toEqual([{ field: 'steps[1].value', message: expect.stringContaining('********') }]);
    const bad = await request(t.url)
      .post('/scenarios')
      .set(alice.auth)
      .send({ name: 'Bad flag', website_id: websiteId, steps: [{ type: 'fill', selector: '#p', value: 'x', secret: 'yes' }] })
      .expect(422);
    expect(bad.body.details).toEqual([{ field: 'steps[0].secret', message: 'steps[0].secret must be a boolean' }]);
  });

  it('the dashboard editor masks a secret value (password input, never in the HTML), carries a typed one sealed, and keeps the stored one', async () => {
    const dashboard = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
    const created = await request(t.url)
      .post('/scenarios')
      .set(alice.auth)
      .send({ name: 'Edit me', website_id: websiteId, steps: steps(SECRET) })
      .expect(201);
    const id: number = created.body.data.id;
    const edit = await dashboard.get(`/dashboard/scenarios/${id}/edit`);
    expect(edit.status).toBe(200);
    expect(edit.text).not.toContain(SECRET);
    expect(edit.text).toContain(`<input type="password" id="step-1-value" name="steps[1].value" value="${MASK}"`);
    expect(edit.text).toContain('<input type="checkbox" id="step-1-secret" name="steps[1].secret" value="true" checked>');
    expect(edit.text).toContain('<input type="checkbox" id="step-0-secret" name="steps[0].secret" value="true">');

    const form = (password: string, op: string, extra: Record<string, string> = {}) => ({
      name: 'Edit me',
      description: '',
      website_id: String(websiteId),
      op,
      'steps[0].type': 'fill',
      'steps[0].selector': '#username',
      'steps[0].value': 'alice',
      'steps[1].type': 'fill',
      'steps[1].selector': '#password',
      'steps[1].value': password,
      'steps[1].secret': 'true',
      'steps[2].type': 'click',
      'steps[2].selector': '#submit',
      ...extra,
    });

    // Saved as shown: the stored value stays.
    const saved = await dashboard.submit(`/dashboard/scenarios/${id}/edit`, form(MASK, 'save'));
    expect(saved.status).toBe(303);
    const repository = t.app.get(ScenarioRepository);
    expect((await repository.findOwned(alice.id, id))?.steps[1]).toMatchObject({ value: SECRET, secret: true });

    // A new value typed, then a step added: the page shows "********" and carries the value sealed.
    const added = await dashboard.submit(`/dashboard/scenarios/${id}/edit`, form('new-secret-9c1e', 'add:wait'));
    expect(added.status).toBe(200);
    expect(added.text).not.toContain('new-secret-9c1e');
    const carry = /<input type="hidden" name="steps\[1\]\.carry" value="([^"]+)">/.exec(added.text)?.[1];
    expect(carry).toBeDefined();
    const savedNew = await dashboard.submit(`/dashboard/scenarios/${id}/edit`, form(MASK, 'save', { 'steps[1].carry': carry as string }));
    expect(savedNew.status).toBe(303);
    expect((await repository.findOwned(alice.id, id))?.steps[1]).toMatchObject({ value: 'new-secret-9c1e', secret: true });

    // A carry from another session opens nothing: "********" then keeps the stored value.
    const other = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
    const foreign = await other.submit(`/dashboard/scenarios/${id}/edit`, form(MASK, 'save', { 'steps[1].carry': carry as string }));
    expect(foreign.status).toBe(303);
    expect((await repository.findOwned(alice.id, id))?.steps[1]).toMatchObject({ value: 'new-secret-9c1e' });
  });
});
