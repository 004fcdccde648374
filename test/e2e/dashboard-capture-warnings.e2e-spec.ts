/// <reference lib="dom" />
import { mkdirSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer';
import request from 'supertest';

import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { waitForJob } from '../support/jobs';
import { PageServer, type Route } from '../support/page-server';
import { startTestApp, type TestAccount, type TestApp } from '../support/test-app';

/**
 * The capture report's warnings on the dashboard's screenshot page, in a real browser at 1280 and 390 px: a page whose
 * tracking pixel never answers (the "incomplete" badge, the warning in words) and that runs a looping animation (a
 * note below it). With DASHBOARD_SCREENSHOTS set, the pictures are saved there as screenshot-warnings-{1280,390}.png.
 */
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : null;
const PASSWORD = 'correct horse battery staple';

const held: ServerResponse[] = [];
const PAGES: Record<string, Route | string> = {
  '/news': `<!doctype html><title>Daily news</title><style>html,body{margin:0;font-family:sans-serif} header{background:#1a73e8;color:#fff;padding:40px}
    .spinner{width:40px;height:40px;border:6px solid #ddd;border-top-color:#1a73e8;border-radius:50%;animation:spin 1s linear infinite}
    @keyframes spin{to{transform:rotate(360deg)}}</style>
    <header><h1>Daily news</h1></header><p>Today's article.</p><div class="spinner"></div><img src="/pixel.gif" width="1" height="1" alt="">`,
  '/pixel.gif': (_req, res) => {
    held.push(res);
  },
};

describe('dashboard: capture warnings on the screenshot page (real browser)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let browser: Browser;
  let page: Page;
  let shotId: number;

  beforeAll(async () => {
    if (SHOTS_DIR) mkdirSync(SHOTS_DIR, { recursive: true });
    pages = await new PageServer(PAGES).start();
    t = await startTestApp({ env: { CAPTURE_TIMEOUT_MS: '10000' } });
    account = await t.createAccount({ plan: 'pro', email: `warn-${Date.now()}@example.com` });
    await t.app.get(AccountsService).setPassword(account.email, PASSWORD);
    const site = await request(t.url)
      .post('/websites')
      .set(account.auth)
      .send({ name: 'Daily news', url: `${pages.url}/news` })
      .expect(201);
    const take = await request(t.url).post(`/websites/${site.body.data.id}/screenshot`).set(account.auth).expect(200);
    const job = await waitForJob(t.url, account.auth, take.body.job_id);
    expect(job.status).toBe('succeeded');
    shotId = job.screenshot_id!;
    browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(`${t.url}/dashboard/login`, { waitUntil: 'load' });
    await page.type('#email', account.email);
    await page.type('#password', PASSWORD);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
  });

  afterAll(async () => {
    await browser?.close();
    for (const res of held) res.destroy();
    await pages?.stop();
    await t?.close();
  });

  it.each([
    [1280, 800],
    [390, 844],
  ])('at %i px: the incomplete badge with the hung request in words, the looping animation as a note, nothing wider than the screen', async (width, height) => {
    await page.setViewport({ width, height });
    await page.goto(`${t.url}/dashboard/screenshots/${shotId}`, { waitUntil: 'load' });
    const shown = await page.evaluate(() => ({
      badge: document.querySelector('.capture-report .badge')?.textContent?.trim(),
      reasons: Array.from(document.querySelectorAll('.capture-report .notice.warn li')).map((li) => li.textContent?.trim()),
      notes: Array.from(document.querySelectorAll('.capture-report .capture-notes li')).map((li) => li.textContent?.trim()),
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    const port = new URL(pages.url).port;
    expect(shown.badge).toBe('incomplete');
    expect(shown.reasons).toEqual([`1 request never answered and the picture was taken without it: 127.0.0.1:${port}/pixel.gif.`]);
    expect(shown.notes).toEqual(['An animation was still running (it loops): the picture shows one moment of it.']);
    expect(shown.scroll).toBeLessThanOrEqual(shown.client);
    if (SHOTS_DIR) {
      const path = join(SHOTS_DIR, `screenshot-warnings-${width}.png`);
      await page.screenshot({ path, fullPage: true });
      expect(readFileSync(path).subarray(1, 4).toString()).toBe('PNG');
    }
  });
});
