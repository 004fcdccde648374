import { join, resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import request from 'supertest';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { WebsitesService } from '../../src/modules/websites/application/websites.service';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

const PASSWORD = 'monitor dashboard password';
/** DASHBOARD_SCREENSHOTS names a folder (docs/dashboard) for the pages' pictures, as the other dashboard specs do. */
const SHOTS = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : null;

/**
 * "Monitor a page" in real Chromium with JavaScript off (plain forms do everything): a bad URL is refused beside its
 * field with what was typed kept and nothing made; a good one makes the website, its schedule, its channel link and
 * its first capture (the API's MonitorsService) and lands on the website's history, which shows when it was last
 * checked and last changed. Both pages fit 1280 and 390 px.
 */
describe('Dashboard: Monitor a page (real browser, no JavaScript)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let browser: Browser;
  let page: Page;
  let color = 'rgb(0,120,60)';

  const go = async (path: string) => (await page.goto(`${t.url}${path}`, { waitUntil: 'load' }))!.status();
  const clickAndWait = async (selector: string) => {
    const [res] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
    return res?.status();
  };
  const fitsWidth = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const text = (selector: string) => page.$eval(selector, (el) => (el as HTMLElement).innerText);
  const shoot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, name), fullPage: true });
  };

  beforeAll(async () => {
    pages = await new PageServer({ '/pricing': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage(color)) }).start();
    t = await startTestApp({ env: { SCHEDULE_TICK_MS: '3600000', DASHBOARD_LIMIT_PER_MINUTE: '100000', SIGN_IN_LIMIT_PER_MINUTE: '100000' } });
    account = await t.createAccount({ plan: 'pro' });
    await t.app.get(AccountsService).setPassword(account.email, PASSWORD);
    for (const [name, websiteIds] of [
      ['Ops', null],
      ['Pricing on Slack', []],
    ] as const) {
      const res = await request(t.url)
        .post('/notification-channels')
        .set(account.auth)
        .send({
          name,
          type: 'slack',
          target: `https://hooks.slack.com/services/T0/B0/${name.length}`,
          events: ['screenshot.changed'],
          website_ids: websiteIds,
        });
      expect(res.status).toBe(201);
    }
    browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
    page = await browser.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setViewport({ width: 1280, height: 800 });
    await go('/dashboard/login');
    await page.type('#email', account.email);
    await page.type('#password', PASSWORD);
    await clickAndWait('button[type=submit]');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await pages?.stop();
  });

  it('a refused URL is shown beside its field, what was typed kept, nothing made; a good one makes the monitor and shows its history', async () => {
    expect(await go('/dashboard/monitors/new')).toBe(200);
    expect(await page.$$eval('input[name=channel_ids]', (boxes) => boxes.length)).toBe(2);
    // What counts as a change: the website's conditions (alert_when, ignore_text), as on its Edit page.
    expect(await page.$$eval('#change-rules [name]', (els) => els.map((el) => el.getAttribute('name')))).toEqual(
      expect.arrayContaining(['ignore_text', 'alert_when.text_contains', 'alert_when.text_missing', 'alert_when.min_changed_ratio', 'alert_when.text_only']),
    );
    await page.type('#monitor-url', 'ftp://example.com/pricing');
    await page.type('#monitor-name', 'Competitor pricing');
    await page.type('#change-rules [name=ignore_text]', '^Updated at');
    await page.keyboard.press('Enter');
    await page.keyboard.type('(a)\\1');
    expect(await clickAndWait('#monitor-button')).toBe(422);
    // The refused pattern is named beside its field, and what was typed stays.
    expect(await text('#change-rules [data-field="ignore_text"]')).toContain(
      'Line 2 is not a regular expression this service can run (RE2 syntax: no backreferences or lookaround)',
    );
    expect(await page.$eval('#change-rules [name=ignore_text]', (el) => (el as HTMLTextAreaElement).value)).toBe('^Updated at\n(a)\\1');
    expect(await page.$eval('#monitor-name', (el) => (el as HTMLInputElement).value)).toBe('Competitor pricing');
    await page.$eval('#change-rules [name=ignore_text]', (el) => ((el as HTMLTextAreaElement).value = '^Updated at'));
    expect(await clickAndWait('#monitor-button')).toBe(422);
    expect(await text('#url-error')).toMatch(/http/);
    expect((await request(t.url).get('/websites').set(account.auth)).body.meta.total).toBe(0);

    await page.$eval('#monitor-url', (el) => ((el as HTMLInputElement).value = ''));
    await page.type('#monitor-url', `${pages.url}/pricing`);
    await page.type('#change-rules [name="alert_when.min_changed_ratio"]', '0.01');
    await page.select('#monitor-every', '15m');
    await page.click('input[name=channel_ids]:not(:checked)');
    expect(await clickAndWait('#monitor-button')).toBe(200);
    expect(page.url()).toMatch(/\/dashboard\/websites\/\d+\/history\?notice=monitor-created$/);
    const websiteId = Number(/websites\/(\d+)/.exec(page.url())![1]);
    // Read from the service, not the API: the plan's per-minute requests are kept for the polling below.
    const saved = await t.app.get(WebsitesService).get(account.id, websiteId);
    expect({ ignoreText: saved.ignoreText, alertWhen: saved.alertWhen }).toEqual({ ignoreText: ['^Updated at'], alertWhen: { min_changed_ratio: 0.01 } });
    const schedules = (await request(t.url).get('/schedules').set(account.auth)).body.data as Array<Record<string, unknown>>;
    expect(schedules).toEqual([expect.objectContaining({ website_id: websiteId, frequency: 'every_15_minutes', name: 'Monitor: Competitor pricing' })]);
    const firstJob = schedules[0].last_job_id as string;
    expect((await waitForJob(t.url, account.auth, firstJob)).status).toBe('succeeded');

    // A change, taken now: the history says when it was last checked and last changed.
    color = 'rgb(210,30,30)';
    const job = (await request(t.url).post(`/websites/${websiteId}/screenshot`).set(account.auth)).body.job_id as string;
    expect((await waitForJob(t.url, account.auth, job)).status).toBe('succeeded');
    for (let i = 0; i < 100; i++) {
      if ((await request(t.url).get(`/websites/${websiteId}/changes`).set(account.auth)).body.meta.total === 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await go(`/dashboard/websites/${websiteId}/history`);
    expect(await text('#last-checked')).toMatch(/\d{4}-\d{2}-\d{2}.*succeeded/);
    expect(await text('#last-changed')).toMatch(/\d{4}-\d{2}-\d{2}.*compare/);
    expect(await fitsWidth()).toBe(true);
    await shoot('monitor-history-desktop.png');

    await go('/dashboard/monitors/new');
    await shoot('monitor-form-desktop.png');
    await page.setViewport({ width: 390, height: 844 });
    await go('/dashboard/monitors/new');
    expect(await fitsWidth()).toBe(true);
    await shoot('monitor-form-phone.png');
    await go(`/dashboard/websites/${websiteId}/history`);
    expect(await fitsWidth()).toBe(true);
    await shoot('monitor-history-phone.png');
    await page.setViewport({ width: 1280, height: 800 });
  });
});
