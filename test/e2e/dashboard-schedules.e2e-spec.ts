/// <reference lib="dom" />
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import request, { Response } from 'supertest';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { DashboardClient } from '../support/dashboard-session';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The dashboard's schedule pages, issue 31: the every-N-minutes frequencies, a schedule that runs a scenario, and
 * Run now (list and editor). Over HTTP first, then in real Chromium with JavaScript off at 1280×800 and 390×844
 * (every page fits the screen). Pictures go to DASHBOARD_SCREENSHOTS when set, else to a temporary folder.
 */

const PASSWORD = 'schedule pages password';
const HTML = 'text/html; charset=utf-8';
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : mkdtempSync(join(tmpdir(), 'dashboard-schedules-'));

function expectRedirect(res: Response, location: string): void {
  expect({ status: res.status, location: res.headers.location }).toEqual({ status: 303, location });
}

describe('Dashboard schedule pages (issue 31)', () => {
  let t: TestApp;
  let site: PageServer;
  let alice: TestAccount;
  let bob: TestAccount;
  let a: DashboardClient;
  const ids = { home: 0, scenario: 0, bobSchedule: 0 };

  const api = () => request(t.url);
  function freshMinute(): void {
    const now = t.clock.now().getTime();
    t.clock.set(new Date(Math.floor(now / 60_000) * 60_000 + 60_000 + 5_000));
  }
  async function withPassword(name: string): Promise<TestAccount> {
    const account = await t.createAccount({ plan: 'pro', name });
    await t.app.get(AccountsService).setPassword(account.email, PASSWORD);
    return account;
  }

  beforeAll(async () => {
    site = await new PageServer({ '/home': solidPage('rgb(200,30,30)') }).start();
    t = await startTestApp({ env: { SIGN_IN_LIMIT_PER_MINUTE: '100000', DASHBOARD_LIMIT_PER_MINUTE: '100000', SCHEDULE_TICK_MS: '3600000' } });
    t.clock.set('2031-01-15T12:00:00.000Z');
    alice = await withPassword('Alice');
    bob = await withPassword('Bob');
    const home = await api()
      .post('/websites')
      .set(alice.auth)
      .send({ name: 'Alice home', url: `${site.url}/home`, viewport_width: 800, viewport_height: 500 });
    ids.home = home.body.data.id;
    const scenario = await api()
      .post('/scenarios')
      .set(alice.auth)
      .send({ name: 'Alice check', website_id: ids.home, steps: [{ type: 'wait', duration: 10 }] });
    ids.scenario = scenario.body.data.id;
    const bobSite = await api()
      .post('/websites')
      .set(bob.auth)
      .send({ name: 'Bob site', url: `${site.url}/home` });
    const bobSchedule = await api()
      .post('/schedules')
      .set(bob.auth)
      .send({ name: 'Bob daily', website_id: bobSite.body.data.id, frequency: 'daily', time: '09:00', timezone: 'UTC' });
    ids.bobSchedule = bobSchedule.body.data.id;
    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
  });
  afterAll(async () => {
    await t?.close();
    await site?.stop();
  });
  beforeEach(() => freshMinute());

  it('the form offers every frequency in words and the account’s scenarios; a scenario schedule every 15 minutes is saved with the scenario’s website', async () => {
    const form = await a.get('/dashboard/schedules/new');
    expect({ status: form.status, type: form.headers['content-type'] }).toEqual({ status: 200, type: HTML });
    const options = [...form.text.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1], m[2]]);
    for (const pair of [
      ['every_5_minutes', 'Every 5 minutes'],
      ['every_15_minutes', 'Every 15 minutes'],
      ['every_30_minutes', 'Every 30 minutes'],
      ['hourly', 'Hourly'],
      ['daily', 'Daily'],
      ['weekly', 'Weekly'],
      ['', 'No: take a screenshot of the website'],
      [String(ids.scenario), 'Alice check'],
    ]) {
      expect(options).toContainEqual(pair);
    }
    expect((await a.get(`/dashboard/schedules/new?scenario_id=${ids.scenario}`)).text).toContain(
      `<option value="${ids.scenario}" selected>Alice check</option>`,
    );

    // A website chosen as well does not count: the scenario's website is used.
    const res = await a.submit('/dashboard/schedules/new', {
      name: 'Check every quarter',
      website_id: '',
      scenario_id: String(ids.scenario),
      frequency: 'every_15_minutes',
      time: '00:05',
      timezone: 'Europe/Berlin',
      day_of_week: '',
      enabled: 'true',
    });
    expect(res.status).toBe(303);
    const id = Number(/^\/dashboard\/schedules\/(\d+)\/edit\?notice=schedule-created$/.exec(res.headers.location)?.[1]);
    const fromApi = await api().get(`/schedules/${id}`).set(alice.auth).expect(200);
    expect(fromApi.body.data).toMatchObject({ scenario_id: ids.scenario, website_id: ids.home, frequency: 'every_15_minutes', time: '00:05' });

    const edit = await a.get(res.headers.location);
    expect(edit.text).toContain(`<option value="${ids.scenario}" selected>Alice check</option>`);
    expect(edit.text).toContain('<option value="every_15_minutes" selected>Every 15 minutes</option>');
    // The next runs: a quarter hour apart on the local :05 grid.
    const runs = [...edit.text.matchAll(/<tr><td>\d<\/td><td><time datetime="([^"]+)">/g)].map((m) => m[1]);
    expect(runs).toHaveLength(5);
    for (let i = 1; i < runs.length; i++) expect(Date.parse(runs[i]) - Date.parse(runs[i - 1])).toBe(15 * 60_000);
    expect(new Date(runs[0]).getUTCMinutes() % 15).toBe(5);

    const list = await a.get('/dashboard/schedules');
    const row = new RegExp(`<tr data-schedule-id="${id}">[\\s\\S]*?</tr>`).exec(list.text)?.[0] ?? '';
    expect(row).toContain(`Scenario <a href="/dashboard/scenarios/${ids.scenario}/edit">Alice check</a>`);
    expect(row).toContain('every 15 minutes at :05, :20, :35, :50');
    expect(row).toContain(`action="/dashboard/schedules/${id}/run"`);

    // A scenario that is not hers is the API's 422, next to the field.
    const foreign = await a.submit('/dashboard/schedules/new', {
      name: 'x',
      scenario_id: '999999',
      frequency: 'every_5_minutes',
      time: '00:00',
      timezone: 'UTC',
      enabled: 'true',
    });
    expect(foreign.status).toBe(422);
    expect(foreign.text).toContain('<p class="field-error" id="schedule-scenario-error">Scenario must be one of your scenarios.</p>');
  });

  it('Run now from the list and from the editor: 303 back with a notice, the job names the schedule; another account’s schedule is 404', async () => {
    const created = await api()
      .post('/schedules')
      .set(alice.auth)
      .send({ name: 'Home daily', website_id: ids.home, frequency: 'daily', time: '09:00', timezone: 'UTC', enabled: false });
    const id: number = created.body.data.id;

    const fromList = await a.submit(`/dashboard/schedules/${id}/run`, { then: 'list' });
    expectRedirect(fromList, '/dashboard/schedules?notice=schedule-run-queued');
    let schedule = (await api().get(`/schedules/${id}`).set(alice.auth).expect(200)).body.data;
    expect(schedule).toMatchObject({ enabled: false, next_run_at: null, last_job_id: expect.any(String) });
    const job = await t.app.get(JobRepository).findById(schedule.last_job_id);
    expect(job).toMatchObject({ type: 'screenshot', source: 'dashboard', scheduleId: id, websiteId: ids.home });
    expect((await waitForJob(t.url, alice.auth, schedule.last_job_id)).status).toBe('succeeded');
    const list = await a.get('/dashboard/schedules?notice=schedule-run-queued');
    expect(list.text).toContain('Run queued: “Last run” links its job.');
    expect(list.text).toContain(`href="/dashboard/jobs/${schedule.last_job_id}"`);

    const fromEditor = await a.submit(`/dashboard/schedules/${id}/run`, { then: 'edit' });
    expectRedirect(fromEditor, `/dashboard/schedules/${id}/edit?notice=schedule-run-queued`);
    const previous = schedule.last_job_id;
    schedule = (await api().get(`/schedules/${id}`).set(alice.auth).expect(200)).body.data;
    expect(schedule.last_job_id).not.toBe(previous);
    await waitForJob(t.url, alice.auth, schedule.last_job_id);
    const editor = await a.get(fromEditor.headers.location);
    expect(editor.text).toContain(`<form class="inline" method="post" action="/dashboard/schedules/${id}/run">`);

    const foreign = await a.submit(`/dashboard/schedules/${ids.bobSchedule}/run`, { then: 'list' });
    expect({ status: foreign.status, type: foreign.headers['content-type'] }).toEqual({ status: 404, type: HTML });
    expect((await api().get(`/schedules/${ids.bobSchedule}`).set(bob.auth).expect(200)).body.data.last_job_id).toBeNull();
    // Without the form's CSRF token nothing runs.
    const forged = await a.post(`/dashboard/schedules/${id}/run`, { then: 'list' });
    expect(forged.status).toBe(403);
  });

  describe.each([
    ['desktop', 1280, 800],
    ['phone', 390, 844],
  ])('in a real browser without JavaScript (%s, %ix%i)', (_label, width, height) => {
    let browser: Browser;
    let page: Page;

    const save = async (name: string) => {
      mkdirSync(SHOTS_DIR, { recursive: true });
      await page.screenshot({ path: join(SHOTS_DIR, `${name}-${width}.png`), fullPage: true });
    };
    const fitsTheScreen = async () => {
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      expect({ url: page.url(), scrollWidth }).toEqual({ url: page.url(), scrollWidth: Math.min(scrollWidth, clientWidth) });
    };
    const clickAndWait = async (selector: string) => {
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
    };

    beforeAll(async () => {
      browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
      page = await browser.newPage();
      await page.setJavaScriptEnabled(false);
      await page.setViewport({ width, height });
      await page.goto(`${t.url}/dashboard/login`, { waitUntil: 'load' });
      await page.type('#email', alice.email);
      await page.type('#password', PASSWORD);
      await clickAndWait('button[type=submit]');
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('creates a scenario schedule every 5 minutes in the form, runs it now from its page and from the list', async () => {
      await page.goto(`${t.url}/dashboard/schedules/new`, { waitUntil: 'load' });
      await fitsTheScreen();
      await page.type('#schedule-name', `Every 5 (${width})`);
      await page.select('#schedule-scenario', String(ids.scenario));
      await page.select('#schedule-frequency', 'every_5_minutes');
      await page.$eval('#schedule-time', (el) => ((el as HTMLInputElement).value = '00:00'));
      await page.$eval('#schedule-timezone', (el) => ((el as HTMLInputElement).value = 'Europe/Berlin'));
      await save('schedule-scenario-new');
      await clickAndWait('#save-schedule');
      expect(page.url()).toMatch(/\/dashboard\/schedules\/\d+\/edit\?notice=schedule-created$/);
      const id = Number(/schedules\/(\d+)\/edit/.exec(page.url())?.[1]);
      await fitsTheScreen();

      await clickAndWait('button.run-now');
      expect(page.url()).toBe(`${t.url}/dashboard/schedules/${id}/edit?notice=schedule-run-queued`);
      await fitsTheScreen();
      await save('schedule-scenario-edit');
      const schedule = (await api().get(`/schedules/${id}`).set(alice.auth).expect(200)).body.data;
      expect(schedule).toMatchObject({ scenario_id: ids.scenario, frequency: 'every_5_minutes', last_job_id: expect.any(String) });
      const run = await waitForJob(t.url, alice.auth, schedule.last_job_id);
      expect(run).toMatchObject({ type: 'scenario', status: 'succeeded', schedule_id: id });

      await page.goto(`${t.url}/dashboard/schedules`, { waitUntil: 'load' });
      await fitsTheScreen();
      await clickAndWait(`tr[data-schedule-id="${id}"] button.run-now`);
      expect(page.url()).toBe(`${t.url}/dashboard/schedules?notice=schedule-run-queued`);
      await fitsTheScreen();
      await save('schedules-run-now');
      const after = (await api().get(`/schedules/${id}`).set(alice.auth).expect(200)).body.data;
      expect(after.last_job_id).not.toBe(schedule.last_job_id);
      await waitForJob(t.url, alice.auth, after.last_job_id);
    });
  });
});
