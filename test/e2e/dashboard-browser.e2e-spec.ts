/// <reference lib="dom" />
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import request from 'supertest';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The dashboard in a real headless Chromium, as a person uses it. Each page is also saved as a PNG: into
 * DASHBOARD_SCREENSHOTS when set (`DASHBOARD_SCREENSHOTS=docs/dashboard npx jest test/e2e/dashboard-browser`
 * refreshes the pictures the README links to), else into a temporary folder.
 */
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : mkdtempSync(join(tmpdir(), 'dashboard-shots-'));
const PASSWORD = 'correct horse battery staple';

function landingPage(title: string, accent: string): string {
  return `<!doctype html><html><head><title>${title}</title><style>
    body{margin:0;font-family:sans-serif;background:#fff;color:#1d2330}
    header{background:${accent};color:#fff;padding:48px 64px}
    h1{font-size:56px;margin:0 0 12px} p{font-size:22px;margin:0}
    .cards{display:flex;gap:24px;padding:48px 64px}
    .card{flex:1;height:220px;border-radius:16px;background:#eef1f7;border-top:12px solid ${accent}}
  </style></head><body><header><h1>${title}</h1><p>We make things that work.</p></header>
  <div class="cards"><div class="card"></div><div class="card"></div><div class="card"></div></div></body></html>`;
}

describe('dashboard in a real browser', () => {
  let t: TestApp;
  let site: PageServer;
  let browser: Browser;
  let page: Page;
  let account: TestAccount;
  const shotIds: number[] = [];

  const api = () => request(t.url);
  const save = async (name: string) => {
    const path = join(SHOTS_DIR, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    expect(readFileSync(path).subarray(1, 4).toString()).toBe('PNG');
  };
  const go = async (path: string) => {
    const res = await page.goto(`${t.url}${path}`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
  };
  const clickAndWait = async (selector: string) => {
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
  };

  beforeAll(async () => {
    mkdirSync(SHOTS_DIR, { recursive: true });
    site = await new PageServer({ '/': landingPage('Acme Rockets', '#2454d6'), '/blog': landingPage('Acme Blog', '#0f766e') }).start();
    t = await startTestApp();
    account = await t.createAccount({ plan: 'pro', name: 'Ada Lovelace', email: `ada-${Date.now()}@example.com` });
    await t.app.get(AccountsService).setPassword(account.email, PASSWORD);

    // Some content made through the API, so every page has something to show.
    for (const [name, path] of [
      ['Acme home', '/'],
      ['Acme blog', '/blog'],
    ]) {
      const created = await api()
        .post('/websites')
        .set(account.auth)
        .send({ name, url: `${site.url}${path}` })
        .expect(201);
      const { body } = await api().post(`/websites/${created.body.data.id}/screenshot`).set(account.auth).expect(200);
      const job = await waitForJob(t.url, account.auth, body.job_id);
      expect(job.status).toBe('succeeded');
      shotIds.push(job.screenshot_id as number);
    }
    const websites = await api().get('/websites').set(account.auth).expect(200);
    const websiteId = websites.body.data[0].id;
    await api()
      .post('/scenarios')
      .set(account.auth)
      .send({ name: 'Open the blog', description: 'Waits, then captures', website_id: websiteId, steps: [{ type: 'wait', duration: 50 }] })
      .expect(201);
    await api()
      .post('/schedules')
      .set(account.auth)
      .send({ name: 'Every morning', website_id: websiteId, frequency: 'daily', time: '07:30', timezone: 'Europe/Berlin' })
      .expect(201);

    browser = await puppeteer.launch({
      executablePath: findChrome(process.env.CHROME_PATH),
      headless: 'shell',
      args: [...CHROME_ARGS],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await site?.stop();
  });

  it('sign in, generate a token, use it, revoke it in the page: the next API call is 401', async () => {
    await go('/dashboard/login');
    await save('sign-in');
    await page.type('#email', account.email);
    await page.type('#password', PASSWORD);
    await clickAndWait('button[type=submit]');
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Overview');
    await save('overview');

    await go('/dashboard/settings/api-keys');
    await page.type('#token-name', 'from the browser');
    await clickAndWait('#generate-token');
    const secret = await page.$eval('#new-token-value', (input) => (input as HTMLInputElement).value);
    expect(secret).toMatch(/^sst_[A-Za-z0-9_-]{43}$/);
    expect(await page.$eval('#new-token', (el) => el.textContent)).toMatch(/cannot be shown again/);
    await save('api-keys-new-token');

    const me = await api().get('/test').set('Authorization', `Bearer ${secret}`).expect(200);
    expect(me.body.user.email).toBe(account.email);

    // Shown once: the list page no longer contains it.
    await go('/dashboard/settings/api-keys');
    expect(await page.content()).not.toContain(secret);
    const row = `tr[data-token-id]:has(td:first-child)`;
    const tokenRow = await page.$$eval(row, (rows) =>
      rows.filter((r) => r.textContent?.includes('from the browser')).map((r) => r.getAttribute('data-token-id')),
    );
    expect(tokenRow).toHaveLength(1);
    await clickAndWait(`tr[data-token-id="${tokenRow[0]}"] a.button.danger`);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Revoke API token?');
    await save('api-keys-revoke-confirm');
    await clickAndWait('#confirm-revoke');
    expect(await page.$eval('[role=status]', (el) => el.textContent)).toMatch(/Token revoked/);
    await save('api-keys');

    const after = await api().get('/test').set('Authorization', `Bearer ${secret}`).expect(401);
    expect(after.body).toEqual({ success: false, error: 'Unauthorized', code: 'unauthorized' });
    // The account's original token is untouched.
    await api().get('/test').set(account.auth).expect(200);
  });

  it('websites: latest screenshot as a thumbnail, "Take screenshot" queues a real capture', async () => {
    await go('/dashboard/websites');
    // The rows have their final height before the thumbnails (made on first request) arrive: nothing moves under the pointer.
    const rowHeights = () => page.$$eval('tr[data-website-id]', (rows) => rows.map((r) => r.getBoundingClientRect().height));
    const early = await rowHeights();
    await page.waitForFunction(() => Array.from(document.querySelectorAll('td.thumb-cell img')).every((img) => (img as HTMLImageElement).complete), {
      timeout: 10_000,
    });
    expect(await rowHeights()).toEqual(early);
    const before = (await api().get('/jobs').set(account.auth).expect(200)).body.meta.total;
    await clickAndWait('tr[data-website-id] button[type=submit]');
    // While the job runs the page refreshes itself and says so; after it ended, it says that instead (issue 31).
    const first = await page.evaluate(() => ({
      notice: document.querySelector('[role=status]')?.textContent,
      refreshing: !!document.querySelector('meta[http-equiv=refresh]'),
    }));
    expect(first.notice).toMatch(first.refreshing ? /^Screenshot job queued/ : /^The screenshot job has ended/);
    const jobs = await api().get('/jobs').set(account.auth).expect(200);
    expect(jobs.body.meta.total).toBe(before + 1);
    const job = await waitForJob(t.url, account.auth, jobs.body.data[0].id);
    expect(job.status).toBe('succeeded');
    // The page's own reload (every 3 s while a job runs) brings the ended notice; no stale "queued" remains.
    await page.waitForFunction(() => document.querySelector('[role=status]')?.textContent?.startsWith('The screenshot job has ended'), { timeout: 15_000 });
    expect(await page.evaluate(() => document.body.textContent?.includes('Screenshot job queued'))).toBe(false);
    await go('/dashboard/websites');
    // Lazy images, and a thumbnail is made on its first request: wait (bounded) until the browser has them.
    await page.waitForFunction(() => Array.from(document.querySelectorAll('td.thumb-cell img')).every((img) => (img as HTMLImageElement).complete), {
      timeout: 10_000,
    });
    const loaded = await page.$$eval('td.thumb-cell img', (imgs) => imgs.map((img) => img.complete && img.naturalWidth));
    expect(loaded).toHaveLength(2);
    for (const width of loaded) expect(width).toBeGreaterThan(0);
    await save('websites');
  });

  it('gallery: thumbnails of this account, newest first; full size view', async () => {
    await go('/dashboard/screenshots');
    const ids = await page.$$eval('.gallery li', (items) => items.map((li) => Number(li.getAttribute('data-screenshot-id'))));
    expect(ids.length).toBe(3);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    for (const id of shotIds) expect(ids).toContain(id);
    const widths = await page.$$eval('.gallery img', (imgs) => imgs.map((img) => img.naturalWidth));
    for (const width of widths) expect(width).toBeGreaterThan(0);
    await save('screenshots');

    // A tile opens the lightbox (dashboard.js); its "Details" link is the tile's own page (where the tile leads without script).
    await page.click(`.gallery li[data-screenshot-id="${shotIds[0]}"] a`);
    await page.waitForSelector('dialog.lightbox[open] img.lb-image');
    expect(await page.$eval('dialog.lightbox .lb-open', (a) => a.getAttribute('href'))).toBe(`/dashboard/screenshots/${shotIds[0]}`);
    await clickAndWait('dialog.lightbox .lb-open');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/screenshots/${shotIds[0]}`);
    const full = await page.$eval('.full img', (img) => ({ w: img.naturalWidth, h: img.naturalHeight }));
    expect(full).toEqual({ w: 1280, h: 800 });
    await save('screenshot');
  });

  it('scenarios and schedules pages, run and disable from the page', async () => {
    await go('/dashboard/scenarios');
    await clickAndWait('tr[data-scenario-id] button[type=submit]');
    expect(await page.$eval('[role=status]', (el) => el.textContent)).toMatch(/Scenario run queued/);
    const executions = await api().get('/jobs').set(account.auth).expect(200);
    const run = executions.body.data.find((j: { type: string }) => j.type === 'scenario');
    expect((await waitForJob(t.url, account.auth, run.id)).status).toBe('succeeded');
    await go('/dashboard/scenarios');
    expect(await page.$eval('tr[data-scenario-id]', (tr) => tr.textContent)).toMatch(/succeeded/);
    await save('scenarios');

    await go('/dashboard/schedules');
    const text = await page.$eval('tr[data-schedule-id]', (tr) => tr.textContent ?? '');
    expect(text).toMatch(/07:30 GMT\+[12]/); // the next run in Europe/Berlin
    expect(text).toMatch(/0[56]:30 UTC/); // and in UTC
    await save('schedules');
    await clickAndWait('tr[data-schedule-id] form[action$="/disable"] button[type=submit]'); // not Run now, the row's first button
    expect(await page.$eval('[role=status]', (el) => el.textContent)).toMatch(/Schedule disabled/);
    const schedules = await api().get('/schedules').set(account.auth).expect(200);
    expect(schedules.body.data[0]).toMatchObject({ enabled: false, next_run_at: null });
  });

  it('signing out ends the session', async () => {
    await go('/dashboard');
    await clickAndWait('header form[action="/dashboard/logout"] button');
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    expect(await page.$eval('[role=status]', (el) => el.textContent)).toMatch(/signed out/);
    await page.goto(`${t.url}/dashboard`, { waitUntil: 'load' });
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
  });
});
