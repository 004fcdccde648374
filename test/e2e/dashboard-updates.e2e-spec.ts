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
import { WebsitesService } from '../../src/modules/websites/application/websites.service';
import { DashboardClient } from '../support/dashboard-session';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Issue 31, the dashboard's updates: a website created in the dashboard takes its first screenshot (and the list
 * says so until that job ends); every form error in people's words (field labels, steps counted from 1) while the
 * API's 422 bodies keep theirs; a "Capture a URL" box on the overview whose result appears on the page; scenario
 * steps added, removed and moved in the page where script runs (and by posting the form where it does not). Over
 * HTTP and in real Chromium at 1280×800 and 390×844; pictures to DASHBOARD_SCREENSHOTS when set
 * (`DASHBOARD_SCREENSHOTS=docs/dashboard npx jest test/e2e/dashboard-updates`).
 */

const PASSWORD = 'dashboard updates password';
const START = Date.parse('2031-05-04T09:00:00.000Z');
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : mkdtempSync(join(tmpdir(), 'dashboard-updates-'));
mkdirSync(SHOTS_DIR, { recursive: true });

function landing(title: string, accent: string): string {
  return `<!doctype html><html><head><title>${title}</title><style>body{margin:0;font-family:sans-serif}
    header{background:${accent};color:#fff;padding:40px}</style></head><body><header><h1>${title}</h1></header><p>Hello.</p></body></html>`;
}

/** Every error text a dashboard page shows (beside fields, in summaries, general notices), tags stripped. */
function errorTexts(html: string): string[] {
  const texts = [
    ...html.matchAll(/<p class="field-error"[^>]*>([\s\S]*?)<\/p>/g),
    ...html.matchAll(/<div class="notice error"[^>]*>([\s\S]*?)<\/div>/g),
    ...html.matchAll(/<ul class="error-summary[^"]*"[^>]*>([\s\S]*?)<\/ul>/g),
  ].map((m) =>
    m[1]
      .replace(/<[^>]+>/g, ' ')
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/\s+/g, ' ')
      .trim(),
  );
  return texts.filter((t) => t !== '');
}

/** Words a form's choices hold as they are (a select's own values): not field names. */
const VALUES = new Set(['network_idle', 'wait_for']);
/** A snake_case word that is not one of those values: a field's wire name leaking onto the page. */
const wireNames = (text: string) => [...text.matchAll(/\b[a-z]+(?:_[a-z0-9]+)+\b/g)].map((m) => m[0]).filter((w) => !VALUES.has(w));

/** The page's error texts, checked for wire names and indexes; joined, for `toContain`. */
function expectPeoplesWords(res: Response, what: string): string {
  expect({ what, status: res.status }).toEqual({ what, status: 422 });
  const texts = errorTexts(res.text);
  expect({ what, count: texts.length > 0 }).toEqual({ what, count: true });
  for (const text of texts) {
    expect({ what, text, wire: wireNames(text), index: /\[\d+\]/.test(text) }).toEqual({ what, text, wire: [], index: false });
  }
  return texts.join('\n');
}

describe('Dashboard updates (issue 31)', () => {
  let t: TestApp;
  let site: PageServer;
  let alice: TestAccount;
  let a: DashboardClient;
  let websites: WebsitesService;
  let aliceSite = 0;

  const api = () => request(t.url);
  const freshMinute = () => {
    const now = t.clock.now().getTime();
    t.clock.set(new Date(Math.floor(now / 60_000) * 60_000 + 60_000 + 5_000));
  };
  const jobsOf = async (websiteId: number) =>
    (await t.app.get(JobRepository).list(alice.id, { page: 1, perPage: 10 }, { websiteId })).items.map((j) => ({ id: j.id, source: j.source, type: j.type }));
  const websiteNamed = async (name: string) => (await websites.list(alice.id, { page: 1, perPage: 100 })).items.find((w) => w.name === name);

  beforeAll(async () => {
    site = await new PageServer({
      '/': landing('Acme Rockets', '#2454d6'),
      '/blog': landing('Acme Blog', '#0f766e'),
      // Answered after 4 s: a capture of it is still unfinished when a page showing its job is drawn.
      '/slow': (_req, res) => {
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(landing('Acme Slow', '#7c3aed')), 4_000);
      },
    }).start();
    t = await startTestApp({ env: { SIGN_IN_LIMIT_PER_MINUTE: '100000', DASHBOARD_LIMIT_PER_MINUTE: '100000' } });
    t.clock.set(new Date(START));
    websites = t.app.get(WebsitesService);
    alice = await t.createAccount({ plan: 'pro', name: 'Alice' });
    await t.app.get(AccountsService).setPassword(alice.email, PASSWORD);
    aliceSite = (await websites.create(alice.id, { name: 'Alice home', url: `${site.url}/` })).id;
    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
  });

  afterAll(async () => {
    await t?.close();
    await site?.stop();
  });

  beforeEach(() => freshMinute());

  describe('over HTTP', () => {
    it('a website created in the dashboard takes its first screenshot; the list says so, and says when that job has ended', async () => {
      const res = await a.submit('/dashboard/websites', { name: 'First capture', url: `${site.url}/blog`, status: 'active' });
      expect({ status: res.status, location: res.headers.location }).toEqual({ status: 303, location: '/dashboard/websites?notice=website-created-capturing' });
      const made = (await websiteNamed('First capture'))!;
      const jobs = await jobsOf(made.id);
      expect(jobs).toEqual([{ id: expect.any(String), source: 'dashboard', type: 'screenshot' }]);

      const done = await waitForJob(t.url, alice.auth, jobs[0].id);
      expect(done.status).toBe('succeeded');
      const after = await a.get('/dashboard/websites?notice=website-created-capturing');
      expect(after.text).toContain(
        '<div class="notice info" role="status">Website created. Its first screenshot job has ended: the Last job column shows how it went.</div>',
      );
      expect(after.text).not.toContain('http-equiv="refresh"');

      // Created paused: nothing is captured, and the notice says so.
      const paused = await a.submit('/dashboard/websites', { name: 'Paused one', url: `${site.url}/`, status: 'paused' });
      expect(paused.headers.location).toBe('/dashboard/websites?notice=website-created-paused');
      expect(await jobsOf((await websiteNamed('Paused one'))!.id)).toEqual([]);
      expect((await a.get(paused.headers.location)).text).toContain('Website created, paused: no screenshot was taken');
    });

    it('while the first screenshot is queued, the list promises a refresh and refreshes; once it has ended, it says so and stops', async () => {
      const queued = 'Website created. Its first screenshot is being taken: this page refreshes until it has finished.';
      const ended = 'Website created. Its first screenshot job has ended: the Last job column shows how it went.';
      const res = await a.submit('/dashboard/websites', { name: 'Queued one', url: `${site.url}/`, status: 'active' });
      const list = await a.get(res.headers.location);
      const [job] = await jobsOf((await websiteNamed('Queued one'))!.id);
      const after = (await api().get(`/jobs/${job.id}`).set(alice.auth)).body.data?.status as string;
      // Still unfinished after the page was made: the page promised the refresh, and refreshes.
      if (after === 'queued' || after === 'running') expect(list.text).toContain(queued);
      // Whichever the page said, it said it with (or without) the refresh that goes with it.
      if (list.text.includes(queued)) expect(list.text).toContain('<meta http-equiv="refresh" content="3">');
      else expect({ ended: list.text.includes(ended), refresh: list.text.includes('http-equiv="refresh"') }).toEqual({ ended: true, refresh: false });
      await waitForJob(t.url, alice.auth, job.id);
    });

    it('form errors are in people’s words on every form, while the API’s 422 bodies keep the API’s', async () => {
      const website = await a.submit('/dashboard/websites', {
        name: '',
        url: 'ftp://example.com/',
        viewport_width: '5000',
        viewport_height: 'tall',
        status: 'active',
        quality: '500',
        pdf_paper: 'a9',
        'clip.x': '-1',
        'clip.width': '10',
        fail_on_status: 'sometimes',
        timeout_ms: '5',
        change_threshold: '2',
        change_ignore_selectors: 'div[',
        headers: 'no colon here',
        locale: 'not a locale',
        timezone: 'Mars/Olympus',
      });
      const texts = expectPeoplesWords(website, 'website form');
      for (const said of [
        'Name must not be empty.',
        'URL scheme must be http or https.',
        'Viewport width must be at most 3840.',
        'Viewport height must be a whole number.',
        'Quality must be at most 100.',
        'X of the rectangle to capture must be at least 0.',
        'Elements to ignore: each line must be a valid CSS selector.',
        'Extra request headers: line 1: write a header as "Name: value".',
      ])
        expect(texts).toContain(said);

      const capture = await a.submit(`/dashboard/websites/${aliceSite}/screenshot`, {
        _options: '1',
        delay_ms: '20000',
        device_scale_factor: '9',
        viewport_width: '100',
        hide_selectors: '#ok\n##',
        wait_for_selector: 'a[',
      });
      for (const said of ['Delay after load must be at most 10000.', 'Scale factor must be at most 3.', 'Viewport width must be at least 320.'])
        expect(expectPeoplesWords(capture, 'capture form')).toContain(said);

      const playground = await a.submit('/dashboard/playground', { action: 'try', url: '', quality: 'high' });
      for (const said of ['URL must not be empty.', 'Quality must be a whole number.']) expect(expectPeoplesWords(playground, 'playground')).toContain(said);

      const scenario = await a.submit('/dashboard/scenarios/new', {
        op: 'save',
        name: '',
        website_id: '',
        'steps[0].type': 'click',
        'steps[0].selector': '',
        'steps[1].type': 'wait',
        'steps[1].duration': '99999',
        'steps[2].type': 'navigate',
        'steps[2].url': 'javascript:alert(1)',
        'steps[3].type': 'wait_for',
        'steps[3].selector': '#x',
        'steps[3].timeout': '0',
        'steps[4].type': 'screenshot',
        'steps[4].full_page': 'maybe',
      });
      const scenarioTexts = expectPeoplesWords(scenario, 'scenario form');
      for (const said of [
        'Step 1: the selector must not be empty.',
        'Step 2: the duration must be a whole number from 0 to 30000.',
        'Step 4: the time limit must be a whole number from 1 to 30000.',
        'Step 5: the full page must be yes or no.',
      ])
        expect(scenarioTexts).toContain(said);
      expect(scenario.text).toContain('<li><a href="#step-0-selector">Step 1: the selector must not be empty.</a></li>');

      const schedule = await a.submit('/dashboard/schedules/new', {
        name: '',
        website_id: 'abc',
        frequency: 'fortnightly',
        time: '25:99',
        timezone: 'Mars/Olympus',
        day_of_week: '9',
        enabled: 'true',
      });
      for (const said of ['Choose one of your websites.', 'Time must be HH:MM, 24-hour, between 00:00 and 23:59.'])
        expect(expectPeoplesWords(schedule, 'schedule form')).toContain(said);

      const overview = await a.submit('/dashboard/capture', { url: 'ftp://example.com/' });
      expect(expectPeoplesWords(overview, 'overview box')).toBe('URL scheme must be http or https.');

      // The API itself is unchanged.
      const apiBody = (
        await api()
          .post('/websites')
          .set(alice.auth)
          .send({ name: 'x', url: `${site.url}/`, viewport_width: 5000 })
      ).body;
      expect(apiBody.details).toEqual([{ field: 'viewport_width', message: 'viewport_width must not be greater than 3840' }]);
      freshMinute();
      const apiSteps = (
        await api()
          .post('/scenarios')
          .set(alice.auth)
          .send({ name: 'x', website_id: aliceSite, steps: [{ type: 'click', selector: '' }] })
      ).body;
      expect(apiSteps.details).toEqual([{ field: 'steps[0].selector', message: 'steps[0].selector must not be empty' }]);
    });

    it('the overview’s Capture a URL box captures with the playground’s machinery and shows the result on the overview', async () => {
      const home = await a.get('/dashboard');
      expect(home.text).toContain('<form method="post" action="/dashboard/capture" class="capture-url-form" data-in-place novalidate>');
      const res = await a.submit('/dashboard/capture', { url: `${site.url}/blog` });
      expect(res.status).toBe(303);
      const location = res.headers.location;
      // A render, as GET /render makes (issue 30): the answer waited for it, and no website was made.
      expect(location).toMatch(/^\/dashboard\?url=.*&render=[0-9a-f-]{36}#capture-url$/);
      const renderId = /render=([0-9a-f-]{36})/.exec(location)![1];
      const shown = await a.get(location.replace(/#.*$/, ''));
      expect(shown.text).toContain(`value="${site.url}/blog"`);
      expect(shown.text).toContain(`<img id="capture-image" src="/dashboard/playground/renders/${renderId}/image"`);
      expect(await websiteNamed('Playground (dashboard)')).toBeUndefined();
    });

    it('without script, the scenario editor’s buttons still post the form and come back with the step added', async () => {
      const res = await a.submit('/dashboard/scenarios/new', { name: 'No script', website_id: String(aliceSite), op: 'add:click' });
      expect(res.status).toBe(200);
      expect(res.text).toContain('<input type="hidden" name="steps[0].type" value="click">');
      expect(res.text).toContain('<template id="step-template-navigate">');
    });
  });

  describe('in a real browser', () => {
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
    });

    afterAll(async () => {
      await browser?.close();
    });

    const go = async (path: string) => {
      const res = await page.goto(`${t.url}${path}`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
    };
    const clickAndWait = async (selector: string) => {
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
    };
    const mark = () => page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    const stayed = () => page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed === true);
    const fits = async (what: string) => {
      const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      expect({ what, fits: scroll <= client }).toEqual({ what, fits: true });
    };
    const save = async (name: string, width: number) => {
      await page.screenshot({ path: join(SHOTS_DIR, `${name}-${width}.png`), fullPage: true });
    };
    const signIn = async (width: number, height: number, javaScript = true) => {
      page = await (await browser.createBrowserContext()).newPage();
      await page.setJavaScriptEnabled(javaScript);
      await page.setViewport({ width, height });
      await go('/dashboard/login');
      await page.type('#email', alice.email);
      await page.type('#password', PASSWORD);
      await clickAndWait('button[type=submit]');
    };
    const legends = () => page.$$eval('.steps > li.step legend', (els) => els.map((e) => e.textContent?.replace(/\s+/g, ' ').trim()));
    const names = () => page.$$eval('.steps > li.step input[type=hidden][name$=".type"]', (els) => els.map((e) => e.name));

    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ]) {
      it(`at ${width}×${height}: Capture a URL on the overview; the result appears there and stays`, async () => {
        await signIn(width, height);
        await go('/dashboard');
        await fits('overview');
        await mark();
        // A mistake first: the message beside the field, in the page.
        await page.type('#capture-url-input', 'example');
        await page.click('#capture-url-button');
        await page.waitForSelector('#e-url');
        expect(await page.$eval('#e-url', (el) => el.textContent)).toBe('URL is not a valid URL.');
        await page.$eval('#capture-url-input', (el) => ((el as HTMLInputElement).value = ''));
        const typed = `${site.url}/?w=${width}`;
        await page.type('#capture-url-input', typed);
        await page.click('#capture-url-button');
        await page.waitForSelector('#capture-image', { timeout: 60_000 });
        await page.waitForFunction(() => (document.getElementById('capture-image') as HTMLImageElement).naturalWidth > 0, { timeout: 20_000 });
        expect(await stayed()).toBe(true);
        expect(page.url()).toMatch(/\/dashboard\?url=.*render=[0-9a-f-]{36}/);
        // Recent jobs shows the capture's job as ended (succeeded), without a reload: never left at running.
        const jobId = /render=([0-9a-f-]{36})/.exec(page.url())![1];
        const recentBadge = () =>
          page.evaluate(
            (id) => document.querySelector(`#recent-jobs a[href="/dashboard/jobs/${id}"]`)?.closest('tr')?.querySelector('.badge')?.textContent ?? null,
            jobId,
          );
        await page
          .waitForFunction(
            (id) => document.querySelector(`#recent-jobs a[href="/dashboard/jobs/${id}"]`)?.closest('tr')?.querySelector('.badge-succeeded'),
            { timeout: 20_000 },
            jobId,
          )
          .catch(() => undefined);
        expect(await recentBadge()).toBe('succeeded');
        // 8 s on the result is still there (no refresh meta reached the live page), with what was typed.
        await new Promise((r) => setTimeout(r, 8_000));
        const state = await page.evaluate(() => ({
          image: ((document.getElementById('capture-image') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0,
          typed: (document.getElementById('capture-url-input') as HTMLInputElement | null)?.value,
          refreshMetas: document.querySelectorAll('meta[http-equiv="refresh" i]').length,
          badge: document.querySelector('#capture-result .badge')?.textContent,
        }));
        expect({ ...state, stayed: await stayed(), recent: await recentBadge() }).toEqual({
          image: true,
          typed,
          refreshMetas: 0,
          badge: 'ready',
          stayed: true,
          recent: 'succeeded',
        });
        await fits('overview with a result');
        await save('overview-capture-url', width);
        await page.close();
      }, 120_000);

      it(`at ${width}×${height}: scenario steps are added, moved and removed in the page, then saved in that order`, async () => {
        await signIn(width, height);
        await go(`/dashboard/scenarios/new?website_id=${aliceSite}`);
        await mark();
        await page.type('#scenario-name', `Live steps ${width}`);
        await page.click('button[value="add:navigate"]');
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('step-0-url');
        await page.type('#step-0-url', `${site.url}/blog`);
        await page.click('button[value="add:click"]');
        await page.type('#step-1-selector', 'h1');
        await page.click('button[value="add:wait"]');
        await page.type('#step-2-duration', '10');
        await page.click('button[value="add:hover"]');
        expect(await legends()).toEqual(['Step 1 navigate', 'Step 2 click', 'Step 3 wait', 'Step 4 hover']);
        expect(await page.$eval('#step-count', (el) => el.textContent)).toBe('4');
        // Move the wait up above the click; remove the hover: names and ids follow, as the server numbers them.
        await page.click('button[value="up:2"]');
        expect(await page.evaluate(() => document.activeElement?.getAttribute('value'))).toBe('up:1');
        await page.click('button[value="remove:3"]');
        expect(await legends()).toEqual(['Step 1 navigate', 'Step 2 wait', 'Step 3 click']);
        expect(await names()).toEqual(['steps[0].type', 'steps[1].type', 'steps[2].type']);
        expect(await page.$eval('#step-1-duration', (el) => (el as HTMLInputElement).value)).toBe('10');
        expect(await page.$eval('#step-2-selector', (el) => (el as HTMLInputElement).value)).toBe('h1');
        expect(await page.$eval('button[value="up:0"]', (el) => el.disabled)).toBe(true);
        expect(await page.$eval('button[value="down:2"]', (el) => el.disabled)).toBe(true);
        expect(await stayed()).toBe(true); // not one reload
        await fits('scenario editor');
        await save('scenario-live-steps', width);
        // A mistake: the server's errors, numbered from 1, beside the step.
        await page.$eval('#step-2-selector', (el) => ((el as HTMLInputElement).value = ''));
        await clickAndWait('#save-scenario');
        expect(await page.$eval('#step-2-selector-error', (el) => el.textContent)).toBe('Step 3: the selector must not be empty.');
        await fits('scenario editor with errors');
        await save('scenario-errors', width);
        // Adding a step now drops the stale errors (they name steps by their old numbers).
        await page.click('button[value="add:screenshot"]');
        expect(await page.$$eval('.steps .field-error', (els) => els.length)).toBe(0);
        await page.type('#step-2-selector', 'h1');
        await clickAndWait('#save-scenario');
        expect(await page.$eval('[role=status]', (el) => el.textContent)).toBe('Scenario created.');
        freshMinute();
        const id = Number(/scenarios\/(\d+)\/edit/.exec(page.url())![1]);
        expect((await api().get(`/scenarios/${id}`).set(alice.auth).expect(200)).body.data.steps).toEqual([
          { type: 'navigate', url: `${site.url}/blog` },
          { type: 'wait', duration: 10 },
          { type: 'click', selector: 'h1' },
          { type: 'screenshot' },
        ]);
        await page.close();
      }, 60_000);

      it(`at ${width}×${height}: the overview showing a capture job that is still running: once the result panel sees it end, Usage and Recent jobs show it without a reload`, async () => {
        await signIn(width, height);
        const slow = (await websites.create(alice.id, { name: `Slow ${width}`, url: `${site.url}/slow?w=${width}`, status: 'paused' })).id;
        expect((await a.submit(`/dashboard/websites/${slow}/screenshot`)).status).toBe(303);
        const [job] = await jobsOf(slow);
        await go(`/dashboard?${new URLSearchParams({ url: `${site.url}/slow?w=${width}`, job: job.id }).toString()}`);
        await mark();
        const recentBadge = () =>
          page.evaluate(
            (id) => document.querySelector(`#recent-jobs a[href="/dashboard/jobs/${id}"]`)?.closest('tr')?.querySelector('.badge')?.textContent ?? null,
            job.id,
          );
        // Drawn while the job ran (the page it captures answers after 4 s).
        expect(['queued', 'running']).toContain(await recentBadge());
        // Usage too was drawn before the capture stored anything: marked, so that its redrawing shows.
        await page.$eval('#usage', (el) => el.setAttribute('data-drawn-while-running', ''));
        await page.waitForFunction(() => document.querySelector('#capture-result .badge')?.textContent === 'succeeded', { timeout: 60_000 });
        await page
          .waitForFunction(
            (id) => document.querySelector(`#recent-jobs a[href="/dashboard/jobs/${id}"]`)?.closest('tr')?.querySelector('.badge-succeeded'),
            { timeout: 10_000 },
            job.id,
          )
          .catch(() => undefined);
        expect({ recent: await recentBadge(), stayed: await stayed() }).toEqual({ recent: 'succeeded', stayed: true });
        // …and Usage was fetched again with it: what the server now draws, the new screenshot's storage included.
        const usage = await page.evaluate(async () => {
          const read = (root: ParentNode) =>
            Array.from(root.querySelectorAll('#usage > p, #usage .usage-summary'))
              .map((el) => el.textContent?.trim() ?? '')
              .join(' | ');
          const fresh = new DOMParser().parseFromString(await (await fetch(location.href)).text(), 'text/html');
          return { redrawn: !document.querySelector('#usage[data-drawn-while-running]'), live: read(document), fresh: read(fresh) };
        });
        expect(usage).toEqual({ redrawn: true, live: usage.fresh, fresh: expect.stringContaining('Screenshots kept:') });
        await fits('overview after the job ended');
        await save('overview-job-ended', width);
        await page.close();
      }, 90_000);

      it(`at ${width}×${height}: a new website's first screenshot, the list's notices, and a form's errors in words`, async () => {
        await signIn(width, height);
        await go('/dashboard/websites/new');
        await page.type('#f-url', 'https://example.com/');
        await page.type('#f-viewport_width', '5000');
        await clickAndWait('#save-website');
        expect(await page.$eval('#e-viewport_width', (el) => el.textContent)).toBe('Viewport width must be at most 3840.');
        await save('website-form-errors', width);
        await page.$eval('#f-url', (el) => ((el as HTMLInputElement).value = ''));
        await page.$eval('#f-viewport_width', (el) => ((el as HTMLInputElement).value = ''));
        await page.type('#f-name', `New ${width}`);
        await page.type('#f-url', `${site.url}/blog?w=${width}`);
        await clickAndWait('#save-website');
        const notice = await page.$eval('[role=status]', (el) => el.textContent);
        expect(notice).toMatch(/^Website created\. Its first screenshot (is being taken|job has ended)/);
        await fits('websites with the first capture');
        await save('website-first-capture', width);
        // The page refreshes itself until the job has ended; then the notice says so and the thumbnail is there.
        await page.waitForFunction(() => document.querySelector('[role=status]')?.textContent?.includes('job has ended'), { timeout: 60_000 });
        const made = (await websiteNamed(`New ${width}`))!;
        await page.waitForSelector(`tr[data-website-id="${made.id}"] img`, { timeout: 10_000 });
        await save('website-first-capture-done', width);
        await page.close();
      }, 120_000);
    }

    it('without JavaScript the scenario editor still adds a step by posting the form', async () => {
      await signIn(390, 844, false);
      await go(`/dashboard/scenarios/new?website_id=${aliceSite}`);
      await page.type('#scenario-name', 'No script');
      await clickAndWait('button[value="add:click"]');
      expect(await legends()).toEqual(['Step 1 click']);
      await page.close();
    }, 30_000);
  });
});
