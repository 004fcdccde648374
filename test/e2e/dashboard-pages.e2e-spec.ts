/// <reference lib="dom" />
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import AdmZip from 'adm-zip';
import puppeteer, { Browser, Page } from 'puppeteer';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { DateUtils } from 'typeorm/util/DateUtils';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { sizeText } from '../../src/modules/dashboard/http/views/pages/screenshots.page';
import { ScreenshotRepository } from '../../src/modules/screenshots/application/ports';
import { CaptureJobsService } from '../../src/modules/screenshots/application/capture-jobs.service';
import { DashboardClient } from '../support/dashboard-session';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Issue 19, the parts every page shares and the gallery, overview and API keys pages: no page is wider than a
 * phone (a crawl of every page the navigation reaches, at 390x844 and 1280x800), the gallery's badges,
 * filters, lightbox, bulk delete and ZIP, the overview's usage charts, the API keys page's folded revoked
 * tokens and curl example. With DASHBOARD_SCREENSHOTS set, the main pages are saved there as
 * `<name>-desktop.png` and `<name>-phone.png` (`DASHBOARD_SCREENSHOTS=docs/dashboard npx jest --runInBand
 * test/e2e/dashboard-pages.e2e-spec.ts` refreshes the README's pictures).
 */
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : null;
const PASSWORD = 'correct horse battery staple';
const HTML = 'text/html; charset=utf-8';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const MAX_PAGES = 60;

function landingPage(title: string, accent: string, tall = false): string {
  return `<!doctype html><html><head><title>${title}</title><style>
    body{margin:0;font-family:sans-serif;background:#fff;color:#1d2330}
    header{background:${accent};color:#fff;padding:48px 64px}
    h1{font-size:56px;margin:0 0 12px} p{font-size:22px;margin:0}
    .cards{display:flex;gap:24px;padding:48px 64px}
    .card{flex:1;height:${tall ? 900 : 220}px;border-radius:16px;background:#eef1f7;border-top:12px solid ${accent}}
  </style></head><body><header><h1>${title}</h1><p>We make things that work.</p></header>
  <div class="cards"><div class="card"></div><div class="card"></div><div class="card"></div></div></body></html>`;
}

/** `/dashboard/screenshots/12/compare` → `/dashboard/screenshots/:id/compare` (numbers and UUIDs are ids). */
function pathPattern(path: string): string {
  return path
    .split('/')
    .map((part) => (/^\d+$/.test(part) || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(part) ? ':id' : part))
    .join('/');
}

/** The pictures the README shows: the main page of each kind, by its path pattern. */
const PICTURES: Record<string, string> = {
  '/dashboard': 'overview',
  '/dashboard/websites': 'websites',
  '/dashboard/websites/new': 'website-new',
  '/dashboard/websites/:id/edit': 'website-edit',
  '/dashboard/websites/:id/screenshot': 'take-screenshot',
  '/dashboard/websites/:id/history': 'website-history',
  '/dashboard/playground': 'playground',
  '/dashboard/screenshots': 'screenshots',
  '/dashboard/screenshots/:id': 'screenshot',
  '/dashboard/screenshots/:id/compare': 'compare',
  '/dashboard/scenarios': 'scenarios',
  '/dashboard/scenarios/new': 'scenario-new',
  '/dashboard/scenarios/:id/edit': 'scenario-edit',
  '/dashboard/executions/:id': 'execution',
  '/dashboard/schedules': 'schedules',
  '/dashboard/schedules/new': 'schedule-new',
  '/dashboard/schedules/:id/edit': 'schedule-edit',
  '/dashboard/jobs': 'jobs',
  '/dashboard/jobs/:id': 'job',
  '/dashboard/settings/api-keys': 'api-keys',
};

/** Links the crawl never follows: signing out, files (images, downloads, ZIPs), the API's own pages. */
function crawlable(url: URL, origin: string): boolean {
  if (url.origin !== origin || !url.pathname.startsWith('/dashboard')) return false;
  if (url.pathname === '/dashboard/logout' || url.pathname.startsWith('/dashboard/assets/')) return false;
  return !/\/(image|download|thumbnail|diff)$|\.(png|jpe?g|webp|pdf|zip)$/.test(url.pathname);
}

/** The `<li data-screenshot-id>` tiles of a gallery page, each with its markup. */
function tiles(page: string): Map<number, string> {
  return new Map([...page.matchAll(/<li data-screenshot-id="(\d+)">([\s\S]*?)<\/li>/g)].map((m) => [Number(m[1]), m[2]]));
}

describe('dashboard pages: every page fits a phone; gallery, overview and API keys', () => {
  let t: TestApp;
  let site: PageServer;
  let alice: TestAccount;
  let bob: TestAccount;
  let sam: TestAccount;
  let a: DashboardClient;
  const ids = {
    home: 0,
    blog: 0,
    bobSite: 0,
    samSite: 0,
    shotApi: 0,
    shotFull: 0,
    shotDashboard: 0,
    shotSchedule: 0,
    shotScenario: 0,
    shotStep: 0,
    shotFailure: 0,
    shotBob: 0,
    shotSam: 0,
    schedule: 0,
    okRun: '',
    failedRun: '',
  };

  const api = () => request(t.url);
  const storagePath = (filePath: string) => join(t.config.storageDir, filePath.replace(/^screenshots\//, ''));
  const findShot = (account: TestAccount, id: number) => t.app.get(ScreenshotRepository).findOwned(account.id, id);

  async function createWebsite(account: TestAccount, name: string, path: string): Promise<number> {
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name, url: `${site.url}${path}` })
      .expect(201);
    return res.body.data.id;
  }

  async function apiCapture(account: TestAccount, websiteId: number, body: object = {}): Promise<number> {
    const { body: queued } = await api().post(`/websites/${websiteId}/screenshot`).set(account.auth).send(body).expect(200);
    const job = await waitForJob(t.url, account.auth, queued.job_id);
    expect(job.status).toBe('succeeded');
    return job.screenshot_id as number;
  }

  /** A capture asked for as the dashboard's forms and the schedule ticker ask for it (CaptureJobsService, with its source). */
  async function sourcedCapture(account: TestAccount, websiteId: number, source: 'dashboard' | 'schedule', scheduleId: number | null = null) {
    const job = await t.app.get(CaptureJobsService).requestCapture(account.id, websiteId, {}, null, source, scheduleId);
    const done = await waitForJob(t.url, account.auth, job.id);
    expect(done.status).toBe('succeeded');
    return done.screenshot_id as number;
  }

  async function runScenario(account: TestAccount, websiteId: number, name: string, steps: object[]) {
    const scenario = await api().post('/scenarios').set(account.auth).send({ name, website_id: websiteId, steps }).expect(201);
    const run = await api().post(`/scenarios/${scenario.body.data.id}/run`).set(account.auth).expect(200);
    await waitForJob(t.url, account.auth, run.body.execution_id);
    const execution = await api().get(`/executions/${run.body.execution_id}`).set(account.auth).expect(200);
    return { id: run.body.execution_id as string, status: execution.body.data.status as string, screenshotIds: execution.body.data.screenshot_ids as number[] };
  }

  beforeAll(async () => {
    site = await new PageServer({ '/': landingPage('Acme Rockets', '#2454d6'), '/blog': landingPage('Acme Blog', '#0f766e', true) }).start();
    t = await startTestApp();
    const stamp = Date.now();
    alice = await t.createAccount({ plan: 'business', name: 'Alice', email: `alice-pages-${stamp}@example.com` });
    bob = await t.createAccount({ plan: 'pro', name: 'Bob', email: `bob-pages-${stamp}@example.com` });
    sam = await t.createAccount({ plan: 'starter', name: 'Sam', email: `sam-pages-${stamp}@example.com` });
    for (const account of [alice, bob, sam]) await t.app.get(AccountsService).setPassword(account.email, PASSWORD);

    ids.home = await createWebsite(alice, 'Acme home', '/');
    ids.blog = await createWebsite(alice, 'Acme blog', '/blog');
    ids.bobSite = await createWebsite(bob, 'Bob site', '/');
    ids.samSite = await createWebsite(sam, 'Sam site', '/');
    const schedule = await api()
      .post('/schedules')
      .set(alice.auth)
      .send({ name: 'Every morning', website_id: ids.home, frequency: 'daily', time: '07:30', timezone: 'Europe/Berlin' })
      .expect(201);
    ids.schedule = schedule.body.data.id;

    ids.shotApi = await apiCapture(alice, ids.home);
    ids.shotFull = await apiCapture(alice, ids.blog, { full_page: true });
    ids.shotDashboard = await sourcedCapture(alice, ids.home, 'dashboard');
    ids.shotSchedule = await sourcedCapture(alice, ids.home, 'schedule', ids.schedule);
    const ok = await runScenario(alice, ids.home, 'Look around', [{ type: 'wait', duration: 10 }, { type: 'screenshot' }]);
    expect(ok.status).toBe('succeeded');
    expect(ok.screenshotIds).toHaveLength(1); // the last step's shot is the final one, stored once
    ids.okRun = ok.id;
    ids.shotScenario = ok.screenshotIds[0];
    const failed = await runScenario(alice, ids.blog, 'Find the missing button', [
      { type: 'screenshot', full_page: true },
      { type: 'wait_for', selector: '#missing', timeout: 300 },
    ]);
    expect(failed.status).toBe('failed');
    expect(failed.screenshotIds).toHaveLength(2);
    ids.failedRun = failed.id;
    [ids.shotStep, ids.shotFailure] = [...failed.screenshotIds].sort((x, y) => x - y);
    ids.shotBob = await apiCapture(bob, ids.bobSite);
    ids.shotSam = await apiCapture(sam, ids.samSite);

    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await site?.stop();
  });

  describe('gallery over HTTP', () => {
    it('each tile says where it came from (API, dashboard, schedule, scenario, failed run) and whether it is a full page', async () => {
      const page = await a.get('/dashboard/screenshots');
      expect(page.status).toBe(200);
      const shown = tiles(page.text);
      expect([...shown.keys()].sort((x, y) => x - y)).toEqual(
        [ids.shotApi, ids.shotFull, ids.shotDashboard, ids.shotSchedule, ids.shotScenario, ids.shotStep, ids.shotFailure].sort((x, y) => x - y),
      );
      const sourceOf = (id: number) => [...(shown.get(id) ?? '').matchAll(/class="badge source source-(\w+)"/g)].map((m) => m[1]);
      const fullPage = (id: number) => (shown.get(id) ?? '').includes('<span class="badge full-page"');
      expect({
        api: sourceOf(ids.shotApi),
        full: sourceOf(ids.shotFull),
        dashboard: sourceOf(ids.shotDashboard),
        schedule: sourceOf(ids.shotSchedule),
        scenario: sourceOf(ids.shotScenario),
        step: sourceOf(ids.shotStep),
        failure: sourceOf(ids.shotFailure),
      }).toEqual({
        api: ['api'],
        full: ['api'],
        dashboard: ['dashboard'],
        schedule: ['schedule'],
        scenario: ['scenario'],
        step: ['scenario'],
        failure: ['failure'],
      });
      expect([ids.shotApi, ids.shotFull, ids.shotDashboard, ids.shotStep, ids.shotFailure].map(fullPage)).toEqual([false, true, false, true, false]);
      // The tile is a link to the screenshot's page that the script turns into the lightbox.
      expect(shown.get(ids.shotApi)).toContain(
        `<a href="/dashboard/screenshots/${ids.shotApi}" data-lightbox data-full="/dashboard/screenshots/${ids.shotApi}/image" data-caption="Acme home · `,
      );
      // The screenshot's own page says it too, and links the run it came from.
      const failure = await a.get(`/dashboard/screenshots/${ids.shotFailure}`);
      expect(failure.text).toContain('class="badge source source-failure"');
      expect(failure.text).toContain(`<a href="/dashboard/executions/${ids.failedRun}">scenario run</a>`);
    });

    it('filters narrow the list: website, search by name or URL (any case, % and _ literal), date range; the form keeps them', async () => {
      const shownFor = async (query: string) => [...tiles((await a.get(`/dashboard/screenshots?${query}`)).text).keys()].sort((x, y) => x - y);
      const blog = [ids.shotFull, ids.shotStep, ids.shotFailure].sort((x, y) => x - y);
      const home = [ids.shotApi, ids.shotDashboard, ids.shotSchedule, ids.shotScenario].sort((x, y) => x - y);
      expect(await shownFor(`website_id=${ids.blog}`)).toEqual(blog);
      expect(await shownFor('q=BLOG')).toEqual(blog);
      expect(await shownFor(`q=${encodeURIComponent('/blog')}`)).toEqual(blog); // the URL
      expect(await shownFor('q=acme+home')).toEqual(home);
      expect(await shownFor('q=%25')).toEqual([]);
      expect(await shownFor('q=acme_home')).toEqual([]);
      expect(await shownFor(`q=Bob`)).toEqual([]); // another account's website never matches

      // One screenshot ten days back: the range picks it alone, or leaves it out.
      const past = new Date(Date.now() - 10 * 86_400_000);
      const dataSource = t.app.get(DataSource);
      await dataSource.query(
        dataSource.options.type === 'postgres' ? 'UPDATE screenshots SET taken_at = $1 WHERE id = $2' : 'UPDATE screenshots SET taken_at = ? WHERE id = ?',
        [dataSource.options.type === 'postgres' ? past : DateUtils.mixedDateToUtcDatetimeString(past), ids.shotApi],
      );
      const day = (d: Date) => d.toISOString().slice(0, 10);
      expect(await shownFor(`from=${day(past)}&to=${day(past)}`)).toEqual([ids.shotApi]);
      const today = day(new Date());
      expect(await shownFor(`from=${today}`)).toEqual([...home, ...blog].filter((id) => id !== ids.shotApi).sort((x, y) => x - y));
      expect(await shownFor(`to=${day(new Date(Date.now() - 11 * 86_400_000))}`)).toEqual([]);
      expect(await shownFor(`from=${day(past)}&website_id=${ids.blog}`)).toEqual(blog);
      expect(await shownFor('from=not-a-day')).toHaveLength(7); // ignored, not an error

      const page = await a.get(`/dashboard/screenshots?website_id=${ids.blog}&q=acme&from=${day(past)}&to=${today}`);
      expect(page.text).toContain(`<option value="${ids.blog}" selected>Acme blog</option>`);
      expect(page.text).toContain('<input type="search" id="search" name="q" maxlength="200" value="acme">');
      expect(page.text).toContain(`<input type="date" id="from" name="from" value="${day(past)}">`);
      expect(page.text).toContain(`<input type="date" id="to" name="to" value="${today}">`);
      const none = await a.get('/dashboard/screenshots?q=nothing-like-this');
      expect(none.text).toContain('<p class="muted">No screenshots match these filters.</p>');
    });

    it("bulk ZIP streams exactly the selected screenshots; another account's id → 404; Starter gets the plan message", async () => {
      const selected = [ids.shotSchedule, ids.shotFailure];
      const res = await a.submit('/dashboard/screenshots/download', { ids: selected }, { binary: true });
      expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 200, type: 'application/zip' });
      const entries = new AdmZip(res.body as Buffer).getEntries();
      expect(entries.map((e) => e.entryName)).toEqual([`${ids.shotSchedule}-Acme-home.png`, `${ids.shotFailure}-Acme-blog.png`]);
      for (const [i, id] of selected.entries()) {
        expect(Buffer.compare(entries[i].getData(), readFileSync(storagePath((await findShot(alice, id))!.filePath)))).toBe(0);
      }
      const foreign = await a.submit('/dashboard/screenshots/download', { ids: [ids.shotSchedule, ids.shotBob] });
      expect({ status: foreign.status, type: foreign.headers['content-type'] }).toEqual({ status: 404, type: HTML });
      expect(foreign.headers['content-disposition']).toBeUndefined();

      const s = await new DashboardClient(t.url).signInOk(sam.email, PASSWORD);
      const starter = await s.submit('/dashboard/screenshots/download', { ids: [ids.shotSam] }, { binary: true });
      expect({ status: starter.status, type: starter.headers['content-type'] }).toEqual({ status: 403, type: HTML });
      expect((starter.body as Buffer).toString('utf8')).toContain('Bulk download requires the Pro or Business plan');
    });

    it('bulk delete: a confirmation page of exactly the selection first; then the rows and their files go', async () => {
      const doomed = [await apiCapture(alice, ids.blog), await apiCapture(alice, ids.blog)];
      const files = [];
      for (const id of doomed) {
        const shot = (await findShot(alice, id))!;
        expect((await a.get(`/dashboard/screenshots/${id}/thumbnail`, { binary: true })).status).toBe(200);
        files.push(storagePath(shot.filePath), storagePath(shot.filePath).replace(/\.png$/, '.thumb.webp'));
      }
      expect(files.map((f) => existsSync(f))).toEqual([true, true, true, true]);

      const confirm = await a.submit('/dashboard/screenshots/delete', { ids: doomed });
      expect({ status: confirm.status, type: confirm.headers['content-type'] }).toEqual({ status: 200, type: HTML });
      expect(confirm.text).toContain('<h1>Delete 2 screenshots?</h1>');
      const carried = [...confirm.text.matchAll(/<input type="hidden" name="ids" value="(\d+)">/g)].map((m) => Number(m[1]));
      expect(carried.sort()).toEqual([...doomed].sort());
      expect(confirm.text).toContain('<input type="hidden" name="confirmed" value="1">');
      for (const id of doomed) expect(await findShot(alice, id)).not.toBeNull(); // asked, not done

      const res = await a.submit('/dashboard/screenshots/delete', { ids: doomed, confirmed: 1 });
      expect({ status: res.status, location: res.headers.location }).toEqual({ status: 303, location: '/dashboard/screenshots?notice=screenshots-deleted' });
      for (const id of doomed) expect(await findShot(alice, id)).toBeNull();
      expect(files.map((f) => existsSync(f))).toEqual([false, false, false, false]);
      const after = await a.get('/dashboard/screenshots?notice=screenshots-deleted');
      expect(after.text).toContain('<div class="notice ok" role="status">The selected screenshots were deleted.</div>');
      for (const id of doomed) expect(tiles(after.text).has(id)).toBe(false);
      const nothing = await a.submit('/dashboard/screenshots/delete', { confirmed: 1 });
      expect({ status: nothing.status, location: nothing.headers.location }).toEqual({
        status: 303,
        location: '/dashboard/screenshots?notice=nothing-selected',
      });
    });

    it("bulk delete with another account's screenshot id in the form → 404 page and nothing is deleted; without the CSRF token → 403", async () => {
      const mine = await apiCapture(alice, ids.home);
      const foreign = await a.submit('/dashboard/screenshots/delete', { ids: [mine, ids.shotBob], confirmed: 1 });
      expect({ status: foreign.status, type: foreign.headers['content-type'] }).toEqual({ status: 404, type: HTML });
      expect(foreign.text).toContain('Screenshot not found');
      const unknown = await a.submit('/dashboard/screenshots/delete', { ids: [mine, 99_999_999], confirmed: 1 });
      expect(unknown.status).toBe(404);
      expect(await findShot(alice, mine)).not.toBeNull();
      expect(await findShot(bob, ids.shotBob)).not.toBeNull();
      expect(existsSync(storagePath((await findShot(bob, ids.shotBob))!.filePath))).toBe(true);

      const forged = await a.post('/dashboard/screenshots/delete', { ids: [mine], confirmed: 1 });
      expect({ status: forged.status, type: forged.headers['content-type'] }).toEqual({ status: 403, type: HTML });
      const otherSite = await a.post(
        '/dashboard/screenshots/delete',
        { ids: [mine], confirmed: 1, _csrf: await a.csrf() },
        { headers: { Origin: 'https://evil.example' } },
      );
      expect(otherSite.status).toBe(403);
      expect(await findShot(alice, mine)).not.toBeNull();
      await a.submit(`/dashboard/screenshots/${mine}/delete`);
    });
  });

  describe('overview and API keys over HTTP', () => {
    it('overview: usage of the last 24 hours by hour and 30 days by day as SVG charts with a title, a description and the numbers as a table', async () => {
      const page = await a.get('/dashboard');
      expect(page.status).toBe(200);
      for (const key of ['24h', '30d']) {
        for (const chart of ['jobs', 'storage']) {
          expect(page.text).toMatch(
            new RegExp(
              `<svg class="chart" viewBox="0 0 640 180" role="img" aria-labelledby="${key}-${chart}-title ${key}-${chart}-desc" focusable="false">\\s*<title id="${key}-${chart}-title">`,
            ),
          );
          expect(page.text).toContain(`<desc id="${key}-${chart}-desc">`);
        }
      }
      const panel = (key: string) => new RegExp(`<section class="card usage-panel" id="usage-${key}"[\\s\\S]*?</section>`).exec(page.text)![0];
      const rows = (key: string) =>
        [...panel(key).matchAll(/<tr><th scope="row">[^<]*<\/th><td>(\d+)<\/td><td>(\d+)<\/td>/g)].map((m) => [Number(m[1]), Number(m[2])]);
      expect(rows('24h')).toHaveLength(24);
      expect(rows('30d')).toHaveLength(30);
      // Alice's jobs so far (every one of them today): captures, two scenario runs, one of which failed.
      const jobs = (await api().get('/jobs?per_page=100').set(alice.auth).expect(200)).body.data as Array<{ status: string }>;
      const sum = (key: string) => rows(key).reduce(([j, f], [rj, rf]) => [j + rj, f + rf], [0, 0]);
      const expected = [jobs.length, jobs.filter((j) => j.status === 'failed').length];
      expect(expected[1]).toBe(1);
      expect(sum('24h')).toEqual(expected);
      expect(sum('30d')).toEqual(expected);
      // Storage: every kept screenshot counted once, the one moved ten days back only in the 30 days.
      const shots = (await t.app.get(ScreenshotRepository).list(alice.id, { page: 1, perPage: 100 }, {})).items;
      const total = shots.reduce((n, s) => n + s.fileSize, 0);
      const moved = shots.find((s) => s.id === ids.shotApi)!;
      expect(page.text).toContain(`<p class="muted">Screenshots kept: ${sizeText(total)} in all.</p>`);
      expect(panel('30d')).toContain(`${jobs.length} jobs, 1 failed, ${sizeText(total)} of screenshots stored.`);
      expect(panel('24h')).toContain(`${jobs.length} jobs, 1 failed, ${sizeText(total - moved.fileSize)} of screenshots stored.`);
      // Bob's page counts only Bob's.
      const b = await new DashboardClient(t.url).signInOk(bob.email, PASSWORD);
      expect((await b.get('/dashboard')).text).toContain('1 job, 0 failed');
    });

    it('API keys: revoked tokens folded away in a <details>; a curl example with a placeholder, or the new token while it is shown', async () => {
      const made = await a.submit('/dashboard/settings/api-keys', { name: 'to be revoked' });
      expect(made.status).toBe(303);
      const shown = await a.get('/dashboard/settings/api-keys');
      const secret = /id="new-token-value" readonly value="(sst_[A-Za-z0-9_-]{43})"/.exec(shown.text)![1];
      expect(shown.text).toContain(
        `<textarea id="curl-command" class="curl" rows="2" readonly spellcheck="false">curl -sS &#39;${t.url}/websites&#39; \\\n  -H &#39;Authorization: Bearer ${secret}&#39;</textarea>`,
      );
      const id = Number(/<tr data-token-id="(\d+)">\s*<td>to be revoked<\/td>/.exec(shown.text)![1]);
      expect((await a.submit(`/dashboard/settings/api-keys/${id}/revoke`)).status).toBe(303);
      const list = await a.get('/dashboard/settings/api-keys');
      expect(list.text).not.toContain(secret);
      expect(list.text).toContain(`-H &#39;Authorization: Bearer YOUR_API_TOKEN&#39;</textarea>`);
      const folded = /<details class="revoked-tokens"><summary>Revoked tokens \((\d+)\)<\/summary>([\s\S]*?)<\/details>/.exec(list.text);
      expect(folded).not.toBeNull();
      expect(folded![1]).toBe('1');
      expect(folded![2]).toContain(`<tr data-token-id="${id}">`);
      const outside = list.text.replace(folded![0], '');
      expect(outside).not.toContain(`data-token-id="${id}"`);
      expect(outside).toMatch(/<tr data-token-id="\d+">/); // the account's active token stays in view
      // The curl example works as printed (with a real token).
      const curlUrl = `${t.url}/websites`;
      await api().get(new URL(curlUrl).pathname).set(alice.auth).expect(200);
    });
  });

  describe('in a real browser', () => {
    let browser: Browser;
    let page: Page;

    const signIn = async (p: Page) => {
      await p.goto(`${t.url}/dashboard/login`, { waitUntil: 'load' });
      await p.type('#email', alice.email);
      await p.type('#password', PASSWORD);
      await Promise.all([p.waitForNavigation({ waitUntil: 'load' }), p.click('button[type=submit]')]);
      expect(new URL(p.url()).pathname).toBe('/dashboard');
    };
    const overflow = (p: Page) => p.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    const save = async (p: Page, name: string, fullPage = true) => {
      if (!SHOTS_DIR) return;
      // Lazy thumbnails below the fold would be blank in a full-page picture: load them all first (bounded).
      await p.$$eval('img[loading="lazy"]', (imgs) => imgs.forEach((img) => (img.loading = 'eager')));
      await p.waitForFunction(() => Array.from(document.images).every((img) => img.complete), { timeout: 10_000 }).catch(() => undefined);
      const path = join(SHOTS_DIR, `${name}.png`);
      await p.screenshot({ path, fullPage });
      expect(readFileSync(path).subarray(1, 4).toString()).toBe('PNG');
    };

    beforeAll(async () => {
      if (SHOTS_DIR) mkdirSync(SHOTS_DIR, { recursive: true });
      browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
      page = await browser.newPage();
      await page.setViewport(DESKTOP);
      await signIn(page);
    });

    afterAll(async () => {
      await browser?.close();
    });

    /**
     * Follows every same-origin /dashboard link from the navigation on, one page per path pattern (ids
     * replaced), at most MAX_PAGES. Returns the pages that are wider than the screen, by path.
     */
    async function crawl(viewport: { width: number; height: number }, suffix: string | null) {
      await page.setViewport(viewport);
      const origin = new URL(t.url).origin;
      const queue = ['/dashboard'];
      const seen = new Set<string>([pathPattern('/dashboard')]);
      const visited: string[] = [];
      const tooWide: string[] = [];
      const broken: string[] = [];
      const noNavigation: string[] = [];
      while (queue.length && visited.length < MAX_PAGES) {
        const path = queue.shift()!;
        const res = await page.goto(`${t.url}${path}`, { waitUntil: 'load' });
        visited.push(path);
        if (res?.status() !== 200 || !res.headers()['content-type']?.startsWith('text/html')) {
          // A job keeps the id of a screenshot deleted since (the tests above delete some): that page is a 404 by
          // design, and another link of the same kind is taken instead.
          const gone = /^\/dashboard\/screenshots\/(\d+)$/.exec(path);
          if (res?.status() === 404 && gone && (await findShot(alice, Number(gone[1]))) === null) seen.delete(pathPattern(path));
          else broken.push(`${path} → ${res?.status()}`);
          continue;
        }
        const { scroll, client } = await overflow(page);
        if (scroll > client) tooWide.push(`${path}: ${scroll} px wide at ${client} px`);
        if (!(await page.$('nav.main')) || !(await page.$('details.menu'))) noNavigation.push(path);
        const name = PICTURES[pathPattern(new URL(page.url()).pathname)];
        if (name && suffix) await save(page, `${name}-${suffix}`);
        const links = await page.$$eval('a[href]', (as) => as.map((el) => el.href));
        for (const href of links) {
          const url = new URL(href);
          if (!crawlable(url, origin)) continue;
          const key = pathPattern(url.pathname);
          if (seen.has(key)) continue;
          seen.add(key);
          queue.push(url.pathname + url.search);
        }
      }
      return { visited, tooWide, broken, noNavigation };
    }

    it('no page the navigation reaches is wider than the screen at 390x844 (crawl of every /dashboard link), and the sign-in page neither', async () => {
      const { visited, tooWide, broken, noNavigation } = await crawl(PHONE, 'phone');
      expect(broken).toEqual([]);
      expect(tooWide).toEqual([]);
      expect(noNavigation).toEqual([]);
      // The navigation's pages and the detail pages the seeded content links to were all reached.
      const patterns = visited.map((p) => pathPattern(p.split('?')[0]));
      for (const pattern of [
        '/dashboard',
        '/dashboard/websites',
        '/dashboard/screenshots',
        '/dashboard/screenshots/:id',
        '/dashboard/scenarios',
        '/dashboard/schedules',
        '/dashboard/settings/api-keys',
        '/dashboard/settings/render-keys',
      ]) {
        expect(patterns).toContain(pattern);
      }
      expect(visited.length).toBeGreaterThanOrEqual(10);

      const anonymous = await browser.createBrowserContext();
      const signInPage = await anonymous.newPage();
      await signInPage.setViewport(PHONE);
      await signInPage.goto(`${t.url}/dashboard/login`, { waitUntil: 'load' });
      const size = await overflow(signInPage);
      expect(size.scroll).toBeLessThanOrEqual(size.client);
      await save(signInPage, 'sign-in-phone');
      await signInPage.setViewport(DESKTOP);
      await save(signInPage, 'sign-in-desktop');
      await anonymous.close();
    }, 240_000);

    it('nor at 360x740, the narrowest phone the issue names', async () => {
      const { tooWide, broken, visited } = await crawl({ width: 360, height: 740 }, null);
      expect(broken).toEqual([]);
      expect(tooWide).toEqual([]);
      expect(visited.length).toBeGreaterThanOrEqual(10);
    }, 240_000);

    it('an error page (404) keeps the navigation and fits a phone', async () => {
      for (const [viewport, suffix] of [
        [PHONE, 'phone'],
        [DESKTOP, 'desktop'],
      ] as const) {
        await page.setViewport(viewport);
        const res = await page.goto(`${t.url}/dashboard/screenshots/99999999`, { waitUntil: 'load' });
        expect(res?.status()).toBe(404);
        expect(await page.$('nav.main')).not.toBeNull();
        expect(await page.$('details.menu')).not.toBeNull();
        const size = await overflow(page);
        expect(size.scroll).toBeLessThanOrEqual(size.client);
        await save(page, `not-found-${suffix}`);
      }
    });

    it('no page is wider than the screen at 1280x800 either', async () => {
      const { tooWide, broken, visited } = await crawl(DESKTOP, 'desktop');
      expect(broken).toEqual([]);
      expect(tooWide).toEqual([]);
      expect(visited.length).toBeGreaterThanOrEqual(10);
    }, 240_000);

    it('on a phone the navigation is a Menu that opens without script and leads to every section; on a desktop it is in the bar', async () => {
      await page.setViewport(PHONE);
      await page.setJavaScriptEnabled(false);
      await page.goto(`${t.url}/dashboard/screenshots`, { waitUntil: 'load' });
      const visible = (selector: string) =>
        page.$eval(selector, (el) => (el as HTMLElement).offsetParent !== null || getComputedStyle(el).position === 'fixed');
      expect(await visible('nav.main')).toBe(false);
      expect(await visible('details.menu > summary')).toBe(true);
      const headerHeight = await page.$eval('header.top', (h) => h.getBoundingClientRect().height);
      expect(headerHeight).toBeLessThanOrEqual(64); // not a 280 px list any more
      await page.click('details.menu > summary');
      expect(await page.$eval('details.menu', (d) => d.open)).toBe(true);
      const labels = await page.$$eval('.menu-links a', (as) => as.map((el) => el.textContent));
      expect(labels).toEqual(expect.arrayContaining(['Overview', 'Websites', 'Screenshots', 'Scenarios', 'Schedules', 'API Keys', 'API docs']));
      expect(await page.$eval('.menu-links a[aria-current="page"]', (el) => el.textContent)).toBe('Screenshots');
      const size = await overflow(page);
      expect(size.scroll).toBeLessThanOrEqual(size.client);
      await save(page, 'menu-phone', false);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('.menu-links a[href="/dashboard/settings/api-keys"]')]);
      expect(new URL(page.url()).pathname).toBe('/dashboard/settings/api-keys');

      // Without the script a gallery tile is a plain link to the screenshot's page.
      await page.goto(`${t.url}/dashboard/screenshots`, { waitUntil: 'load' });
      const first = await page.$eval('.gallery li', (li) => li.getAttribute('data-screenshot-id'));
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('.gallery li a')]);
      expect(new URL(page.url()).pathname).toBe(`/dashboard/screenshots/${first}`);
      await page.setJavaScriptEnabled(true);

      // With the script, Escape or a tap outside closes the open menu.
      await page.goto(`${t.url}/dashboard`, { waitUntil: 'load' });
      const isOpen = () => page.$eval('details.menu', (d) => d.open);
      await page.click('details.menu > summary');
      expect(await isOpen()).toBe(true);
      await page.keyboard.press('Escape');
      expect(await isOpen()).toBe(false);
      await page.click('details.menu > summary');
      await page.mouse.click(PHONE.width / 2, PHONE.height - 20); // below the open panel
      expect(await isOpen()).toBe(false);

      await page.setViewport(DESKTOP);
      await page.goto(`${t.url}/dashboard`, { waitUntil: 'load' });
      expect(await visible('nav.main')).toBe(true);
      expect(await visible('details.menu')).toBe(false);
      const bar = await page.$eval('header.top .inner', (el) => el.getBoundingClientRect().height);
      expect(bar).toBeLessThanOrEqual(64); // the navigation fits in one line
    });

    it('lightbox: a tile opens it; next / previous by button and arrow keys, zoom, Esc closes and gives the focus back', async () => {
      await page.setViewport(DESKTOP);
      await page.goto(`${t.url}/dashboard/screenshots`, { waitUntil: 'load' });
      const order = await page.$$eval('.gallery li', (items) => items.map((li) => Number(li.getAttribute('data-screenshot-id'))));
      expect(order.length).toBeGreaterThanOrEqual(3);
      const state = () =>
        page.evaluate(() => {
          const dialog = document.querySelector<HTMLDialogElement>('dialog.lightbox');
          const img = dialog?.querySelector('img.lb-image') as HTMLImageElement | null;
          return {
            open: Boolean(dialog?.open),
            index: dialog?.getAttribute('data-index') ?? null,
            src: img?.getAttribute('src') ?? null,
            zoomed: Boolean(dialog?.classList.contains('zoomed')),
            title: dialog?.querySelector('.lb-title')?.textContent ?? null,
          };
        });
      const loaded = () =>
        page.waitForFunction(() => (document.querySelector('dialog.lightbox img.lb-image') as HTMLImageElement).naturalWidth > 0, { timeout: 10_000 });

      await page.click(`.gallery li[data-screenshot-id="${order[0]}"] a`);
      await loaded();
      expect(new URL(page.url()).pathname).toBe('/dashboard/screenshots'); // no navigation
      expect(await state()).toMatchObject({ open: true, index: '0', src: `/dashboard/screenshots/${order[0]}/image`, zoomed: false });
      expect((await state()).title).toMatch(/^Acme (home|blog) · \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      await save(page, 'lightbox-desktop', false);
      expect(await page.$eval('dialog.lightbox .lb-prev', (b) => (b as HTMLButtonElement).disabled)).toBe(true);

      await page.keyboard.press('ArrowRight');
      expect(await state()).toMatchObject({ index: '1', src: `/dashboard/screenshots/${order[1]}/image` });
      await page.click('dialog.lightbox .lb-next');
      expect(await state()).toMatchObject({ index: '2', src: `/dashboard/screenshots/${order[2]}/image` });
      await page.keyboard.press('ArrowLeft');
      expect(await state()).toMatchObject({ index: '1' });
      await page.click('dialog.lightbox .lb-prev');
      expect(await state()).toMatchObject({ index: '0' });
      await page.keyboard.press('ArrowLeft'); // already the first: stays
      expect(await state()).toMatchObject({ index: '0' });

      await loaded();
      await page.click('dialog.lightbox .lb-zoom');
      expect(await state()).toMatchObject({ zoomed: true });
      const zoomedWidth = await page.$eval('dialog.lightbox img.lb-image', (img) => [img.getBoundingClientRect().width, img.naturalWidth]);
      expect(zoomedWidth[0]).toBe(zoomedWidth[1]); // full size
      await page.keyboard.press('-');
      expect(await state()).toMatchObject({ zoomed: false });
      await page.keyboard.press('z');
      expect(await state()).toMatchObject({ zoomed: true });

      await page.keyboard.press('Escape');
      expect(await state()).toMatchObject({ open: false });
      expect(await page.evaluate(() => document.activeElement?.closest('li')?.getAttribute('data-screenshot-id'))).toBe(String(order[0]));

      // On a phone (a touch screen) the viewer fits the screen too, and a swipe goes to the next or previous one.
      await page.setViewport({ ...PHONE, hasTouch: true, isMobile: true });
      await page.goto(`${t.url}/dashboard/screenshots`, { waitUntil: 'load' });
      await page.tap(`.gallery li[data-screenshot-id="${order[1]}"] a`);
      await loaded();
      const size = await overflow(page);
      expect(size.scroll).toBeLessThanOrEqual(size.client);
      await save(page, 'lightbox-phone', false);
      expect(await state()).toMatchObject({ index: '1' });
      // Touch events reach the page's script after puppeteer's call returns (the compositor acknowledges them first),
      // so the viewer's index is awaited, for at most 2 s.
      const swipe = async (from: number, to: number, index: string) => {
        await page.touchscreen.touchStart(from, 400);
        await page.touchscreen.touchMove((from + to) / 2, 400);
        await page.touchscreen.touchMove(to, 400);
        await page.touchscreen.touchEnd();
        await page
          .waitForFunction((i) => document.querySelector('dialog.lightbox')?.getAttribute('data-index') === i, { timeout: 2_000 }, index)
          .catch(() => undefined);
      };
      await swipe(300, 80, '2'); // to the left: the next one
      expect(await state()).toMatchObject({ index: '2' });
      await swipe(80, 300, '1');
      expect(await state()).toMatchObject({ index: '1' });
      await page.keyboard.press('Escape');
      expect(await state()).toMatchObject({ open: false });
      await page.setViewport(DESKTOP);
    });

    it('bulk delete from the page: select two tiles, confirm, they are gone (rows and files)', async () => {
      const doomed = [await apiCapture(alice, ids.home), await apiCapture(alice, ids.home)];
      const files = await Promise.all(doomed.map(async (id) => storagePath((await findShot(alice, id))!.filePath)));
      await page.setViewport(PHONE);
      await page.goto(`${t.url}/dashboard/screenshots`, { waitUntil: 'load' });
      for (const id of doomed) await page.click(`input[name="ids"][value="${id}"]`);
      const asked: string[] = [];
      page.once('dialog', (dialog) => {
        asked.push(dialog.message());
        void dialog.accept();
      });
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#delete-selected')]);
      expect(asked).toEqual(['Delete the selected screenshots? This cannot be undone.']);
      expect(new URL(page.url()).search).toBe('?notice=screenshots-deleted');
      const left = await page.$$eval('.gallery li', (items) => items.map((li) => Number(li.getAttribute('data-screenshot-id'))));
      for (const id of doomed) {
        expect(left).not.toContain(id);
        expect(await findShot(alice, id)).toBeNull();
      }
      expect(files.map((f) => existsSync(f))).toEqual([false, false]);
      await page.setViewport(DESKTOP);
    });
  });
});
