/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer';
import request from 'supertest';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { JobsService } from '../../src/modules/jobs/application/jobs.service';
import type { JobProps } from '../../src/modules/jobs/domain/job';
import { ChannelsService } from '../../src/modules/notifications/application/channels.service';
import { WebsitesService } from '../../src/modules/websites/application/websites.service';
import { DashboardClient } from '../support/dashboard-session';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Issue 45 item 4 on the last pages that listed every website — the playground's website chooser and a notification
 * channel's "Only for these websites" — and issue 46 item 6, Cancel during the playground's wait.
 *
 * An account with 150 websites: each page offers at most 50 (the newest, plus what is chosen or ticked) and finds
 * website #140 by its search, without script (Find posts the form back, nothing saved) and with it (the choices follow
 * the search as it is typed). Cancel: with one capture slot, a slow capture holds the browser so the try's job stays
 * queued; Cancel ends it and it never produces a screenshot, even after the slot frees; a running one is said to
 * finish. Another account's job is 404 and the form needs the session's CSRF token. Pictures at 1280 and 390 px go to
 * DASHBOARD_SCREENSHOTS when it is set.
 */

const PASSWORD = 'pickers and cancel password';
const WEBSITES = 150;
/** How long the slow page takes to answer: long enough to hold the only capture slot through a browser's clicks. */
const SLOW_MS = 9_000;
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : null;
const UUID = /job=([0-9a-f-]{36})/;

/** The options of the select with this id, as [value, label]. */
function optionsOf(page: string, selectId: string): Array<[string, string]> {
  const select = new RegExp(`<select id="${selectId}"[^>]*>([\\s\\S]*?)</select>`).exec(page)?.[1];
  if (select === undefined) throw new Error(`no select #${selectId} in the page`);
  return [...select.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1], m[2]]);
}

/** The website ticks of a channel form, as [value, checked, label]. */
function ticksOf(page: string): Array<[string, boolean, string]> {
  return [...page.matchAll(/<label class="check"><input type="checkbox" name="website_ids" value="([^"]*)"( checked)?> ([^<]*)<\/label>/g)].map((m) => [
    m[1],
    Boolean(m[2]),
    m[3],
  ]);
}

const pad = (i: number) => String(i).padStart(3, '0');

describe('Dashboard: pickers that search on the playground and the Alerts page; Cancel during the playground wait', () => {
  let t: TestApp;
  let pages: PageServer;
  let alice: TestAccount;
  let bob: TestAccount;
  let a: DashboardClient;
  let b: DashboardClient;
  /** Website "Site <i>" by its number; created from #150 down to #1, so #140 is among the oldest (not in the newest 50). */
  const sites = new Map<number, number>();
  const site = (i: number) => String(sites.get(i));
  let slowSite = 0;
  let quickSite = 0;
  const timers: NodeJS.Timeout[] = [];

  beforeAll(async () => {
    pages = await new PageServer({
      '/': solidPage('rgb(0,128,0)'),
      '/slow': (_req, res) => {
        timers.push(setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage('rgb(255,0,0)')), SLOW_MS));
      },
    }).start();
    t = await startTestApp({
      env: { DASHBOARD_LIMIT_PER_MINUTE: '100000', SIGN_IN_LIMIT_PER_MINUTE: '100000', CAPTURE_CONCURRENCY: '1', SMTP_URL: 'smtp://127.0.0.1:2525' },
    });
    alice = await t.createAccount({ plan: 'business' });
    bob = await t.createAccount({ plan: 'business' });
    for (const who of [alice, bob]) await t.app.get(AccountsService).setPassword(who.email, PASSWORD);
    const websites = t.app.get(WebsitesService);
    // Through the service, not the API: 150 creations would meet the plan's per-minute request limit.
    for (let i = WEBSITES; i >= 1; i--) sites.set(i, (await websites.create(alice.id, { name: `Site ${pad(i)}`, url: `https://site-${i}.example.com/` })).id);
    slowSite = (await websites.create(alice.id, { name: 'Slow page', url: `${pages.url}/slow` })).id;
    quickSite = (await websites.create(alice.id, { name: 'Quick page', url: `${pages.url}/` })).id;
    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
    b = await new DashboardClient(t.url).signInOk(bob.email, PASSWORD);
  });

  afterAll(async () => {
    await t?.close();
    for (const timer of timers) clearTimeout(timer);
    await pages?.stop();
  });

  const job = (id: string): Promise<JobProps> => t.app.get(JobsService).get(alice.id, id);
  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
    const giveUp = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > giveUp) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  /** A capture of the slow page, running: the only capture slot is taken for SLOW_MS. */
  async function fillTheWorker(): Promise<string> {
    const res = await request(t.url).post(`/websites/${slowSite}/screenshot`).set(alice.auth).send({});
    expect(res.status).toBe(200);
    const id = res.body.job_id as string;
    await until('the slow capture to run', async () => (await job(id)).status === 'running');
    return id;
  }

  describe('the playground chooser (150 websites)', () => {
    it('offers at most 50 websites, not every one, with "the URL above" first', async () => {
      const page = await a.get('/dashboard/playground');
      expect(page.status).toBe(200);
      const options = optionsOf(page.text, 'f-website_id');
      expect(options[0]).toEqual(['', '— the URL above —']);
      expect(options.length).toBeLessThanOrEqual(51);
      expect(options.map(([, name]) => name)).not.toContain('Site 140');
      expect(page.text).toContain('Showing the newest 50 matches');
      expect(page.text).toMatch(/<input type="search" id="f-website-search" name="site"[^>]*data-website-choices="f-website_id"/);
    });

    it('Find (without script) finds website #140, keeps what was typed, tries nothing', async () => {
      const before = (await t.app.get(JobsService).list(alice.id, { page: 1, perPage: 1 }, {})).total;
      const res = await a.submit('/dashboard/playground', { url: 'https://typed.example/', viewport_width: '800', site: 'site 140', find_website: '1' });
      expect(res.status).toBe(200);
      expect(optionsOf(res.text, 'f-website_id')).toEqual([
        ['', '— the URL above —'],
        [site(140), 'Site 140'],
      ]);
      expect(res.text).toContain('value="https://typed.example/"');
      expect(res.text).toContain('value="800"');
      expect(res.text).toMatch(/<input type="search" id="f-website-search" name="site" maxlength="200" value="site 140"/);
      expect((await t.app.get(JobsService).list(alice.id, { page: 1, perPage: 1 }, {})).total).toBe(before);
    });

    it('a website chosen from an old page stays chosen though it is not among the newest 50', async () => {
      const page = await a.get(`/dashboard/playground?website_id=${site(150)}`);
      expect(page.text).toContain(`<option value="${site(150)}" selected>Site 150</option>`);
      expect(optionsOf(page.text, 'f-website_id').length).toBeLessThanOrEqual(52);
    });
  });

  describe("a channel's websites on the Alerts page (150 websites)", () => {
    it('offers at most 50 ticks and a search; Find (without script) finds #140 and keeps what was typed; nothing saved', async () => {
      const page = await a.get('/dashboard/notifications');
      expect(ticksOf(page.text).length).toBeLessThanOrEqual(50);
      expect(ticksOf(page.text).map(([, , name]) => name)).not.toContain('Site 140');
      expect(page.text).toMatch(/<input type="search" id="channel-website-search" name="site"[^>]*data-website-checks="channel-websites"/);

      const found = await a.submit('/dashboard/notifications', {
        name: 'Ops mail',
        type: 'email',
        target: 'ops@example.com',
        events: ['screenshot.failed'],
        website_ids: [site(150)],
        site: 'site 140',
        find_website: '1',
      });
      expect(found.status).toBe(200);
      // The ticked one first (and still ticked), then the matches.
      expect(ticksOf(found.text)).toEqual([
        [site(150), true, 'Site 150'],
        [site(140), false, 'Site 140'],
      ]);
      expect(found.text).toContain('value="Ops mail"');
      expect(found.text).toContain('value="ops@example.com"');
      expect((await t.app.get(ChannelsService).list(alice.id, { page: 1, perPage: 10 })).total).toBe(0);
    });

    it('a channel for #140: named in the list, ticked first on its edit page, Find there too; all bounded', async () => {
      const made = await a.submit('/dashboard/notifications', {
        name: 'Site 140 watcher',
        type: 'email',
        target: 'watch@example.com',
        events: ['screenshot.changed'],
        website_ids: [site(140)],
      });
      expect(made.status).toBe(303);
      const { items } = await t.app.get(ChannelsService).list(alice.id, { page: 1, perPage: 10 });
      expect(items[0].websiteIds).toEqual([sites.get(140)]);
      const list = await a.get('/dashboard/notifications');
      expect(list.text).toMatch(new RegExp(`<tr data-channel-id="${items[0].id}">[\\s\\S]*?<td>Site 140</td>`));

      const edit = await a.get(`/dashboard/notifications/${items[0].id}/edit`);
      const ticks = ticksOf(edit.text);
      expect(ticks[0]).toEqual([site(140), true, 'Site 140']);
      expect(ticks.length).toBeLessThanOrEqual(51);
      const narrowed = await a.submit(`/dashboard/notifications/${items[0].id}/edit`, {
        name: 'Renamed, not saved',
        target: '',
        events: ['screenshot.changed'],
        website_ids: [site(140)],
        site: 'site 13',
        find_website: '1',
      });
      expect(narrowed.status).toBe(200);
      expect(ticksOf(narrowed.text).map(([, on, name]) => `${on ? '[x]' : '[ ]'} ${name}`)).toEqual([
        '[x] Site 140',
        ...Array.from({ length: 10 }, (_, i) => `[ ] Site ${130 + i}`),
      ]);
      expect(narrowed.text).toContain('value="Renamed, not saved"');
      expect((await t.app.get(ChannelsService).get(alice.id, items[0].id)).name).toBe('Site 140 watcher');
    });
  });

  describe('Cancel during the playground wait', () => {
    it("without script: a queued try is cancelled and never makes a screenshot; a running one is said to finish; another account's is 404; CSRF holds", async () => {
      const slowTry = await a.submit('/dashboard/playground', { website_id: String(slowSite), action: 'try' });
      expect(slowTry.status).toBe(303);
      const running = UUID.exec(String(slowTry.headers.location))![1];
      await until('the slow try to run', async () => (await job(running)).status === 'running');
      const quickTry = await a.submit('/dashboard/playground', { website_id: String(quickSite), viewport_width: '800', action: 'try' });
      const queuedLocation = String(quickTry.headers.location);
      const queued = UUID.exec(queuedLocation)![1];
      expect((await job(queued)).status).toBe('queued');

      // The wait view offers Cancel as a plain form, carrying the page's options back.
      const waiting = await a.get(queuedLocation);
      expect(waiting.text).toContain(
        `<form method="post" action="/dashboard/playground/jobs/${queued}/cancel" class="cancel-capture" id="cancel-capture-form" data-cancel-job>`,
      );
      expect(waiting.text).toContain(`<input type="hidden" name="back" value="website_id=${quickSite}&amp;viewport_width=800">`);

      // Another account's job: 404, and it is not touched. No CSRF token: refused.
      expect((await b.submit(`/dashboard/playground/jobs/${queued}/cancel`, {})).status).toBe(404);
      expect((await a.post(`/dashboard/playground/jobs/${queued}/cancel`, {})).status).toBe(403);
      expect((await a.submit('/dashboard/playground/jobs/not-a-job/cancel', {})).status).toBe(404);
      expect((await job(queued)).status).toBe('queued');

      // Running: it cannot be stopped now, and the page says it will finish.
      const late = await a.submit(`/dashboard/playground/jobs/${running}/cancel`, { back: `website_id=${slowSite}` });
      expect(late.status).toBe(303);
      expect(late.headers.location).toBe(`/dashboard/playground?website_id=${slowSite}&job=${running}&cancel=running`);
      const latePage = await a.get(String(late.headers.location));
      expect(latePage.text).toContain('It had already started, so it cannot be stopped now: it will finish');
      expect(latePage.text).not.toContain('id="cancel-capture-form"');
      expect((await job(running)).status).toBe('running');

      // Queued: cancelled.
      const cancelled = await a.submit(`/dashboard/playground/jobs/${queued}/cancel`, { back: `website_id=${quickSite}&viewport_width=800&job=x` });
      expect(cancelled.status).toBe(303);
      expect(cancelled.headers.location).toBe(`/dashboard/playground?website_id=${quickSite}&viewport_width=800&job=${queued}&cancel=cancelled`);
      const after = await a.get(String(cancelled.headers.location));
      expect(after.text).toContain('Cancelled. The capture had not started and never will');
      expect(after.text).toContain('Cancelled in the playground before it started: no screenshot was taken');
      expect(after.text).not.toContain('id="cancel-capture-form"');
      expect(after.text).not.toContain('data-job-poll');
      expect(optionsOf(after.text, 'f-website_id')).toContainEqual([String(quickSite), 'Quick page']);
      expect(after.text).toContain('value="800"');
      // Pressed again: nothing left to cancel.
      const again = await a.submit(`/dashboard/playground/jobs/${queued}/cancel`, {});
      expect(again.headers.location).toBe(`/dashboard/playground?job=${queued}&cancel=ended`);

      // The slot frees: the running one finishes with its screenshot; the cancelled one never runs.
      await until('the slow try to finish', async () => (await job(running)).status === 'succeeded', 40_000);
      await new Promise((r) => setTimeout(r, 2_000));
      const ended = await job(queued);
      expect(ended.status).toBe('failed');
      expect(ended.resultId).toBeNull();
      expect(ended.startedAt).toBeNull();
      const shots = await request(t.url).get(`/screenshots?website_id=${quickSite}`).set(alice.auth);
      expect(shots.status).toBe(200);
      expect(shots.body.meta.total).toBe(0);
    }, 90_000);
  });

  describe('in a real browser', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
    });

    afterAll(async () => {
      await browser?.close();
    });

    async function signedInPage(width: number): Promise<Page> {
      const page = await (await browser.createBrowserContext()).newPage();
      await page.setViewport({ width, height: 900 });
      await page.goto(`${t.url}/dashboard/login`, { waitUntil: 'load' });
      await page.type('#email', alice.email);
      await page.type('#password', PASSWORD);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
      return page;
    }
    async function shot(page: Page, name: string): Promise<void> {
      if (!SHOTS_DIR) return;
      mkdirSync(SHOTS_DIR, { recursive: true });
      await page.screenshot({ path: join(SHOTS_DIR, name), fullPage: true });
    }
    const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

    for (const width of [1280, 390]) {
      it(`playground: the chooser finds #140 as it is typed; Cancel while the try waits stops the polling and says Cancelled (${width} px)`, async () => {
        const page = await signedInPage(width);
        try {
          await page.goto(`${t.url}/dashboard/playground`, { waitUntil: 'load' });
          await page.type('#f-website-search', 'site 140');
          await page.waitForFunction(() => document.querySelectorAll('#f-website_id option').length === 2);
          expect(await page.$$eval('#f-website_id option', (os) => os.map((o) => o.textContent))).toEqual(['— the URL above —', 'Site 140']);
          expect(await overflow(page)).toBeLessThanOrEqual(0);
          await shot(page, `playground-chooser-${width}.png`);

          // Enter in the search searches in place (no try).
          await page.click('#f-website-search', { clickCount: 3 });
          await page.type('#f-website-search', 'quick');
          await page.keyboard.press('Enter');
          await page.waitForFunction(() => Array.from(document.querySelectorAll('#f-website_id option')).some((o) => o.textContent === 'Quick page'));
          expect(new URL(page.url()).search).toBe('');
          await page.select('#f-website_id', String(quickSite));

          await fillTheWorker();
          await page.click('#try-capture');
          await page.waitForSelector('#cancel-capture', { visible: true });
          const queued = UUID.exec(page.url())![1];
          expect((await job(queued)).status).toBe('queued');
          expect(await overflow(page)).toBeLessThanOrEqual(0);
          await shot(page, `playground-cancel-waiting-${width}.png`);

          await page.click('#cancel-capture');
          await page.waitForSelector('#cancel-notice');
          expect(await page.$eval('#cancel-notice', (n) => n.textContent)).toMatch(/^Cancelled\. /);
          expect(await page.$('#capture-result[data-job-poll]')).toBeNull();
          expect(await page.$('#cancel-capture')).toBeNull();
          expect(await page.$eval('#capture-result .job-line .badge', (n) => n.textContent)).toBe('failed');
          expect((await job(queued)).status).toBe('failed');
          expect(await overflow(page)).toBeLessThanOrEqual(0);
          await shot(page, `playground-cancelled-${width}.png`);
          // The polling has stopped: the panel stays as it is.
          await new Promise((r) => setTimeout(r, 1_500));
          expect(await page.$eval('#cancel-notice', (n) => n.textContent)).toMatch(/^Cancelled\. /);
        } finally {
          await page.browserContext().close();
        }
        // The slot frees for the next test.
        await until(
          'the worker to be free',
          async () => (await t.app.get(JobsService).list(alice.id, { page: 1, perPage: 5 }, { status: 'running' })).total === 0,
          40_000,
        );
      }, 90_000);

      it(`alerts: the channel's website search finds #140 as it is typed, ticked ones stay (${width} px)`, async () => {
        const page = await signedInPage(width);
        try {
          await page.goto(`${t.url}/dashboard/notifications`, { waitUntil: 'load' });
          await page.type('#channel-name', 'Typed in the browser');
          await page.click('#channel-websites input[type=checkbox]'); // the newest one (Quick page)
          await page.type('#channel-website-search', 'site 140');
          await page.waitForFunction(() => Array.from(document.querySelectorAll('#channel-websites label')).some((l) => l.textContent === ' Site 140'));
          const labels = await page.$$eval('#channel-websites label', (ls) =>
            ls.map((l) => [l.textContent?.trim(), (l.querySelector('input') as HTMLInputElement).checked]),
          );
          expect(labels).toEqual([
            ['Quick page', true],
            ['Site 140', false],
          ]);
          await page.click('#channel-websites label:nth-child(2) input');
          expect(await page.$eval('#channel-name', (i) => (i as HTMLInputElement).value)).toBe('Typed in the browser');
          expect(await overflow(page)).toBeLessThanOrEqual(0);
          const form = await page.$('#add-channel');
          if (SHOTS_DIR) {
            mkdirSync(SHOTS_DIR, { recursive: true });
            await form!.screenshot({ path: join(SHOTS_DIR, `alerts-website-search-${width}.png`) });
          }
        } finally {
          await page.browserContext().close();
        }
      });
    }
  });
});
