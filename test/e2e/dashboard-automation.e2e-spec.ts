/// <reference lib="dom" />
import { AddressInfo, createServer } from 'node:net';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import request, { Response } from 'supertest';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { inPeoplesWordsAll } from '../../src/modules/dashboard/http/form-messages';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { ScenarioRepository } from '../../src/modules/scenarios/application/ports';
import { STEP_TYPES } from '../../src/modules/scenarios/domain/steps';
import { SchedulesService } from '../../src/modules/schedules/application/schedules.service';
import { DashboardClient, FormFields } from '../support/dashboard-session';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The automation pages of the dashboard (issue 19): the scenario editor (every step type, add / remove / move
 * without JavaScript, the API's own validation shown next to each step), a run's detail page (per-step timeline
 * and screenshots), schedule create / edit / delete with the next five runs, the jobs list and a job's page.
 * Over HTTP first (status, markup, database, the API's view of the same data), then in real Chromium at
 * 1280×800 and 390×844. Pictures go to DASHBOARD_SCREENSHOTS when set, else to a temporary folder.
 *
 * The clock is pinned to Wednesday 2031-01-15 12:00 UTC (Europe/Berlin is UTC+1 then) and moved to a fresh
 * calendar minute before every test, so API calls never meet the Pro limit (20 a minute).
 */

const PASSWORD = 'automation password one';
const START = Date.parse('2031-01-15T12:00:00.000Z');
const HTML = 'text/html; charset=utf-8';
const CSRF_REJECTED = 'This form has expired or was not sent from this site. Go back, reload the page and try again.';
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : mkdtempSync(join(tmpdir(), 'dashboard-automation-'));

function expectErrorPage(res: Response, status: number, message: string): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status, type: HTML });
  expect(res.text).toContain(`<p>${message}</p>`);
}

function expectRedirect(res: Response, location: string): void {
  expect({ status: res.status, location: res.headers.location }).toEqual({ status: 303, location });
}

function expectPage(res: Response, title: string, status = 200): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status, type: HTML });
  expect(res.text).toContain(`<h1>${title}</h1>`);
}

/** The page without its <template>s (the empty steps the script adds from): what the page shows. */
const shownPart = (page: string) => page.replace(/<template[\s\S]*?<\/template>/g, '');
/** The steps of an editor page as their hidden type fields say, in order. */
const stepTypesOf = (page: string) =>
  [...shownPart(page).matchAll(/<input type="hidden" name="steps\[(\d+)\]\.type" value="([^"]*)">/g)].map((m) => [Number(m[1]), m[2]]);
const legendsOf = (page: string) => [...shownPart(page).matchAll(/<legend>(Step \d+) <code>/g)].map((m) => m[1]);
/** The value attribute of the input named `name`. */
function inputValue(page: string, name: string): string | undefined {
  const tag = new RegExp(`<input [^>]*name="${name.replace(/[[\].]/g, '\\$&')}"[^>]*>`).exec(page)?.[0];
  return tag ? /value="([^"]*)"/.exec(tag)?.[1] : undefined;
}
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

describe('Dashboard automation pages', () => {
  let t: TestApp;
  let site: PageServer;
  let alice: TestAccount;
  let bob: TestAccount;
  let a: DashboardClient;
  let b: DashboardClient;
  const ids = { aliceHome: 0, aliceBlog: 0, bobSite: 0, aliceScenario: 0, aliceSchedule: 0, aliceExecution: '', aliceJob: '' };

  const api = () => request(t.url);
  function freshMinute(): void {
    const now = t.clock.now().getTime();
    t.clock.set(new Date(Math.floor(now / 60_000) * 60_000 + 60_000 + 5_000));
  }
  async function withPassword(opts: Parameters<TestApp['createAccount']>[0] = {}): Promise<TestAccount> {
    const account = await t.createAccount(opts);
    await t.app.get(AccountsService).setPassword(account.email, PASSWORD);
    return account;
  }
  async function createWebsite(account: TestAccount, name: string, path: string): Promise<number> {
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name, url: `${site.url}${path}`, viewport_width: 800, viewport_height: 500 });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }
  async function createScenario(account: TestAccount, body: Record<string, unknown>): Promise<number> {
    const res = await api().post('/scenarios').set(account.auth).send(body);
    expect(res.status).toBe(201);
    return res.body.data.id;
  }
  async function runScenario(account: TestAccount, id: number) {
    const res = await api().post(`/scenarios/${id}/run`).set(account.auth).expect(200);
    const done = await waitForJob(t.url, account.auth, res.body.execution_id);
    freshMinute();
    const execution = await api().get(`/executions/${done.id}`).set(account.auth).expect(200);
    return execution.body.data as { id: string; status: string; error: string | null; screenshot_ids: number[] };
  }
  const scenarioCount = async (account: TestAccount) => (await t.app.get(ScenarioRepository).list(account.id, { page: 1, perPage: 1 }, {})).total;
  const scheduleCount = async (account: TestAccount) => (await t.app.get(SchedulesService).list(account.id, { page: 1, perPage: 1 })).total;

  /** The editor form's fields for a scenario (as a browser would post them). */
  function scenarioForm(
    fields: { name: string; description?: string; website: number | string; steps: Array<Record<string, string>> },
    op = 'save',
  ): FormFields {
    const form: FormFields = { name: fields.name, description: fields.description ?? '', website_id: String(fields.website), op };
    fields.steps.forEach((step, i) => {
      for (const [k, v] of Object.entries(step)) form[`steps[${i}].${k}`] = v;
    });
    return form;
  }

  beforeAll(async () => {
    site = await new PageServer({
      '/home': solidPage('rgb(200,30,30)'),
      '/blog': solidPage('rgb(30,160,60)', 1400),
      '/bob': solidPage('rgb(30,60,200)'),
    }).start();
    t = await startTestApp({ env: { SIGN_IN_LIMIT_PER_MINUTE: '100000', DASHBOARD_LIMIT_PER_MINUTE: '100000', SCENARIO_STEP_TIMEOUT_MS: '1500' } });
    t.clock.set(new Date(START));
    alice = await withPassword({ plan: 'pro', name: 'Alice' });
    bob = await withPassword({ plan: 'pro', name: 'Bob' });
    ids.aliceHome = await createWebsite(alice, 'Alice home', '/home');
    ids.aliceBlog = await createWebsite(alice, 'Alice blog', '/blog');
    ids.bobSite = await createWebsite(bob, 'Bob site', '/bob');
    ids.aliceScenario = await createScenario(alice, { name: 'Alice check', website_id: ids.aliceHome, steps: [{ type: 'wait', duration: 10 }] });
    const schedule = await api()
      .post('/schedules')
      .set(alice.auth)
      .send({ name: 'Every morning', website_id: ids.aliceHome, frequency: 'daily', time: '07:30', timezone: 'Europe/Berlin' })
      .expect(201);
    ids.aliceSchedule = schedule.body.data.id;
    const run = await runScenario(alice, ids.aliceScenario);
    ids.aliceExecution = run.id;
    const take = await api().post(`/websites/${ids.aliceHome}/screenshot`).set(alice.auth).expect(200);
    ids.aliceJob = (await waitForJob(t.url, alice.auth, take.body.job_id)).id;
    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
    b = await new DashboardClient(t.url).signInOk(bob.email, PASSWORD);
  });

  afterAll(async () => {
    await t?.close();
    await site?.stop();
  });

  beforeEach(() => freshMinute());

  describe('scenario editor', () => {
    it('a new scenario: the form offers every step type the API accepts, and starts without steps', async () => {
      const page = await a.get('/dashboard/scenarios/new');
      expectPage(page, 'New scenario');
      for (const type of STEP_TYPES) expect(page.text).toContain(`name="op" value="add:${type}"`);
      expect(stepTypesOf(page.text)).toEqual([]);
      // The first submit button of the form is Save, so Enter in a field saves rather than moving or removing a step.
      const form = page.text.slice(page.text.indexOf('<form method="post" action="/dashboard/scenarios/new"'));
      expect(/<button [^>]*>/.exec(form)?.[0]).toContain('name="op" value="save"');
      expect(page.text).toContain(`<option value="${ids.aliceHome}">Alice home</option>`);
      expect(page.text).not.toContain('Bob site');
      // The list links to it.
      expect((await a.get('/dashboard/scenarios')).text).toContain('<a class="button" href="/dashboard/scenarios/new" id="new-scenario">New scenario</a>');
    });

    it('add, move and remove steps without JavaScript: the form comes back with the change and everything typed kept; nothing is saved', async () => {
      const before = await scenarioCount(alice);
      const add1 = await a.submit(
        '/dashboard/scenarios/new',
        scenarioForm({ name: 'Typed <name>', description: 'kept', website: ids.aliceBlog, steps: [] }, 'add:click'),
      );
      expectPage(add1, 'New scenario');
      expect(stepTypesOf(add1.text)).toEqual([[0, 'click']]);
      expect(inputValue(add1.text, 'name')).toBe('Typed &lt;name&gt;');
      expect(add1.text).toContain('<textarea id="scenario-description" name="description" rows="2" maxlength="2000">kept</textarea>');
      expect(add1.text).toContain(`<option value="${ids.aliceBlog}" selected>Alice blog</option>`);
      expect(add1.text).toContain('<input type="hidden" id="focus-step" value="step-0">');

      const steps: Array<Record<string, string>> = [
        { type: 'click', selector: '#first' },
        { type: 'wait', duration: '250' },
        { type: 'fill', selector: '#q', value: 'typed "value"' },
      ];
      const up = await a.submit('/dashboard/scenarios/new', scenarioForm({ name: 'n', website: ids.aliceBlog, steps }, 'up:2'));
      expect(stepTypesOf(up.text)).toEqual([
        [0, 'click'],
        [1, 'fill'],
        [2, 'wait'],
      ]);
      expect(legendsOf(up.text)).toEqual(['Step 1', 'Step 2', 'Step 3']);
      expect(inputValue(up.text, 'steps[1].selector')).toBe('#q');
      expect(inputValue(up.text, 'steps[1].value')).toBe('typed &quot;value&quot;');
      expect(inputValue(up.text, 'steps[2].duration')).toBe('250');
      expect(up.text).toContain('<input type="hidden" id="focus-step" value="step-1">');

      const down = await a.submit('/dashboard/scenarios/new', scenarioForm({ name: 'n', website: ids.aliceBlog, steps }, 'down:0'));
      expect(stepTypesOf(down.text).map(([, type]) => type)).toEqual(['wait', 'click', 'fill']);
      expect(inputValue(down.text, 'steps[1].selector')).toBe('#first');

      const removed = await a.submit('/dashboard/scenarios/new', scenarioForm({ name: 'n', website: ids.aliceBlog, steps }, 'remove:1'));
      expect(stepTypesOf(removed.text).map(([, type]) => type)).toEqual(['click', 'fill']);
      expect(inputValue(removed.text, 'steps[1].value')).toBe('typed &quot;value&quot;');
      // The first step cannot move up, the last not down.
      expect(removed.text).toContain('name="op" value="up:0" disabled');
      expect(removed.text).toContain('name="op" value="down:1" disabled');

      expect(await scenarioCount(alice)).toBe(before);
    });

    it('a scenario with every step type, made in the form: 303 to its editor, and the API returns exactly those steps', async () => {
      const steps: Array<Record<string, string>> = [
        { type: 'navigate', url: `${site.url}/blog` },
        { type: 'fill', selector: ' #search ', value: 'screenshots' },
        { type: 'click', selector: 'button[type=submit]' },
        { type: 'wait', duration: '500' },
        { type: 'wait_for', selector: '#results', timeout: '' },
        { type: 'wait_for', selector: '#more', timeout: '2500' },
        { type: 'hover', selector: '.menu' },
        { type: 'press', key: 'enter' },
        { type: 'select', selector: '#plan', value: '' },
        { type: 'scroll', to: 'Bottom' },
        { type: 'scroll', to: '#footer' },
        { type: 'screenshot', full_page: '' },
        { type: 'screenshot', full_page: 'true' },
        { type: 'screenshot', full_page: 'false' },
      ];
      const res = await a.submit('/dashboard/scenarios/new', scenarioForm({ name: 'Every step', description: 'all ten types', website: ids.aliceHome, steps }));
      expect(res.status).toBe(303);
      const id = Number(/^\/dashboard\/scenarios\/(\d+)\/edit\?notice=scenario-created$/.exec(res.headers.location)?.[1]);
      expect(id).toBeGreaterThan(0);
      const fromApi = await api().get(`/scenarios/${id}`).set(alice.auth).expect(200);
      expect(fromApi.body.data).toMatchObject({ name: 'Every step', description: 'all ten types', website_id: ids.aliceHome });
      expect(fromApi.body.data.steps).toEqual([
        { type: 'navigate', url: `${site.url}/blog` },
        { type: 'fill', selector: '#search', value: 'screenshots' },
        { type: 'click', selector: 'button[type=submit]' },
        { type: 'wait', duration: 500 },
        { type: 'wait_for', selector: '#results' },
        { type: 'wait_for', selector: '#more', timeout: 2500 },
        { type: 'hover', selector: '.menu' },
        { type: 'press', key: 'Enter' },
        { type: 'select', selector: '#plan', value: '' },
        { type: 'scroll', to: 'bottom' },
        { type: 'scroll', to: '#footer' },
        { type: 'screenshot' },
        { type: 'screenshot', full_page: true },
        { type: 'screenshot', full_page: false },
      ]);

      const editor = await a.get(res.headers.location);
      expectPage(editor, 'Edit scenario “Every step”');
      expect(editor.text).toContain('<div class="notice ok" role="status">Scenario created.</div>');
      expect(legendsOf(editor.text)).toEqual(steps.map((_, i) => `Step ${i + 1}`));
      expect(editor.text).not.toContain('Step 0');
      expect(inputValue(editor.text, 'steps[5].timeout')).toBe('2500');
      expect(editor.text).toMatch(
        /<select id="step-12-full_page" name="steps\[12\]\.full_page">\s*<option value="">Default<\/option>\s*<option value="true" selected>Yes<\/option>/,
      );

      // Edited: steps replaced as a whole, name changed; the API sees it.
      const edited = await a.submit(
        `/dashboard/scenarios/${id}/edit`,
        scenarioForm({
          name: 'Every step, shorter',
          website: ids.aliceBlog,
          steps: [
            { type: 'scroll', to: 'bottom' },
            { type: 'screenshot', full_page: 'true' },
          ],
        }),
      );
      expectRedirect(edited, `/dashboard/scenarios/${id}/edit?notice=scenario-saved`);
      freshMinute();
      expect((await api().get(`/scenarios/${id}`).set(alice.auth).expect(200)).body.data).toMatchObject({
        name: 'Every step, shorter',
        description: null,
        website_id: ids.aliceBlog,
        steps: [
          { type: 'scroll', to: 'bottom' },
          { type: 'screenshot', full_page: true },
        ],
      });
    });

    it('saving invalid steps: 422, each message of the API next to its step’s input, what was typed kept, nothing saved', async () => {
      const steps: Array<Record<string, string>> = [
        { type: 'click', selector: '' },
        { type: 'wait', duration: 'soon' },
        { type: 'navigate', url: 'file:///etc/passwd' },
        { type: 'press', key: 'Hyper' },
        { type: 'wait_for', selector: 'div[', timeout: '0' },
      ];
      const form = scenarioForm({ name: '', website: ids.aliceHome, steps });
      const before = await scenarioCount(alice);
      const res = await a.submit('/dashboard/scenarios/new', form);
      expectPage(res, 'New scenario', 422);

      // The same JSON through the API: the page shows the API's messages in people's words (form-messages.ts), each beside its field.
      const json = {
        name: '',
        description: null,
        website_id: ids.aliceHome,
        steps: [
          { type: 'click', selector: '' },
          { type: 'wait', duration: 'soon' },
          { type: 'navigate', url: 'file:///etc/passwd' },
          { type: 'press', key: 'Hyper' },
          { type: 'wait_for', selector: 'div[', timeout: 0 },
        ],
      };
      const fromApi = await api().post('/scenarios').set(alice.auth).send(json).expect(422);
      const details = fromApi.body.details as Array<{ field: string; message: string }>;
      expect(details.map((d) => d.field).sort()).toEqual(
        ['name', 'steps[0].selector', 'steps[1].duration', 'steps[2].url', 'steps[3].key', 'steps[4].selector', 'steps[4].timeout'].sort(),
      );
      const shown = [...res.text.matchAll(/<p class="field-error" id="([^"]+)-error">([^<]*)<\/p>/g)].map((m) => [m[1], unescape(m[2])]);
      const idOf = (field: string) => (field === 'name' ? 'scenario-name' : field.replace(/^steps\[(\d+)\]\.(\w+)$/, 'step-$1-$2'));
      expect(shown.sort()).toEqual(
        inPeoplesWordsAll(details)
          .map((d) => [idOf(d.field), d.message])
          .sort(),
      );
      expect(res.text).toContain('<p class="field-error" id="step-0-selector-error">Step 1: the selector must not be empty.</p>');
      expect(res.text).toContain('<p class="field-error" id="step-1-duration-error">Step 2: the duration must be a whole number from 0 to 30000.</p>');
      // The input carries the error (aria), and keeps what was typed.
      expect(res.text).toMatch(
        /<input type="number" inputmode="numeric" id="step-1-duration" name="steps\[1\]\.duration" value="soon"[^>]* aria-invalid="true" aria-describedby="step-1-duration-error">/,
      );
      expect(inputValue(res.text, 'steps[2].url')).toBe('file:///etc/passwd');
      // The summary names the steps from 1, the messages stay the API's.
      expect(res.text).toContain('<li><a href="#step-0-selector">Step 1: the selector must not be empty.</a></li>');
      expect(res.text).toContain('<strong>7 problems to fix:</strong>');
      expect(await scenarioCount(alice)).toBe(before);

      // No steps at all, no website: the API's messages for those too.
      const empty = await a.submit('/dashboard/scenarios/new', scenarioForm({ name: 'x', website: '', steps: [] }));
      expect(empty.status).toBe(422);
      expect(empty.text).toContain('<p class="field-error" id="steps-error">Steps must contain 1 to 50 steps.</p>');
      expect(empty.text).toContain('<p class="field-error" id="scenario-website-error">Choose one of your websites.</p>');
      // Another account's website: refused as the API refuses it.
      const foreign = await a.submit('/dashboard/scenarios/new', scenarioForm({ name: 'x', website: ids.bobSite, steps: [{ type: 'wait', duration: '1' }] }));
      expect(foreign.status).toBe(422);
      expect(foreign.text).toContain('<p class="field-error" id="scenario-website-error">Website must be one of your websites.</p>');
      expect(await scenarioCount(alice)).toBe(before);
    });

    it('delete asks first (a page), then deletes; the API answers 404 afterwards', async () => {
      const id = await createScenario(alice, { name: 'Doomed', website_id: ids.aliceHome, steps: [{ type: 'wait', duration: 1 }] });
      const editor = await a.get(`/dashboard/scenarios/${id}/edit`);
      expect(editor.text).toContain(`<a class="button danger" href="/dashboard/scenarios/${id}/delete" id="delete-scenario">Delete…</a>`);
      const confirm = await a.get(`/dashboard/scenarios/${id}/delete`);
      expectPage(confirm, 'Delete scenario?');
      expect(confirm.text).toContain('<strong>Doomed</strong>');
      expect(confirm.text).toContain(`<form method="post" action="/dashboard/scenarios/${id}/delete">`);
      expect((await api().get(`/scenarios/${id}`).set(alice.auth)).status).toBe(200);
      expectRedirect(await a.submit(`/dashboard/scenarios/${id}/delete`), '/dashboard/scenarios?notice=scenario-deleted');
      expect((await a.get('/dashboard/scenarios?notice=scenario-deleted')).text).toContain('<div class="notice ok" role="status">Scenario deleted.</div>');
      expect((await api().get(`/scenarios/${id}`).set(alice.auth)).status).toBe(404);
      expectErrorPage(await a.get(`/dashboard/scenarios/${id}/edit`), 404, 'Scenario not found');
    });
  });

  describe('run detail', () => {
    it('a failed run: per-step timeline (1-based), the step’s screenshot, the failure screenshot; the list links to it', async () => {
      const id = await createScenario(alice, {
        name: 'Breaks at step 3',
        website_id: ids.aliceBlog,
        steps: [
          { type: 'wait', duration: 5 },
          { type: 'screenshot', full_page: true },
          { type: 'click', selector: '#missing' },
          { type: 'wait', duration: 5 },
        ],
      });
      const run = await runScenario(alice, id);
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/^Step 2 \(click\) failed: /); // the API counts from 0
      expect(run.screenshot_ids).toHaveLength(2);
      const [stepShot, failureShot] = run.screenshot_ids;

      const page = await a.get(`/dashboard/executions/${run.id}`);
      expectPage(page, 'Run of “Breaks at step 3”');
      expect(page.text).not.toContain('http-equiv="refresh"');
      expect(page.text).toContain(
        '<li class="tl-step tl-succeeded" id="open-website"><div class="tl-head"><strong>Open the website</strong> <span class="badge badge-succeeded">succeeded</span></div></li>',
      );
      const step = (i: number) => new RegExp(`<li class="tl-step tl-[a-z]+" id="step-${i}" data-step-index="${i}">[\\s\\S]*?</li>`).exec(page.text)?.[0] ?? '';
      expect(step(0)).toContain('<strong>Step 1</strong> <code>wait</code> <span class="badge badge-succeeded">succeeded</span>');
      expect(step(1)).toContain('<strong>Step 2</strong> <code>screenshot</code> <span class="badge badge-succeeded">succeeded</span>');
      expect(step(1)).toContain(
        `<a class="shot" href="/dashboard/screenshots/${stepShot}/image" data-screenshot-id="${stepShot}"><img src="/dashboard/screenshots/${stepShot}/thumbnail"`,
      );
      expect(step(2)).toContain('<strong>Step 3</strong> <code>click</code> <span class="badge badge-failed">failed</span>');
      expect(step(2)).toMatch(/<p class="field-error">[^<]*#missing[^<]*<\/p>/);
      expect(step(2)).not.toContain('class="shot"');
      expect(step(3)).toContain('<strong>Step 4</strong> <code>wait</code> <span class="badge badge-skipped">skipped</span>');
      const final = /<li class="tl-step tl-final" id="final-screenshot">[\s\S]*?<\/li>/.exec(page.text)?.[0] ?? '';
      expect(final).toContain('<strong>Failure screenshot: the page when step 3 failed</strong>');
      expect(final).toContain(`<a class="shot" href="/dashboard/screenshots/${failureShot}/image" data-screenshot-id="${failureShot}">`);
      // People read "Step 3"; the raw text as recorded (from 0, as the API's steps[i]) is in small print.
      expect(page.text).toContain('<span class="run-error">Step 3 (click) failed: ');
      expect(run.error).toMatch(/^Step 2 \(click\) failed: /);
      expect(page.text).toMatch(/Raw error: <code>Step 2 \(click\) failed: [^<]*#missing[^<]*<\/code>/);
      // The images behind the thumbnails are this account's screenshots.
      for (const shot of run.screenshot_ids) {
        const img = await a.get(`/dashboard/screenshots/${shot}/image`, { binary: true });
        expect(img.status).toBe(200);
        expect(img.headers['content-type']).toMatch(/^image\/png/);
      }

      const list = await a.get('/dashboard/scenarios');
      const row = new RegExp(`<tr data-scenario-id="${id}">[\\s\\S]*?</tr>`).exec(list.text)?.[0] ?? '';
      expect(row).toContain(`<a class="run-details" href="/dashboard/executions/${run.id}">What failed</a>`);
      expect(row).toContain('<span class="muted">Step 3 (click) failed: ');
      expect(row).not.toContain('Step 2 (click)');
    });

    it('a website that does not open: the opening fails, every step is skipped, the failure screenshot is shown', async () => {
      // Nothing listens on port 1: the browser's navigation fails.
      const created = await api().post('/websites').set(alice.auth).send({ name: 'Unreachable', url: 'http://127.0.0.1:1/' }).expect(201);
      const website = created.body.data.id as number;
      const id = await createScenario(alice, { name: 'Never opens', website_id: website, steps: [{ type: 'screenshot' }] });
      const run = await runScenario(alice, id);
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/^Opening the website failed: /);
      const page = await a.get(`/dashboard/executions/${run.id}`);
      expect(page.text).toContain(
        `<li class="tl-step tl-failed" id="open-website"><div class="tl-head"><strong>Open the website</strong> <span class="badge badge-failed">failed</span></div><p class="field-error">${escapeHtml(run.error!)}</p></li>`,
      );
      expect(page.text).toContain('<strong>Step 1</strong> <code>screenshot</code> <span class="badge badge-skipped">skipped</span>');
      expect(run.screenshot_ids).toHaveLength(1);
      expect(page.text).toContain('<li class="tl-step tl-final" id="final-screenshot"><div class="tl-head"><strong>Failure screenshot</strong></div>');
      expect(page.text).toContain(`data-screenshot-id="${run.screenshot_ids[0]}"`);
    });

    it('a run ending in a screenshot step: one image, shown as the step’s and as the final screenshot', async () => {
      const id = await createScenario(alice, {
        name: 'Ends with a shot',
        website_id: ids.aliceHome,
        steps: [{ type: 'wait', duration: 5 }, { type: 'screenshot' }],
      });
      const run = await runScenario(alice, id);
      expect(run).toMatchObject({ status: 'succeeded', screenshot_ids: [expect.any(Number)] });
      const page = await a.get(`/dashboard/executions/${run.id}`);
      const shot = run.screenshot_ids[0];
      expect(page.text.match(/class="shot"/g)).toHaveLength(1);
      expect(page.text).toContain(`data-screenshot-id="${shot}"`);
      expect(page.text).toContain("Also the run's final screenshot.");
      expect(page.text).not.toContain('id="final-screenshot"');
    });

    it('Run now from the editor goes to the new run’s page, which refreshes until it has finished', async () => {
      const res = await a.submit(`/dashboard/scenarios/${ids.aliceScenario}/run`, { then: 'details' });
      expect(res.status).toBe(303);
      const executionId = /^\/dashboard\/executions\/([0-9a-f-]{36})\?notice=run-started$/.exec(res.headers.location)?.[1] as string;
      expect(executionId).toBeDefined();
      const job = await t.app.get(JobRepository).findById(executionId);
      expect(job).toMatchObject({ type: 'scenario', scenarioId: ids.aliceScenario, accountId: alice.id });
      const first = await a.get(res.headers.location);
      if (first.text.includes('role="status">This run is')) expect(first.text).toContain('<meta http-equiv="refresh" content="2">');
      const QUEUED = '<div class="notice ok" role="status">Scenario run queued. This page refreshes until it has finished.</div>';
      const ENDED = '<div class="notice info" role="status">The scenario run has ended: how it went is below.</div>';
      expect(first.text).toContain(first.text.includes('role="status">This run is') ? QUEUED : ENDED);
      await waitForJob(t.url, alice.auth, executionId);
      const done = await a.get(`/dashboard/executions/${executionId}`);
      expect(done.text).toContain('<span class="badge badge-succeeded">succeeded</span>');
      expect(done.text).not.toContain('http-equiv="refresh"');
      // Issue 31: the page reloads itself with the same ?notice=; once the run has ended that notice says so.
      const reloaded = await a.get(res.headers.location);
      expect(reloaded.text).toContain(ENDED);
      expect(reloaded.text).not.toContain('Scenario run queued');
      expect(reloaded.text).not.toContain('http-equiv="refresh"');
    });
  });

  describe('schedules', () => {
    it('create in the form: 303 to its page with the next five runs in its zone and in UTC; the API has it', async () => {
      const before = await scheduleCount(alice);
      const res = await a.submit('/dashboard/schedules/new', {
        name: 'Berlin mornings',
        website_id: ids.aliceBlog,
        frequency: 'daily',
        time: '07:30',
        timezone: 'Europe/Berlin',
        day_of_week: '',
        enabled: 'true',
      });
      expect(res.status).toBe(303);
      const id = Number(/^\/dashboard\/schedules\/(\d+)\/edit\?notice=schedule-created$/.exec(res.headers.location)?.[1]);
      expect(await scheduleCount(alice)).toBe(before + 1);
      const fromApi = await api().get(`/schedules/${id}`).set(alice.auth).expect(200);
      expect(fromApi.body.data).toMatchObject({
        name: 'Berlin mornings',
        website_id: ids.aliceBlog,
        frequency: 'daily',
        time: '07:30',
        timezone: 'Europe/Berlin',
        day_of_week: null,
        enabled: true,
        next_run_at: '2031-01-16T06:30:00.000Z',
      });

      const page = await a.get(res.headers.location);
      expectPage(page, 'Edit schedule “Berlin mornings”');
      expect(page.text).toContain('<div class="notice ok" role="status">Schedule created.</div>');
      const runs = [
        ...page.text.matchAll(/<tr><td>(\d)<\/td><td><time datetime="([^"]+)">([^<]+)<\/time><\/td><td><time datetime="[^"]+">([^<]+)<\/time><\/td><\/tr>/g),
      ].map((m) => [m[1], m[2], m[3], m[4]]);
      expect(runs).toEqual(
        [16, 17, 18, 19, 20].map((day, i) => [
          String(i + 1),
          `2031-01-${day}T06:30:00.000Z`,
          expect.stringMatching(new RegExp(`^[A-Z][a-z]{2} 2031-01-${day} 07:30 (GMT\\+1|CET)$`)),
          `2031-01-${day} 06:30 UTC`,
        ]),
      );
      expect(page.text).toContain('<h2 id="next-runs-title">Next 5 runs</h2>');
      expect(page.text).toContain('<th scope="col">In Europe/Berlin</th><th scope="col">In UTC</th>');
    });

    it('across the spring-forward night: the next five runs are the entity’s (02:30 does not exist on 30 March, it runs at 03:00)', async () => {
      const saved = t.clock.now();
      t.clock.set(new Date('2031-03-27T12:00:00.000Z'));
      try {
        const c = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
        const res = await c.submit('/dashboard/schedules/new', {
          name: 'Night',
          website_id: ids.aliceHome,
          frequency: 'daily',
          time: '02:30',
          timezone: 'Europe/Berlin',
          day_of_week: '',
          enabled: 'true',
        });
        expect(res.status).toBe(303);
        const page = await c.get(res.headers.location);
        const utc = [...page.text.matchAll(/<tr><td>\d<\/td><td><time datetime="([^"]+)">([^<]+)<\/time>/g)].map((m) => [m[1], m[2].slice(4)]);
        expect(utc).toEqual([
          ['2031-03-28T01:30:00.000Z', expect.stringMatching(/^2031-03-28 02:30 (GMT\+1|CET)$/)],
          ['2031-03-29T01:30:00.000Z', expect.stringMatching(/^2031-03-29 02:30 (GMT\+1|CET)$/)],
          ['2031-03-30T01:00:00.000Z', expect.stringMatching(/^2031-03-30 03:00 (GMT\+2|CEST)$/)],
          ['2031-03-31T00:30:00.000Z', expect.stringMatching(/^2031-03-31 02:30 (GMT\+2|CEST)$/)],
          ['2031-04-01T00:30:00.000Z', expect.stringMatching(/^2031-04-01 02:30 (GMT\+2|CEST)$/)],
        ]);
      } finally {
        t.clock.set(new Date(saved.getTime() + 60_000));
        // Signing in at the later time ended the sessions that had expired by then: sign in again, at the pinned time.
        a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
        b = await new DashboardClient(t.url).signInOk(bob.email, PASSWORD);
      }
    });

    it('invalid fields: 422 with the API’s messages next to each field, the input kept, nothing created', async () => {
      const before = await scheduleCount(alice);
      const fields = {
        name: '',
        website_id: String(ids.aliceHome),
        frequency: 'monthly',
        time: '7:5',
        timezone: 'Mars/Olympus',
        day_of_week: '9',
        enabled: 'true',
      };
      const res = await a.submit('/dashboard/schedules/new', fields);
      expectPage(res, 'New schedule', 422);
      const fromApi = await api()
        .post('/schedules')
        .set(alice.auth)
        .send({ name: '', website_id: ids.aliceHome, frequency: 'monthly', time: '7:5', timezone: 'Mars/Olympus', day_of_week: 9, enabled: true })
        .expect(422);
      const ids_ = {
        name: 'schedule-name',
        frequency: 'schedule-frequency',
        time: 'schedule-time',
        timezone: 'schedule-timezone',
        day_of_week: 'schedule-day',
      } as Record<string, string>;
      const shown = [...res.text.matchAll(/<p class="field-error" id="([^"]+)-error">([^<]*)<\/p>/g)].map((m) => [m[1], unescape(m[2])]).sort();
      expect(shown).toEqual(
        inPeoplesWordsAll(fromApi.body.details as Array<{ field: string; message: string }>)
          .map((d) => [ids_[d.field], d.message])
          .sort(),
      );
      expect(shown.map(([id]) => id).sort()).toEqual(['schedule-day', 'schedule-frequency', 'schedule-name', 'schedule-time', 'schedule-timezone']);
      expect(inputValue(res.text, 'time')).toBe('7:5');
      expect(inputValue(res.text, 'timezone')).toBe('Mars/Olympus');
      // Another account's website: refused as the API refuses it.
      const foreign = await a.submit('/dashboard/schedules/new', {
        ...fields,
        name: 'x',
        frequency: 'daily',
        time: '07:00',
        timezone: 'UTC',
        day_of_week: '',
        website_id: String(ids.bobSite),
      });
      expect(foreign.status).toBe(422);
      expect(foreign.text).toContain('<p class="field-error" id="schedule-website-error">Website must be one of your websites.</p>');
      expect(await scheduleCount(alice)).toBe(before);
      expect(await scheduleCount(bob)).toBe(0);
    });

    it('edit (disabled: next runs shown as "once enabled"), weekly with a day; delete asks first', async () => {
      const edit = await a.submit(`/dashboard/schedules/${ids.aliceSchedule}/edit`, {
        name: 'Every Monday',
        website_id: String(ids.aliceHome),
        frequency: 'weekly',
        time: '18:00',
        timezone: 'America/New_York',
        day_of_week: '1',
      });
      expectRedirect(edit, `/dashboard/schedules/${ids.aliceSchedule}/edit?notice=schedule-saved`);
      freshMinute();
      expect((await api().get(`/schedules/${ids.aliceSchedule}`).set(alice.auth).expect(200)).body.data).toMatchObject({
        name: 'Every Monday',
        frequency: 'weekly',
        time: '18:00',
        timezone: 'America/New_York',
        day_of_week: 1,
        enabled: false,
        next_run_at: null,
      });
      const page = await a.get(`/dashboard/schedules/${ids.aliceSchedule}/edit`);
      expect(page.text).toContain('This schedule is disabled: it runs at these times once it is enabled again.');
      expect([...page.text.matchAll(/<tr><td>\d<\/td><td><time datetime="([^"]+)">/g)].map((m) => m[1])).toEqual([
        '2031-01-20T23:00:00.000Z',
        '2031-01-27T23:00:00.000Z',
        '2031-02-03T23:00:00.000Z',
        '2031-02-10T23:00:00.000Z',
        '2031-02-17T23:00:00.000Z',
      ]);
      expect(page.text).toContain('<option value="1" selected>Monday</option>');
      expect(page.text).toMatch(/<input type="checkbox" id="schedule-enabled" name="enabled" value="true">/);
      // Enabled again from the form: the list shows it, with an Edit link.
      expectRedirect(
        await a.submit(`/dashboard/schedules/${ids.aliceSchedule}/edit`, {
          name: 'Every Monday',
          website_id: String(ids.aliceHome),
          frequency: 'weekly',
          time: '18:00',
          timezone: 'America/New_York',
          day_of_week: '1',
          enabled: 'true',
        }),
        `/dashboard/schedules/${ids.aliceSchedule}/edit?notice=schedule-saved`,
      );
      const list = await a.get('/dashboard/schedules');
      const row = new RegExp(`<tr data-schedule-id="${ids.aliceSchedule}">[\\s\\S]*?</tr>`).exec(list.text)?.[0] ?? '';
      expect(row).toContain(`<a class="button secondary" href="/dashboard/schedules/${ids.aliceSchedule}/edit">Edit</a>`);
      expect(row).toContain('<span class="badge badge-enabled">enabled</span>');

      const doomed = await api()
        .post('/schedules')
        .set(alice.auth)
        .send({ name: 'Doomed', website_id: ids.aliceHome, frequency: 'hourly', time: '00:15', timezone: 'UTC' })
        .expect(201);
      const id = doomed.body.data.id as number;
      const confirm = await a.get(`/dashboard/schedules/${id}/delete`);
      expectPage(confirm, 'Delete schedule?');
      expect(confirm.text).toContain(`<form method="post" action="/dashboard/schedules/${id}/delete">`);
      expectRedirect(await a.submit(`/dashboard/schedules/${id}/delete`), '/dashboard/schedules?notice=schedule-deleted');
      expect((await api().get(`/schedules/${id}`).set(alice.auth)).status).toBe(404);
    });
  });

  describe('jobs', () => {
    it('the list with filters (status, type, website), every job id linked to its page', async () => {
      const all = await a.get('/dashboard/jobs');
      expectPage(all, 'Jobs');
      expect(all.text).toContain('<a href="/dashboard/jobs" aria-current="page">Jobs</a>');
      const rowIds = (page: string) => [...page.matchAll(/<tr data-job-id="([^"]+)">/g)].map((m) => m[1]);
      const fromDb = (await t.app.get(JobRepository).list(alice.id, { page: 1, perPage: 100 }, {})).items;
      expect(rowIds(all.text)).toEqual(fromDb.map((j) => j.id));
      for (const j of fromDb) expect(all.text).toContain(`<a class="mono" href="/dashboard/jobs/${j.id}" title="${j.id}">${j.id.slice(0, 8)}</a>`);

      const failed = await a.get('/dashboard/jobs?status=failed');
      const failedIds = fromDb.filter((j) => j.status === 'failed').map((j) => j.id);
      expect(failedIds.length).toBeGreaterThan(0);
      expect(rowIds(failed.text)).toEqual(failedIds);
      expect(failed.text).toContain('<option value="failed" selected>failed</option>');
      expect(rowIds((await a.get('/dashboard/jobs?type=screenshot')).text)).toEqual(fromDb.filter((j) => j.type === 'screenshot').map((j) => j.id));
      expect(rowIds((await a.get(`/dashboard/jobs?website_id=${ids.aliceBlog}`)).text)).toEqual(
        fromDb.filter((j) => j.websiteId === ids.aliceBlog).map((j) => j.id),
      );
      expect(rowIds((await a.get(`/dashboard/jobs?type=scenario&status=succeeded&website_id=${ids.aliceHome}`)).text)).toEqual(
        fromDb.filter((j) => j.type === 'scenario' && j.status === 'succeeded' && j.websiteId === ids.aliceHome).map((j) => j.id),
      );
      // Bob's website as a filter shows nothing of Bob's (and none of Alice's).
      expect(rowIds((await a.get(`/dashboard/jobs?website_id=${ids.bobSite}`)).text)).toEqual([]);
      // Job ids elsewhere link to the job page too: a schedule's last job, a scenario's recent runs.
      const editor = await a.get(`/dashboard/scenarios/${ids.aliceScenario}/edit`);
      expect(editor.text).toContain(`<a class="mono" href="/dashboard/jobs/${ids.aliceExecution}" title="${ids.aliceExecution}">`);
    });

    it("a job's page: status, attempts, error, timings, options (no secrets) and its screenshot; a run links to its details", async () => {
      const job = (await t.app.get(JobRepository).findById(ids.aliceJob))!;
      const page = await a.get(`/dashboard/jobs/${ids.aliceJob}`);
      expectPage(page, `Job ${ids.aliceJob.slice(0, 8)}`);
      expect(page.text).toContain(`<code class="break" id="job-id">${ids.aliceJob}</code>`);
      expect(page.text).toContain('<span class="badge badge-succeeded">succeeded</span> screenshot');
      expect(page.text).toContain('<div><dt>Attempts</dt><dd>1</dd></div>');
      expect(page.text).toContain(`<div><dt>Queued</dt><dd><time datetime="${job.createdAt.toISOString()}">`);
      expect(page.text).toContain(`<div><dt>Finished</dt><dd><time datetime="${job.finishedAt!.toISOString()}">`);
      expect(page.text).toContain(`<a class="shot" href="/dashboard/screenshots/${job.resultId}/image">`);

      // A capture with secret headers: the options are listed, the secrets never.
      const secret = 'Bearer very-secret-value-123';
      const take = await api()
        .post(`/websites/${ids.aliceHome}/screenshot`)
        .set(alice.auth)
        .send({ full_page: true, delay_ms: 10, headers: { Authorization: secret } })
        .expect(200);
      const withSecret = await a.get(`/dashboard/jobs/${take.body.job_id}`);
      // The options in the API's snake_case names, and the address the job captures (issue 31).
      expect(withSecret.text).toContain('<dt><code>full_page</code></dt><dd><code class="break">true</code></dd>');
      expect(withSecret.text).toContain('<dt><code>delay_ms</code></dt><dd><code class="break">10</code></dd>');
      expect(withSecret.text).not.toContain('<code>delayMs</code>');
      expect(withSecret.text).toContain(
        `<div><dt>URL</dt><dd><a class="mono break" id="job-url" href="${site.url}/home" rel="noopener noreferrer nofollow">${site.url}/home</a></dd></div>`,
      );
      expect(withSecret.text).not.toContain('very-secret-value-123');
      await waitForJob(t.url, alice.auth, take.body.job_id);
      expect((await a.get(`/dashboard/jobs/${take.body.job_id}`)).text).not.toContain('very-secret-value-123');

      // A scenario run: the error (1-based) and a link to the run's details; fill values never shown.
      const id = await createScenario(alice, {
        name: 'Types a secret',
        website_id: ids.aliceHome,
        steps: [
          { type: 'fill', selector: '#nope', value: 'p4ssw0rd-secret' },
          { type: 'wait', duration: 1 },
        ],
      });
      const run = await runScenario(alice, id);
      const runPage = await a.get(`/dashboard/jobs/${run.id}`);
      expect(runPage.text).toContain(`<a href="/dashboard/executions/${run.id}">Run details</a>`);
      expect(runPage.text).toContain('<span class="run-error">Step 1 (fill) failed: ');
      expect(runPage.text).not.toContain('p4ssw0rd-secret');
      // Issue 46: a fill value NOT marked secret is the owner's own text: the run's step list shows it once, in the
      // step's summary (as the scenario editor does); the error and the job page never do. A secret one shows
      // "[redacted]" (execution.page.spec.ts).
      const details = (await a.get(`/dashboard/executions/${run.id}`)).text;
      expect(details.match(/p4ssw0rd-secret/g)).toHaveLength(1);
      expect(details).toContain('<code>p4ssw0rd-secret</code>');
    });

    it("a failed capture's page: the error in words, Chromium's code in small print, the captured URL; the jobs list too (issue 31)", async () => {
      // A port nothing listens on any more (port 1 would be Chromium's ERR_UNSAFE_PORT): the connection is refused.
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const port = (probe.address() as AddressInfo).port;
      await new Promise((resolve) => probe.close(resolve));
      const url = `http://127.0.0.1:${port}/`;
      const created = await api().post('/websites').set(alice.auth).send({ name: 'Refuses', url }).expect(201);
      const take = await api().post(`/websites/${created.body.data.id}/screenshot`).set(alice.auth).send({}).expect(200);
      const job = await waitForJob(t.url, alice.auth, take.body.job_id);
      const words = 'The site refused the connection. Check that the site is up and that the address and port are right.';
      expect(job).toMatchObject({ status: 'failed', error: words, error_code: 'net::ERR_CONNECTION_REFUSED' });
      const page = await a.get(`/dashboard/jobs/${job.id}`);
      expect(page.text).toContain(`<span class="run-error">${words}</span>`);
      expect(page.text).toContain('<small class="raw-error">Raw error: <code>net::ERR_CONNECTION_REFUSED</code></small>');
      expect(page.text).toContain(`<div><dt>URL</dt><dd><a class="mono break" id="job-url" href="${url}"`);
      const list = await a.get(`/dashboard/jobs?website_id=${created.body.data.id}`);
      expect(list.text).toContain(
        `<td class="error-cell">${words}<br><small class="raw-error">Raw error: <code>net::ERR_CONNECTION_REFUSED</code></small></td>`,
      );
    });

    it('a render job is labelled "render" (the job kinds’ registry), not "screenshot"; the type filter lists every kind (issue 43)', async () => {
      const rendered = await api()
        .get('/render')
        .query({ url: `${site.url}/home`, response_type: 'json' })
        .set(alice.auth);
      expect(rendered.status).toBe(200);
      const renderId = rendered.body.data.id as string;
      const list = await a.get('/dashboard/jobs?type=render');
      expect([...list.text.matchAll(/<tr data-job-id="([^"]+)">/g)].map((m) => m[1])).toEqual([renderId]);
      expect(list.text).toMatch(new RegExp(`<tr data-job-id="${renderId}">\\s*<td>[^\\n]*</td>\\s*<td>render</td>`));
      expect(list.text).toContain(
        '<option value="screenshot">screenshot</option><option value="scenario">scenario run</option><option value="batch_item">batch item</option>' +
          '<option value="render" selected>render</option><option value="session_login">session login</option>',
      );
      const page = await a.get(`/dashboard/jobs/${renderId}`);
      expect(page.text).toContain('<span class="badge badge-succeeded">succeeded</span> render</p>');
      freshMinute();
      const overview = await a.get('/dashboard');
      expect(overview.text).toMatch(new RegExp(`href="/dashboard/jobs/${renderId}"[^\\n]*</a></td>\\s*<td>render</td>`));
    });
  });

  describe('tenant isolation and CSRF', () => {
    it("another account's scenario, schedule, execution and job ids are 404 on every page and form, and nothing changes", async () => {
      const before = {
        scenario: (await api().get(`/scenarios/${ids.aliceScenario}`).set(alice.auth).expect(200)).body.data,
        schedule: (await api().get(`/schedules/${ids.aliceSchedule}`).set(alice.auth).expect(200)).body.data,
        jobs: (await t.app.get(JobRepository).list(alice.id, { page: 1, perPage: 1 }, {})).total,
      };
      const form = scenarioForm({ name: 'Hijacked', website: ids.bobSite, steps: [{ type: 'wait', duration: '1' }] });
      const scheduleForm = { name: 'Hijacked', website_id: String(ids.bobSite), frequency: 'daily', time: '01:00', timezone: 'UTC', enabled: 'true' };
      const checks: Array<[string, Promise<Response>, string]> = [
        ['scenario editor', b.get(`/dashboard/scenarios/${ids.aliceScenario}/edit`), 'Scenario not found'],
        ['scenario save', b.submit(`/dashboard/scenarios/${ids.aliceScenario}/edit`, form), 'Scenario not found'],
        ['scenario add step', b.submit(`/dashboard/scenarios/${ids.aliceScenario}/edit`, { ...form, op: 'add:wait' }), 'Scenario not found'],
        ['scenario delete page', b.get(`/dashboard/scenarios/${ids.aliceScenario}/delete`), 'Scenario not found'],
        ['scenario delete', b.submit(`/dashboard/scenarios/${ids.aliceScenario}/delete`), 'Scenario not found'],
        ['scenario run to details', b.submit(`/dashboard/scenarios/${ids.aliceScenario}/run`, { then: 'details' }), 'Scenario not found'],
        ['execution', b.get(`/dashboard/executions/${ids.aliceExecution}`), 'Execution not found'],
        ['schedule editor', b.get(`/dashboard/schedules/${ids.aliceSchedule}/edit`), 'Schedule not found'],
        ['schedule save', b.submit(`/dashboard/schedules/${ids.aliceSchedule}/edit`, scheduleForm), 'Schedule not found'],
        ['schedule delete page', b.get(`/dashboard/schedules/${ids.aliceSchedule}/delete`), 'Schedule not found'],
        ['schedule delete', b.submit(`/dashboard/schedules/${ids.aliceSchedule}/delete`), 'Schedule not found'],
        ['job (capture)', b.get(`/dashboard/jobs/${ids.aliceJob}`), 'Job not found'],
        ['job (scenario run)', b.get(`/dashboard/jobs/${ids.aliceExecution}`), 'Job not found'],
      ];
      for (const [label, pending, message] of checks) {
        const res = await pending;
        expect({ label, status: res.status }).toEqual({ label, status: 404 });
        expectErrorPage(res, 404, message);
        expect(res.text).not.toContain('Alice');
      }
      // A capture job is not an execution; a malformed id names nothing.
      expectErrorPage(await a.get(`/dashboard/executions/${ids.aliceJob}`), 404, 'Execution not found');
      expect((await a.get('/dashboard/executions/not-a-uuid')).status).toBe(404);
      expect((await a.get('/dashboard/jobs/12')).status).toBe(404);
      // Bob's lists never show Alice's.
      expect((await b.get('/dashboard/jobs')).text).not.toContain(ids.aliceJob);
      freshMinute();
      expect({
        scenario: (await api().get(`/scenarios/${ids.aliceScenario}`).set(alice.auth).expect(200)).body.data,
        schedule: (await api().get(`/schedules/${ids.aliceSchedule}`).set(alice.auth).expect(200)).body.data,
        jobs: (await t.app.get(JobRepository).list(alice.id, { page: 1, perPage: 1 }, {})).total,
      }).toEqual(before);
    });

    it('every new form without the session’s CSRF token, or from another origin → 403, nothing created or changed', async () => {
      const before = {
        scenarios: await scenarioCount(alice),
        schedules: await scheduleCount(alice),
        scenario: (await api().get(`/scenarios/${ids.aliceScenario}`).set(alice.auth).expect(200)).body.data,
        schedule: (await api().get(`/schedules/${ids.aliceSchedule}`).set(alice.auth).expect(200)).body.data,
        jobs: (await t.app.get(JobRepository).list(alice.id, { page: 1, perPage: 1 }, {})).total,
      };
      const scenario = scenarioForm({ name: 'Forged', website: ids.aliceHome, steps: [{ type: 'wait', duration: '1' }] });
      const schedule = { name: 'Forged', website_id: String(ids.aliceHome), frequency: 'daily', time: '01:00', timezone: 'UTC', enabled: 'true' };
      const actions: Array<[string, FormFields]> = [
        ['/dashboard/scenarios/new', scenario],
        ['/dashboard/scenarios/new', { ...scenario, op: 'add:click' }],
        [`/dashboard/scenarios/${ids.aliceScenario}/edit`, scenario],
        [`/dashboard/scenarios/${ids.aliceScenario}/delete`, {}],
        [`/dashboard/scenarios/${ids.aliceScenario}/run`, { then: 'details' }],
        ['/dashboard/schedules/new', schedule],
        [`/dashboard/schedules/${ids.aliceSchedule}/edit`, schedule],
        [`/dashboard/schedules/${ids.aliceSchedule}/delete`, {}],
      ];
      const bobToken = await b.csrf();
      const aliceToken = await a.csrf();
      for (const [path, fields] of actions) {
        for (const res of [
          await a.post(path, fields),
          await a.post(path, { ...fields, _csrf: '' }),
          await a.post(path, { ...fields, _csrf: bobToken }),
          await a.post(path, { ...fields, _csrf: aliceToken }, { headers: { Origin: 'http://evil.example' } }),
        ]) {
          expect({ path, status: res.status }).toEqual({ path, status: 403 });
          expect(res.text).toContain(CSRF_REJECTED);
        }
      }
      freshMinute();
      expect({
        scenarios: await scenarioCount(alice),
        schedules: await scheduleCount(alice),
        scenario: (await api().get(`/scenarios/${ids.aliceScenario}`).set(alice.auth).expect(200)).body.data,
        schedule: (await api().get(`/schedules/${ids.aliceSchedule}`).set(alice.auth).expect(200)).body.data,
        jobs: (await t.app.get(JobRepository).list(alice.id, { page: 1, perPage: 1 }, {})).total,
      }).toEqual(before);
    });
  });

  describe('without API access (an expired subscription)', () => {
    it('the forms say why and cannot save; saving or deleting is the 403 page, as on the API; nothing changes', async () => {
      const accounts = t.app.get(AccountsService);
      const before = {
        scenario: (await api().get(`/scenarios/${ids.aliceScenario}`).set(alice.auth).expect(200)).body.data,
        schedule: (await api().get(`/schedules/${ids.aliceSchedule}`).set(alice.auth).expect(200)).body.data,
        scenarios: await scenarioCount(alice),
        schedules: await scheduleCount(alice),
      };
      await accounts.updateAccount(alice.email, { status: 'expired' });
      try {
        const editor = await a.get(`/dashboard/scenarios/${ids.aliceScenario}/edit`);
        expect(editor.text).toContain('<strong>Your subscription is expired.</strong>');
        expect(editor.text).toContain('id="save-scenario" disabled aria-disabled="true"');
        expect((await a.get('/dashboard/schedules/new')).text).toContain('id="save-schedule" disabled aria-disabled="true"');
        // Moving steps around changes nothing stored: still possible.
        const form = scenarioForm({ name: 'Expired edit', website: ids.aliceHome, steps: [{ type: 'wait', duration: '1' }] });
        expect((await a.submit(`/dashboard/scenarios/${ids.aliceScenario}/edit`, { ...form, op: 'add:click' })).status).toBe(200);
        const schedule = { name: 'Expired', website_id: String(ids.aliceHome), frequency: 'daily', time: '01:00', timezone: 'UTC', enabled: 'true' };
        for (const res of [
          await a.submit('/dashboard/scenarios/new', form),
          await a.submit(`/dashboard/scenarios/${ids.aliceScenario}/edit`, form),
          await a.submit(`/dashboard/scenarios/${ids.aliceScenario}/delete`),
          await a.submit('/dashboard/schedules/new', schedule),
          await a.submit(`/dashboard/schedules/${ids.aliceSchedule}/edit`, schedule),
          await a.submit(`/dashboard/schedules/${ids.aliceSchedule}/delete`),
        ]) {
          expectErrorPage(res, 403, 'API access is not available on your plan');
        }
        // Another account's ids are still 404 first: no existence leaks through the plan check.
        expectErrorPage(await a.submit(`/dashboard/scenarios/${ids.aliceScenario + 100000}/delete`), 404, 'Scenario not found');
      } finally {
        await accounts.updateAccount(alice.email, { status: 'active' });
      }
      freshMinute();
      expect({
        scenario: (await api().get(`/scenarios/${ids.aliceScenario}`).set(alice.auth).expect(200)).body.data,
        schedule: (await api().get(`/schedules/${ids.aliceSchedule}`).set(alice.auth).expect(200)).body.data,
        scenarios: await scenarioCount(alice),
        schedules: await scheduleCount(alice),
      }).toEqual(before);
    });
  });

  describe('every automation page', () => {
    it('answers HTML under the CSP with no inline script, style or handler; without a session it sends you to sign in', async () => {
      const csp = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
      const paths = [
        '/dashboard/scenarios',
        '/dashboard/scenarios/new',
        `/dashboard/scenarios/new?website_id=${ids.aliceBlog}`,
        `/dashboard/scenarios/${ids.aliceScenario}/edit`,
        `/dashboard/scenarios/${ids.aliceScenario}/delete`,
        `/dashboard/executions/${ids.aliceExecution}`,
        '/dashboard/schedules',
        '/dashboard/schedules/new',
        `/dashboard/schedules/${ids.aliceSchedule}/edit`,
        `/dashboard/schedules/${ids.aliceSchedule}/delete`,
        '/dashboard/jobs',
        '/dashboard/jobs?status=nonsense&type=&website_id=abc',
        `/dashboard/jobs/${ids.aliceJob}`,
        `/dashboard/jobs/${ids.aliceExecution}`,
      ];
      for (const path of paths) {
        const res = await a.get(path);
        expect({
          path,
          status: res.status,
          type: res.headers['content-type'],
          csp: res.headers['content-security-policy'],
          cache: res.headers['cache-control'],
        }).toEqual({
          path,
          status: 200,
          type: HTML,
          csp,
          cache: 'no-store',
        });
        expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
        expect(res.text).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
        // Every POST form carries the session's CSRF field.
        const forms = [...res.text.matchAll(/<form [^>]*method="post"[^>]*>([\s\S]*?)<\/form>/g)];
        for (const form of forms) expect(form[1]).toContain(`<input type="hidden" name="_csrf" value="${await a.csrf()}">`);
        const anonymous = await new DashboardClient(t.url).get(path);
        expectRedirect(anonymous, `/dashboard/login?next=${encodeURIComponent(path)}`);
      }
      // The new scenario form takes its website from the link that led to it.
      expect((await a.get(`/dashboard/scenarios/new?website_id=${ids.aliceBlog}`)).text).toContain(
        `<option value="${ids.aliceBlog}" selected>Alice blog</option>`,
      );
      const schedule = await a.get('/dashboard/schedules/new');
      expectPage(schedule, 'New schedule');
      expect(schedule.text).toContain('<input type="checkbox" id="schedule-enabled" name="enabled" value="true" checked>');
      expect(schedule.text).toContain('<option value="UTC">');
    });
  });

  describe.each([
    ['desktop', 1280, 800],
    ['phone', 390, 844],
  ])('in a real browser (%s, %ix%i)', (label, width, height) => {
    let browser: Browser;
    let page: Page;
    const visited: string[] = [];

    const save = async (name: string) => {
      mkdirSync(SHOTS_DIR, { recursive: true });
      await page.screenshot({ path: join(SHOTS_DIR, `${name}-${width}.png`), fullPage: true });
    };
    /** No page of ours is wider than the screen (tables scroll inside their own box). */
    const fitsTheScreen = async () => {
      const { scrollWidth, clientWidth, wide } = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        // For the failure message: which elements reach past the right edge.
        const past = Array.from(document.querySelectorAll('body *'))
          .filter((el) => el.getBoundingClientRect().right > width + 0.5)
          .slice(0, 5)
          .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
        return { scrollWidth: document.documentElement.scrollWidth, clientWidth: width, wide: past };
      });
      expect({ url: page.url(), scrollWidth, wide }).toEqual({ url: page.url(), scrollWidth: Math.min(scrollWidth, clientWidth), wide: expect.any(Array) });
      visited.push(new URL(page.url()).pathname);
    };
    const go = async (path: string) => {
      const res = await page.goto(`${t.url}${path}`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      await fitsTheScreen();
    };
    const clickAndWait = async (selector: string) => {
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
    };

    beforeAll(async () => {
      browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
      page = await browser.newPage();
      await page.setViewport({ width, height });
      await page.goto(`${t.url}/dashboard/login`, { waitUntil: 'load' });
      await page.type('#email', alice.email);
      await page.type('#password', PASSWORD);
      await clickAndWait('button[type=submit]');
      expect(new URL(page.url()).pathname).toBe('/dashboard');
    });

    afterAll(async () => {
      await browser?.close();
    });

    it('edit a scenario (add steps with the page’s buttons), run it, open its run detail with per-step screenshots', async () => {
      const scenarioId = await createScenario(alice, { name: `Tour ${label}`, website_id: ids.aliceBlog, steps: [{ type: 'wait', duration: 5 }] });
      await go('/dashboard/scenarios');
      await save('scenarios');
      await clickAndWait(`tr[data-scenario-id="${scenarioId}"] a[href$="/edit"]`);
      expect(await page.$eval('h1', (h) => h.textContent)).toBe(`Edit scenario “Tour ${label}”`);
      await fitsTheScreen();

      // Add a scroll step and a full-page screenshot step, then a final viewport screenshot step: with script, in the
      // page (issue 31: no reload; dashboard-updates.e2e-spec has the details).
      await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
      await page.click('button[value="add:scroll"]');
      await fitsTheScreen();
      await page.type('#step-1-to', 'bottom');
      await page.click('button[value="add:screenshot"]');
      expect(await page.$eval('#step-1-to', (el) => (el as HTMLInputElement).value)).toBe('bottom');
      await page.select('#step-2-full_page', 'true');
      await page.click('button[value="add:screenshot"]');
      await page.select('#step-3-full_page', 'false');
      // Move the scroll step above the wait, then back down: the order the person sees is the order saved.
      await page.click('button[value="up:1"]');
      expect(await page.$$eval('.step legend code', (els) => els.map((e) => e.textContent))).toEqual(['scroll', 'wait', 'screenshot', 'screenshot']);
      await page.click('button[value="down:0"]');
      expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
      expect(await page.$$eval('.step legend', (els) => els.map((e) => e.textContent?.replace(/\s+/g, ' ').trim()))).toEqual([
        'Step 1 wait',
        'Step 2 scroll',
        'Step 3 screenshot',
        'Step 4 screenshot',
      ]);
      await save('scenario-editor');
      // A mistake first: the error shows next to the step.
      await page.$eval('#step-1-to', (el) => ((el as HTMLInputElement).value = 'div['));
      await clickAndWait('#save-scenario');
      expect(await page.$eval('#step-1-to-error', (el) => el.textContent)).toBe('Step 2: the scroll target is not a valid CSS selector.');
      await fitsTheScreen();
      await save('scenario-editor-errors');
      await page.$eval('#step-1-to', (el) => ((el as HTMLInputElement).value = 'bottom'));
      await clickAndWait('#save-scenario');
      expect(await page.$eval('[role=status]', (el) => el.textContent)).toBe('Scenario saved.');
      freshMinute();
      expect((await api().get(`/scenarios/${scenarioId}`).set(alice.auth).expect(200)).body.data.steps).toEqual([
        { type: 'wait', duration: 5 },
        { type: 'scroll', to: 'bottom' },
        { type: 'screenshot', full_page: true },
        { type: 'screenshot', full_page: false },
      ]);

      await clickAndWait('#run-scenario');
      const executionId = /\/dashboard\/executions\/([0-9a-f-]{36})/.exec(page.url())?.[1] as string;
      expect(executionId).toBeDefined();
      // The run's page reloads itself while the run is under way: leave it, so no reload races the next navigation.
      await page.goto('about:blank');
      await waitForJob(t.url, alice.auth, executionId);
      await go(`/dashboard/executions/${executionId}`);
      expect(await page.$eval('.run-status .badge', (el) => el.textContent)).toBe('succeeded');
      await page.waitForFunction(() => Array.from(document.querySelectorAll('.shot img')).every((img) => (img as HTMLImageElement).complete), {
        timeout: 10_000,
      });
      const shots = await page.$$eval('.tl-step', (items) =>
        items.map((li) => ({
          step: li.getAttribute('data-step-index'),
          images: Array.from(li.querySelectorAll('.shot img')).map((img) => (img as HTMLImageElement).naturalWidth > 0),
        })),
      );
      // One image for each screenshot step; the last one is also the final screenshot (stored once).
      expect(shots).toEqual([
        { step: null, images: [] },
        { step: '0', images: [] },
        { step: '1', images: [] },
        { step: '2', images: [true] },
        { step: '3', images: [true] },
      ]);
      expect(await page.$eval('#step-3', (li) => li.textContent)).toContain("Also the run's final screenshot.");
      await fitsTheScreen();
      await save('run-detail');
      // The thumbnail opens the image.
      const href = await page.$eval('#step-2 a.shot', (a) => a.getAttribute('href'));
      const image = await page.goto(`${t.url}${href}`, { waitUntil: 'load' });
      expect(image?.headers()['content-type']).toMatch(/^image\/png/);
    });

    it('create a schedule in the form and see its next five runs; the jobs pages', async () => {
      await go('/dashboard/schedules');
      await save('schedules');
      await clickAndWait('#new-schedule');
      await fitsTheScreen();
      await page.type('#schedule-name', `Weekly ${label}`);
      await page.select('#schedule-website', String(ids.aliceHome));
      // The day of the week shows for weekly schedules only (script; without it, always).
      expect(await page.$eval('#schedule-day', (el) => (el.closest('.field') as HTMLElement).hidden)).toBe(true);
      await page.select('#schedule-frequency', 'weekly');
      expect(await page.$eval('#schedule-day', (el) => (el.closest('.field') as HTMLElement).hidden)).toBe(false);
      await page.$eval('#schedule-time', (el) => ((el as HTMLInputElement).value = ''));
      await page.type('#schedule-time', '09:15');
      await page.$eval('#schedule-timezone', (el) => ((el as HTMLInputElement).value = ''));
      await page.type('#schedule-timezone', 'Asia/Tokyo');
      await page.select('#schedule-day', '5');
      await save('schedule-new');
      await clickAndWait('#save-schedule');
      expect(await page.$eval('[role=status]', (el) => el.textContent)).toBe('Schedule created.');
      const runs = await page.$$eval('#next-runs tbody tr', (rows) =>
        rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent?.trim())),
      );
      // Fridays 09:15 in Tokyo (UTC+9, no DST) = 00:15 UTC, from the pinned clock's Wednesday on.
      expect(runs.map((r) => r[2])).toHaveLength(5);
      for (const [i, row] of runs.entries()) {
        expect(row[0]).toBe(String(i + 1));
        expect(row[1]).toMatch(/^Fri 2031-\d\d-\d\d 09:15 GMT\+9$/);
        expect(row[2]).toMatch(/^2031-\d\d-\d\d 00:15 UTC$/);
      }
      await fitsTheScreen();
      await save('schedule-edit');

      await go('/dashboard/jobs');
      await save('jobs');
      await clickAndWait('tr[data-job-id] td:first-child a');
      expect(await page.$eval('h1', (h) => h.textContent)).toMatch(/^Job [0-9a-f]{8}$/);
      await fitsTheScreen();
      await save('job');
      await go(`/dashboard/jobs?status=succeeded&type=screenshot&website_id=${ids.aliceHome}`);
      await go(`/dashboard/scenarios/${ids.aliceScenario}/delete`);
      await save('scenario-delete');
      await go(`/dashboard/schedules/${ids.aliceSchedule}/delete`);
      await save('schedule-delete');
      await go('/dashboard/scenarios/new');
      await save('scenario-new');
      const kinds = new Set(visited.map((p) => p.replace(/[0-9a-f-]{36}/, ':uuid').replace(/\/\d+\//, '/:id/')));
      expect([...kinds].sort()).toEqual(
        [
          '/dashboard/executions/:uuid',
          '/dashboard/jobs',
          '/dashboard/jobs/:uuid',
          '/dashboard/scenarios',
          '/dashboard/scenarios/:id/delete',
          '/dashboard/scenarios/:id/edit',
          '/dashboard/scenarios/new',
          '/dashboard/schedules',
          '/dashboard/schedules/:id/delete',
          '/dashboard/schedules/:id/edit',
          '/dashboard/schedules/new',
        ].sort(),
      );
    });
  });
});
