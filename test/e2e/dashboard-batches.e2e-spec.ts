import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { BatchesService } from '../../src/modules/batches/application/batches.service';
import { csvUrls } from '../../src/modules/dashboard/http/batches-page.controller';
import { DashboardClient } from '../support/dashboard-session';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

const PASSWORD = 'batches dashboard password';
/** DASHBOARD_SCREENSHOTS=<folder> saves the pages as pictures (as the other dashboard specs do). */
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : null;

/**
 * Dashboard → Batches (issue 47 item 3): paste URLs or upload a CSV (read with csv-parse on the server), watch the
 * progress, download the ZIP, cancel; errors name the line; another account's batch is a 404; the pages in real
 * Chromium at 1280 px and 390 px.
 */
describe('Dashboard: Batches', () => {
  let t: TestApp;
  let pages: PageServer;
  let alice: TestAccount;
  let bob: TestAccount;
  let a: DashboardClient;
  let b: DashboardClient;

  beforeAll(async () => {
    pages = await new PageServer({ '/red': solidPage('rgb(255,0,0)'), '/green': solidPage('rgb(0,160,0)'), '/blue': solidPage('rgb(0,0,255)') }).start();
    t = await startTestApp({ env: { DASHBOARD_LIMIT_PER_MINUTE: '100000', SIGN_IN_LIMIT_PER_MINUTE: '100000' } });
    alice = await t.createAccount({ plan: 'pro' });
    bob = await t.createAccount({ plan: 'starter' });
    for (const who of [alice, bob]) await t.app.get(AccountsService).setPassword(who.email, PASSWORD);
    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
    b = await new DashboardClient(t.url).signInOk(bob.email, PASSWORD);
  });

  afterAll(async () => {
    await t?.close();
    await pages?.stop();
  });

  const untilEnded = async (accountId: number, id: string) => {
    const batches = t.app.get(BatchesService);
    const deadline = Date.now() + 60_000;
    while ((await batches.get(accountId, id)).status === 'running') {
      if (Date.now() > deadline) throw new Error('the batch did not end');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('reads a CSV’s url column, or its first column (a header that is no URL skipped)', () => {
    expect(csvUrls('name,url\nHome,https://a.example/\n"Pricing, EU",https://a.example/p\n')).toEqual(['https://a.example/', 'https://a.example/p']);
    expect(csvUrls('https://a.example/\nhttps://b.example/\n\n')).toEqual(['https://a.example/', 'https://b.example/']);
    expect(csvUrls('address\nhttps://a.example/\n')).toEqual(['https://a.example/']);
    expect(csvUrls('')).toEqual([]);
  });

  it('pasted URLs and a CSV: one batch (303 to its page); a bad line is a 422 naming it and nothing is queued; another account gets 404', async () => {
    const bad = await a.submit('/dashboard/batches', { urls: `${pages.url}/red\nnot a url`, format: 'png' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('Nothing was queued:');
    expect(bad.text).toContain('not a url (line 2):');
    expect(bad.text).toContain(`${pages.url}/red\nnot a url</textarea>`);
    expect((await t.app.get(BatchesService).list(alice.id, { page: 1, perPage: 10 })).total).toBe(0);

    const made = await a.submit('/dashboard/batches', {
      urls: `${pages.url}/red\n\n${pages.url}/green`,
      csv: `url,note\n${pages.url}/blue,third\n`,
      name: 'Colours',
      format: 'jpeg',
      full_page: 'true',
    });
    expect(made.status).toBe(303);
    const id = /^\/dashboard\/batches\/([0-9a-f-]{36})$/.exec(made.headers.location)![1];
    await untilEnded(alice.id, id);
    const shown = await a.get(`/dashboard/batches/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('<strong>Completed</strong> · 3 URLs');
    expect(shown.text.match(/<tr data-item="\d+" class="item-succeeded">/g)).toHaveLength(3);
    expect(shown.text).toContain(`3-127.0.0.1-${new URL(pages.url).port}-blue.jpg`);
    const zip = await a.get(`/dashboard/batches/${id}/download`, { binary: true });
    expect(zip.status).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    const list = await a.get('/dashboard/batches');
    expect(list.text).toContain(`<a href="/dashboard/batches/${id}">Colours</a>`);

    expect((await b.get(`/dashboard/batches/${id}`)).status).toBe(404);
    expect((await b.get(`/dashboard/batches/${id}/download`)).status).toBe(404);
    expect((await b.submit(`/dashboard/batches/${id}/cancel`)).status).toBe(404);
  });

  describe('in a real browser', () => {
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
      page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      await page.goto(`${t.url}/dashboard/login`, { waitUntil: 'load' });
      await page.type('#email', bob.email);
      await page.type('#password', PASSWORD);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
    });

    afterAll(async () => {
      await browser?.close();
    });

    const fitsWidth = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    const shoot = async (name: string) => {
      if (!SHOTS_DIR) return;
      mkdirSync(SHOTS_DIR, { recursive: true });
      await page.screenshot({ path: join(SHOTS_DIR, `${name}.png`), fullPage: true });
    };

    it('upload a CSV, capture, watch it end, download the ZIP; fits 1280 and 390 px', async () => {
      await page.goto(`${t.url}/dashboard/playground`, { waitUntil: 'load' });
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('nav.subnav a[href="/dashboard/batches"]')]);
      const file = join(mkdtempSync(join(tmpdir(), 'batch-csv-')), 'pages.csv');
      writeFileSync(file, `name,url\nRed,${pages.url}/red\nGreen,${pages.url}/green\n`);
      const input = await page.$('#batch-csv-file');
      await (input as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(file);
      await page.waitForFunction(() => (document.getElementById('batch-csv') as HTMLTextAreaElement).value.includes('/green'));
      await page.type('#batch-urls', `${pages.url}/blue`);
      await page.type('#batch-name', 'From a CSV');
      expect(await fitsWidth()).toBe(true);
      await shoot('batches-desktop');
      const [created] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#create-batch')]);
      expect(created!.status()).toBe(200);
      const id = /\/dashboard\/batches\/([0-9a-f-]{36})$/.exec(page.url())![1];
      await untilEnded(bob.id, id);
      await page.goto(`${t.url}/dashboard/batches/${id}`, { waitUntil: 'load' });
      expect(await page.$$eval('tr[data-item]', (rows) => rows.map((r) => r.className))).toEqual(['item-succeeded', 'item-succeeded', 'item-succeeded']);
      const download = await page.evaluate(
        async (href) => {
          const res = await fetch(href);
          return { status: res.status, type: res.headers.get('content-type'), size: (await res.arrayBuffer()).byteLength };
        },
        await page.$eval('#download-batch', (el) => (el as HTMLAnchorElement).href),
      );
      expect(download).toMatchObject({ status: 200, type: 'application/zip' });
      expect(download.size).toBeGreaterThan(1000);
      expect(await fitsWidth()).toBe(true);
      await shoot('batch-desktop');

      await page.setViewport({ width: 390, height: 844 });
      expect(await fitsWidth()).toBe(true);
      await shoot('batch-phone');
      await page.goto(`${t.url}/dashboard/batches`, { waitUntil: 'load' });
      expect(await fitsWidth()).toBe(true);
      await shoot('batches-phone');
      await page.setViewport({ width: 1280, height: 800 });
    });
  });
});
