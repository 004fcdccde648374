/// <reference lib="dom" />
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { ScreenshotRepository } from '../../src/modules/screenshots/application/ports';
import { ScreenshotRow } from '../../src/modules/screenshots/infrastructure/screenshot.row';
import { DashboardClient } from '../support/dashboard-session';
import { decodeImage } from '../support/images';
import { waitForComparison } from '../support/changes';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Change history in the dashboard (issue 20): a website's history page (timeline with change badges, "changes
 * only"), the compare view of one capture (before/after, ratio, threshold, diff) and the diff image route, over
 * HTTP and in a real headless Chromium at 1280×800 and 390×844. Captures are real Chromium renderings of pages
 * served on 127.0.0.1; comparisons are awaited by reading the screenshots table (as change-history.e2e-spec does).
 *
 * Pictures of the pages go to DASHBOARD_SCREENSHOTS when set (`DASHBOARD_SCREENSHOTS=docs/dashboard npx jest
 * test/e2e/dashboard-changes` refreshes the README's), else to /tmp/dashboard-changes.
 */
const SHOTS_DIR = resolve(process.env.DASHBOARD_SCREENSHOTS ?? '/tmp/dashboard-changes');
const PASSWORD = 'change history password';
const HTML = 'text/html; charset=utf-8';
const START = Date.parse('2031-03-02T09:00:00.000Z');

/** A white 1280×800 page with a 200×100 box in `colour` and some still text (as change-history.e2e-spec). */
function boxPage(colour: string): string {
  return (
    '<!doctype html><html><head><style>html,body{margin:0;background:#fff;font:20px sans-serif;color:#1d2330}' +
    'header{background:#111a2e;color:#fff;padding:24px 40px;font-size:32px}' +
    `#box{position:absolute;left:100px;top:140px;width:200px;height:100px;background:${colour}}` +
    'p{position:absolute;left:400px;top:150px;margin:0}</style></head><body><header>Acme status</header><div id="box"></div>' +
    '<p>Everything else on this page stays the same.</p></body></html>'
  );
}

interface Entry {
  id: number;
  kind: string;
  badge: string;
}

/** The timeline entries of a history page, in page order. */
function entries(page: string): Entry[] {
  return [
    ...page.matchAll(
      /<li class="ch-entry ch-entry-([a-z-]+)" data-screenshot-id="(\d+)" data-change="[a-z-]+">[\s\S]*?<span class="badge ch-badge [a-z-]+">([^<]*)<\/span>/g,
    ),
  ].map((m) => ({ id: Number(m[2]), kind: m[1], badge: m[3] }));
}

function expectPage(res: Response, title: string): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 200, type: HTML });
  expect(res.text).toContain(`<h1>${title}</h1>`);
  // The CSP allows no inline style or script: none is written.
  expect(res.text).not.toMatch(/\sstyle=|<script(?! src="\/dashboard\/assets\/dashboard\.js" defer><\/script>)/);
}

function expectNotFoundPage(res: Response): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 404, type: HTML });
  expect(res.text).toContain('<h1>Not found</h1>');
}

describe('Dashboard change history (issue 20)', () => {
  let t: TestApp;
  let site: PageServer;
  let alice: TestAccount;
  let bob: TestAccount;
  let a: DashboardClient;
  let b: DashboardClient;
  const hits: Record<string, number> = {};
  const ids = { still: 0, flip: 0, gone: 0, pending: 0, long: 0, bobSite: 0 };
  /** Screenshot ids by website, oldest first. */
  const shots = { still: [] as number[], flip: [] as number[], gone: [] as number[], pending: [] as number[], long: [] as number[], bob: [] as number[] };

  const count = (path: string) => (hits[path] = (hits[path] ?? 0) + 1);
  const nextMinute = () => t.clock.set(new Date(Math.floor(t.clock.now().getTime() / 60_000) * 60_000 + 60_000));

  async function website(account: TestAccount, name: string, path: string, extra: Record<string, unknown> = {}): Promise<number> {
    const res = await request(t.url)
      .post('/websites')
      .set(account.auth)
      .send({ name, url: `${site.url}${path}`, ...extra });
    expect(res.status).toBe(201);
    return res.body.data.id as number;
  }

  /** A capture through the API, each in a minute of its own (its own rate-limit window and taken_at). */
  async function capture(account: TestAccount, websiteId: number): Promise<number> {
    nextMinute();
    const res = await request(t.url).post(`/websites/${websiteId}/screenshot`).set(account.auth);
    expect(res.status).toBe(200);
    const job = await waitForJob(t.url, account.auth, res.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded' });
    const id = job.screenshot_id as number;
    await compared(id);
    return id;
  }

  const compared = (id: number) => waitForComparison(t.app, id);

  const ratioOf = async (id: number) => (await t.app.get(ScreenshotRepository).findById(id))!.change!.changedRatio!;

  async function withPassword(plan: string, name: string): Promise<TestAccount> {
    const account = await t.createAccount({ plan, name });
    await t.app.get(AccountsService).setPassword(account.email, PASSWORD);
    return account;
  }

  beforeAll(async () => {
    mkdirSync(SHOTS_DIR, { recursive: true });
    site = await new PageServer({
      '/still': boxPage('rgb(36,84,214)'),
      // The box is blue on the first request and green from then on: capture 2 changed, capture 3 did not.
      '/flip': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(boxPage(count('/flip') === 1 ? 'rgb(36,84,214)' : 'rgb(6,118,71)')),
      '/gone': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(boxPage(count('/gone') === 1 ? 'rgb(36,84,214)' : 'rgb(200,120,0)')),
      '/pending': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(boxPage(count('/pending') === 1 ? 'rgb(36,84,214)' : 'rgb(124,58,237)')),
      // A full page that grows by 400 px (and whose box changes colour) between its two captures.
      '/long': (_req, res) => {
        const first = count('/long') === 1;
        res.writeHead(200, { 'content-type': 'text/html' }).end(
          boxPage(first ? 'rgb(36,84,214)' : 'rgb(6,118,71)')
            .replace('</body>', `<div class="tall"></div><footer>Footer</footer></body>`)
            .replace(
              '</style>',
              `.tall{height:${first ? 2400 : 2800}px;background:linear-gradient(#fff,#dfe6f5)}footer{padding:40px;background:#111a2e;color:#fff}</style>`,
            ),
        );
      },
      '/bob': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(boxPage(count('/bob') === 1 ? 'rgb(36,84,214)' : 'rgb(180,35,24)')),
    }).start();
    t = await startTestApp({ env: { SIGN_IN_LIMIT_PER_MINUTE: '100000', DASHBOARD_LIMIT_PER_MINUTE: '100000' } });
    t.clock.set(new Date(START));
    alice = await withPassword('business', 'Alice');
    bob = await withPassword('business', 'Bob');
    ids.still = await website(alice, 'Still page', '/still');
    ids.flip = await website(alice, 'Flipping page', '/flip');
    ids.gone = await website(alice, 'Deleted previous', '/gone');
    ids.pending = await website(alice, 'Pending page', '/pending');
    ids.long = await website(alice, 'Long page', '/long', { full_page: true });
    ids.bobSite = await website(bob, 'Bob site', '/bob');
    for (let i = 0; i < 2; i++) shots.still.push(await capture(alice, ids.still));
    for (let i = 0; i < 3; i++) shots.flip.push(await capture(alice, ids.flip));
    for (let i = 0; i < 2; i++) shots.gone.push(await capture(alice, ids.gone));
    for (let i = 0; i < 2; i++) shots.pending.push(await capture(alice, ids.pending));
    for (let i = 0; i < 2; i++) shots.long.push(await capture(alice, ids.long));
    for (let i = 0; i < 2; i++) shots.bob.push(await capture(bob, ids.bobSite));
    // The previous capture of "gone" is deleted after the comparison: its diff was kept (a change).
    nextMinute();
    expect((await request(t.url).delete(`/screenshots/${shots.gone[0]}`).set(alice.auth)).status).toBe(200);
    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
    b = await new DashboardClient(t.url).signInOk(bob.email, PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await site?.stop();
  });

  describe('over HTTP', () => {
    it('history of a page that does not change: newest first, "no change" then "first capture", each linked to its compare view', async () => {
      const res = await a.get(`/dashboard/websites/${ids.still}/history`);
      expectPage(res, 'History of Still page');
      expect(entries(res.text)).toEqual([
        { id: shots.still[1], kind: 'unchanged', badge: 'no change' },
        { id: shots.still[0], kind: 'first', badge: 'first capture' },
      ]);
      for (const id of shots.still) {
        expect(res.text).toContain(`<a class="ch-thumb" href="/dashboard/screenshots/${id}/compare"><img src="/dashboard/screenshots/${id}/thumbnail"`);
      }
      expect(res.text).toContain(`<a class="ch-compare" href="/dashboard/screenshots/${shots.still[1]}/compare">Compare with previous</a>`);
      expect(res.text).toContain('<strong>0.10% (0.001)</strong>');
      // Nothing pending: the page does not reload itself.
      expect(res.text).not.toContain('http-equiv="refresh"');
    });

    it('history of a page that changed once: "changed N.NN%" with the stored ratio; "changes only" lists just that capture', async () => {
      const ratio = await ratioOf(shots.flip[1]);
      expect(Math.abs(ratio - 20000 / 1024000) / (20000 / 1024000)).toBeLessThan(0.1);
      const all = await a.get(`/dashboard/websites/${ids.flip}/history`);
      expectPage(all, 'History of Flipping page');
      expect(entries(all.text)).toEqual([
        { id: shots.flip[2], kind: 'unchanged', badge: 'no change' },
        { id: shots.flip[1], kind: 'changed', badge: `changed ${(ratio * 100).toFixed(2)}%` },
        { id: shots.flip[0], kind: 'first', badge: 'first capture' },
      ]);
      expect(all.text).toContain('<input type="checkbox" name="changes" value="1" data-autosubmit> Changes only');
      expect(all.text).toContain(`#${shots.flip[1]} · PNG · 1280×800 · compared with #${shots.flip[0]}</div>`);
      expect(all.text).toContain(`#${shots.flip[0]} · PNG · 1280×800</div>`);

      const changes = await a.get(`/dashboard/websites/${ids.flip}/history?changes=1`);
      expectPage(changes, 'History of Flipping page');
      expect(entries(changes.text)).toEqual([{ id: shots.flip[1], kind: 'changed', badge: `changed ${(ratio * 100).toFixed(2)}%` }]);
      expect(changes.text).toContain('<input type="checkbox" name="changes" value="1" data-autosubmit checked> Changes only');

      const none = await a.get(`/dashboard/websites/${ids.still}/history?changes=1`);
      expect(entries(none.text)).toEqual([]);
      expect(none.text).toContain('<p class="muted" id="history-empty">No capture of this website has changed.</p>');
      // A page past the last one says so and leads back to the newest.
      const past = await a.get(`/dashboard/websites/${ids.flip}/history?changes=1&page=9`);
      expect(entries(past.text)).toEqual([]);
      expect(past.text).toContain(`Nothing on this page. <a href="/dashboard/websites/${ids.flip}/history?changes=1">Go to the newest</a>.`);
    });

    it('compare view of a changed capture: before and after images, the diff, ratio and threshold, previous and next links', async () => {
      const [first, changed, after] = shots.flip;
      const ratio = await ratioOf(changed);
      const res = await a.get(`/dashboard/screenshots/${changed}/compare`);
      expectPage(res, `Capture ${changed} of Flipping page`);
      expect(res.text).toContain(`<img src="/dashboard/screenshots/${first}/image" alt="Before: capture ${first} of Flipping page" width="1280" height="800">`);
      expect(res.text).toContain(
        `<img src="/dashboard/screenshots/${changed}/image" alt="After: capture ${changed} of Flipping page" width="1280" height="800">`,
      );
      expect(res.text).toContain(`<img src="/dashboard/screenshots/${changed}/diff" alt="Diff of capture ${changed} with the previous capture"`);
      expect(res.text).toContain(`<span id="change-ratio">${(ratio * 100).toFixed(2)}%</span> <span class="muted">(ratio ${ratio})</span>`);
      expect(res.text).toContain('<span id="change-threshold">0.10% (0.001)</span>');
      expect(res.text).toContain(`changed ${(ratio * 100).toFixed(2)}%</span>`);
      expect(res.text).toContain(`<a class="button secondary" rel="prev" href="/dashboard/screenshots/${first}/compare">← Previous capture</a>`);
      expect(res.text).toContain(`<a class="button secondary" rel="next" href="/dashboard/screenshots/${after}/compare">Next capture →</a>`);
      expect(res.text).toContain(`<a href="/dashboard/websites/${ids.flip}/history">History of Flipping page</a>`);

      // The newest capture has no next link; an unchanged one says so.
      const newest = await a.get(`/dashboard/screenshots/${after}/compare`);
      expectPage(newest, `Capture ${after} of Flipping page`);
      expect(newest.text).not.toContain('rel="next"');
      expect(newest.text).toContain('<span class="badge ch-badge ch-unchanged">no change</span>');
      expect(newest.text).toContain('<span id="change-ratio">0.00%</span>');
    });

    it('the diff route serves the PNG (newer image’s size, change highlighted) with the image routes’ caching, and 304 on revalidation', async () => {
      const changed = shots.flip[1];
      const res = await a.get(`/dashboard/screenshots/${changed}/diff`, { binary: true });
      expect({ status: res.status, type: res.headers['content-type'], cache: res.headers['cache-control'] }).toEqual({
        status: 200,
        type: 'image/png',
        cache: 'private, max-age=31536000, immutable',
      });
      const image = await decodeImage(res.body as Buffer);
      expect({ format: image.format, width: image.width, height: image.height }).toEqual({ format: 'png', width: 1280, height: 800 });
      const [r, g, bl] = image.at(200, 190); // inside the box that changed colour
      expect(r > 180 && g < 80 && bl < 120).toBe(true);
      // The same bytes as the API's GET /screenshots/{id}/diff.
      const api = await request(t.url)
        .get(`/screenshots/${changed}/diff`)
        .set(alice.auth)
        .buffer(true)
        .parse((r2, cb) => {
          const chunks: Buffer[] = [];
          r2.on('data', (c: Buffer) => chunks.push(c));
          r2.on('end', () => cb(null, Buffer.concat(chunks)));
        });
      expect(Buffer.compare(api.body as Buffer, res.body as Buffer)).toBe(0);
      const again = await a.get(`/dashboard/screenshots/${changed}/diff`, { headers: { 'If-None-Match': res.headers.etag } });
      expect({ status: again.status, etag: again.headers.etag }).toEqual({ status: 304, etag: res.headers.etag });
      // An unchanged capture's diff is made on request.
      const unchanged = await a.get(`/dashboard/screenshots/${shots.still[1]}/diff`, { binary: true });
      expect({ status: unchanged.status, type: unchanged.headers['content-type'] }).toEqual({ status: 200, type: 'image/png' });
    });

    it('a screenshot without a previous capture: the compare page says "first capture" (200), its diff route is 404', async () => {
      const first = shots.flip[0];
      const res = await a.get(`/dashboard/screenshots/${first}/compare`);
      expectPage(res, `Capture ${first} of Flipping page`);
      expect(res.text).toContain('<span class="badge ch-badge ch-first">first capture</span>');
      expect(res.text).toContain('This is the first capture of this website with these settings: there is nothing earlier to compare it with.');
      expect(res.text).toContain(`<img src="/dashboard/screenshots/${first}/image"`);
      expect(res.text).not.toContain('/diff"');
      expect(res.text).not.toContain('rel="prev"');
      expect(res.text).toContain(`<a class="button secondary" rel="next" href="/dashboard/screenshots/${shots.flip[1]}/compare">Next capture →</a>`);
      expectNotFoundPage(await a.get(`/dashboard/screenshots/${first}/diff`));
    });

    it('the previous capture deleted: the compare view says so and still shows the diff kept for the change', async () => {
      const [deleted, kept] = shots.gone;
      const res = await a.get(`/dashboard/screenshots/${kept}/compare`);
      expectPage(res, `Capture ${kept} of Deleted previous`);
      expect(res.text).toContain(
        `<p id="previous-deleted">The previous capture (screenshot ${deleted}) was deleted. The comparison and its diff were kept.</p>`,
      );
      expect(res.text).toContain(`<img src="/dashboard/screenshots/${kept}/diff"`);
      expect(res.text).not.toContain(`/dashboard/screenshots/${deleted}/image`);
      expect(res.text).not.toContain('rel="prev"');
      const diff = await a.get(`/dashboard/screenshots/${kept}/diff`, { binary: true });
      expect({ status: diff.status, type: diff.headers['content-type'] }).toEqual({ status: 200, type: 'image/png' });
      // The history still shows the change, and the deleted capture is gone from it.
      const history = await a.get(`/dashboard/websites/${ids.gone}/history`);
      expect(entries(history.text).map((e) => [e.id, e.kind])).toEqual([[kept, 'changed']]);
    });

    it('a comparison still pending: "comparing…" in the history and the compare view, both reload themselves until it is done', async () => {
      const [first, second] = shots.pending;
      // Put the comparison back to pending, held by a claim no worker takes over (as while a worker compares it).
      await t.app
        .get(DataSource)
        .getRepository(ScreenshotRow)
        .update(second, {
          changeStatus: 'pending',
          changedRatio: null,
          changed: null,
          comparedAt: null,
          compareClaimedUntil: new Date('2099-01-01T00:00:00Z'),
        });
      const history = await a.get(`/dashboard/websites/${ids.pending}/history`);
      expectPage(history, 'History of Pending page');
      expect(entries(history.text)).toEqual([
        { id: second, kind: 'pending', badge: 'comparing…' },
        { id: first, kind: 'first', badge: 'first capture' },
      ]);
      expect(history.text).toContain('<meta http-equiv="refresh" content="5">');
      const compare = await a.get(`/dashboard/screenshots/${second}/compare`);
      expectPage(compare, `Capture ${second} of Pending page`);
      expect(compare.text).toContain('<meta http-equiv="refresh" content="3">');
      expect(compare.text).toContain('Comparing with the previous capture… this page refreshes until it is done.');
      expect(compare.text).toContain(`<img src="/dashboard/screenshots/${first}/image"`);
      expect(compare.text).not.toContain('id="change-ratio"');
    });

    it('another account’s website or screenshot id is a 404 page on every new route (and its owner sees them)', async () => {
      const [bobFirst, bobChanged] = shots.bob;
      const paths = [
        `/dashboard/websites/${ids.bobSite}/history`,
        `/dashboard/websites/${ids.bobSite}/history?changes=1`,
        `/dashboard/screenshots/${bobFirst}/compare`,
        `/dashboard/screenshots/${bobChanged}/compare`,
        `/dashboard/screenshots/${bobChanged}/diff`,
      ];
      for (const path of paths) expect({ path, status: (await b.get(path)).status }).toEqual({ path, status: 200 });
      for (const path of [
        ...paths,
        '/dashboard/websites/999999999/history',
        '/dashboard/screenshots/999999999/compare',
        '/dashboard/screenshots/999999999/diff',
      ]) {
        const res = await a.get(path);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expectNotFoundPage(res);
        expect(res.text).not.toContain('Bob site');
      }
      // Bob's diff, asked for by Alice, sends no image bytes and no caching headers.
      const res = await a.get(`/dashboard/screenshots/${bobChanged}/diff`);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.etag).toBeUndefined();
      // Without a session: sign-in first.
      const anonymous = await new DashboardClient(t.url).get(`/dashboard/screenshots/${shots.flip[1]}/diff`);
      expect({ status: anonymous.status, location: anonymous.headers.location }).toEqual({
        status: 303,
        location: `/dashboard/login?next=${encodeURIComponent(`/dashboard/screenshots/${shots.flip[1]}/diff`)}`,
      });
    });
  });

  describe('in a real browser', () => {
    let browser: Browser;
    let page: Page;

    /** Saves the page as a PNG (the whole page; `fullPage: false` keeps the viewport, so 75vh frames keep their scroll). */
    const save = async (name: string, fullPage = true) => {
      const path = join(SHOTS_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage });
      expect(readFileSync(path).subarray(1, 4).toString()).toBe('PNG');
    };
    /** Opens a page, waits for its images, and checks it is no wider than the viewport. */
    const open = async (path: string) => {
      const res = await page.goto(`${t.url}${path}`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      await page.waitForFunction(() => Array.from(document.images).every((img) => img.complete), { timeout: 20_000 });
      const width = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      expect({ path, fits: width.scroll <= width.client }).toEqual({ path, fits: true });
    };
    const brokenImages = () =>
      page.evaluate(() =>
        Array.from(document.images)
          .filter((img) => img.naturalWidth === 0)
          .map((img) => img.src),
      );

    beforeAll(async () => {
      browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
      page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      await page.goto(`${t.url}/dashboard/login`);
      await page.type('#email', alice.email);
      await page.type('#password', PASSWORD);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
      expect(new URL(page.url()).pathname).toBe('/dashboard');
    });

    afterAll(async () => {
      await browser?.close();
    });

    for (const [label, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 }],
    ] as const) {
      it(`${label} ${viewport.width}×${viewport.height}: history and compare pages fit, images load, the slider moves and shows the diff`, async () => {
        await page.setViewport(viewport);
        await open(`/dashboard/websites/${ids.flip}/history`);
        expect(await brokenImages()).toEqual([]);
        expect(await page.$$eval('li.ch-entry', (items) => items.map((li) => li.getAttribute('data-change')))).toEqual(['unchanged', 'changed', 'first']);
        await save(`history-${viewport.width}`);

        // "Changes only" applies as soon as it is ticked (dashboard.js submits the form).
        await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('input[name=changes]')]);
        expect(new URL(page.url()).search).toBe('?changes=1');
        expect(await page.$$eval('li.ch-entry', (items) => items.length)).toBe(1);

        await open(`/dashboard/screenshots/${shots.flip[1]}/compare`);
        expect(await brokenImages()).toEqual([]);
        // With scripts: the slider is shown first; the range moves the cut.
        expect(await page.$eval('[data-compare]', (el) => el.classList.contains('ch-mode-slider'))).toBe(true);
        const visible = (selector: string) => page.$eval(selector, (el) => (el as HTMLElement).offsetParent !== null);
        expect({ slider: await visible('.ch-slider'), pair: await visible('.ch-pair'), diff: await visible('.ch-diff') }).toEqual({
          slider: true,
          pair: false,
          diff: true,
        });
        await page.$eval('.ch-slider input[type=range]', (range) => {
          range.value = '30';
          range.dispatchEvent(new Event('input', { bubbles: true }));
        });
        expect(await page.$eval('.ch-stage', (stage) => (stage as HTMLElement).style.getPropertyValue('--ch-pos'))).toBe('30%');
        await save(`compare-slider-${viewport.width}`);
        await page.click('#ch-diff-overlay');
        expect(await page.$eval('.ch-stage > img', (img) => new URL(img.src).pathname)).toBe(`/dashboard/screenshots/${shots.flip[1]}/diff`);
        await page.waitForFunction(() => (document.querySelector('.ch-stage > img') as HTMLImageElement).complete);
        await save(`compare-slider-diff-${viewport.width}`);
        await page.click('.ch-tools button:first-child');
        expect({ slider: await visible('.ch-slider'), pair: await visible('.ch-pair') }).toEqual({ slider: false, pair: true });
        await save(`compare-side-${viewport.width}`);
        const fits = await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
        expect(fits).toBe(true);
      });
    }

    it('full pages of different heights (1280×800): the frames scroll inside the page and together, side by side', async () => {
      await page.setViewport({ width: 1280, height: 800 });
      const [older, newer] = shots.long;
      await open(`/dashboard/screenshots/${newer}/compare`);
      const heights = await page.$$eval('.ch-pair img, .ch-diff img', (imgs) => imgs.map((img) => img.naturalHeight));
      expect(heights[0]).toBeLessThan(heights[1]);
      expect(heights[2]).toBe(heights[1]); // the diff has the newer image's size
      expect(await page.$eval('.ch-badge', (el) => el.textContent)).toMatch(/^changed \d+\.\d\d%$/);
      await save('compare-full-page-slider-1280');
      await page.click('.ch-tools button:first-child');
      const frames = await page.$$('.ch-pair .ch-frame');
      expect(await frames[0].evaluate((f) => f.scrollHeight > f.clientHeight)).toBe(true);
      await frames[1].evaluate((f) => (f.scrollTop = 500));
      await page.waitForFunction(() => document.querySelectorAll('.ch-pair .ch-frame')[0].scrollTop === 500, { timeout: 5_000 });
      await page.$eval('.ch-tools', (tools) => tools.scrollIntoView());
      await save('compare-full-page-side-1280', false);
      expect(older).toBeLessThan(newer);
    });

    it('without scripts (390×844): side by side with the diff below; the deleted-previous and first-capture views fit too', async () => {
      await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
      await page.setJavaScriptEnabled(false);
      try {
        await open(`/dashboard/screenshots/${shots.flip[1]}/compare`);
        expect(await page.$('.ch-slider')).toBeNull();
        expect(await page.$$eval('.ch-pair img, .ch-diff img', (imgs) => imgs.map((img) => img.naturalWidth))).toEqual([1280, 1280, 1280]);
        await save('compare-nojs-390');
        await open(`/dashboard/screenshots/${shots.gone[1]}/compare`);
        await save('compare-deleted-previous-390');
        await open(`/dashboard/screenshots/${shots.flip[0]}/compare`);
        await save('compare-first-390');
      } finally {
        await page.setJavaScriptEnabled(true);
      }
    });
  });
});
