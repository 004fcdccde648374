/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import request from 'supertest';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { DashboardClient } from '../support/dashboard-session';
import { waitForComparison } from '../support/changes';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Text changes in the dashboard (issue 31): the history page previews the changed lines of a text change and the
 * compare page shows the text diff beside the image diff (added lines green with "+", removed red with "−"), the
 * page's own markup shown as text, never as markup. Over HTTP and in a real headless Chromium at 1280×800 and
 * 390×844. Pictures go to DASHBOARD_SCREENSHOTS when set (docs/dashboard for the docs' pictures), else /tmp.
 */
const SHOTS_DIR = resolve(process.env.DASHBOARD_SCREENSHOTS ?? '/tmp/dashboard-text-changes');
const PASSWORD = 'text changes password';

/** A landing page whose headline is a few glyphs of the picture; the tagline carries markup-looking text. */
function landing(headline: string): string {
  return (
    '<!doctype html><html><head><style>html,body{margin:0;background:#fff;font:16px sans-serif;color:#1d2330}' +
    'header{background:#111a2e;color:#fff;padding:24px 40px;font-size:24px}main{padding:24px 40px}h1{font-size:18px}</style></head>' +
    `<body><header>Acme</header><main><h1>${headline}</h1><p>Use &lt;img src=x onerror=alert(1)&gt; &amp; friends safely.</p>` +
    '<p>Pricing</p><p>Docs</p></main></body></html>'
  );
}

describe('Dashboard text changes (issue 31)', () => {
  let t: TestApp;
  let site: PageServer;
  let alice: TestAccount;
  let bob: TestAccount;
  let a: DashboardClient;
  let b: DashboardClient;
  let headline = 'Ship faster, v1';
  let websiteId = 0;
  const shots: number[] = [];

  async function capture(): Promise<number> {
    t.clock.set(new Date(Math.floor(t.clock.now().getTime() / 60_000) * 60_000 + 60_000));
    const res = await request(t.url).post(`/websites/${websiteId}/screenshot`).set(alice.auth);
    expect(res.status).toBe(200);
    const job = await waitForJob(t.url, alice.auth, res.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded' });
    await waitForComparison(t.app, job.screenshot_id as number);
    return job.screenshot_id as number;
  }

  beforeAll(async () => {
    mkdirSync(SHOTS_DIR, { recursive: true });
    site = await new PageServer({ '/landing': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(landing(headline)) }).start();
    t = await startTestApp({ env: { SIGN_IN_LIMIT_PER_MINUTE: '100000', DASHBOARD_LIMIT_PER_MINUTE: '100000' } });
    t.clock.set(new Date('2031-04-01T09:00:00.000Z'));
    alice = await t.createAccount({ plan: 'business', name: 'Alice' });
    bob = await t.createAccount({ plan: 'business', name: 'Bob' });
    for (const who of [alice, bob]) await t.app.get(AccountsService).setPassword(who.email, PASSWORD);
    const created = await request(t.url)
      .post('/websites')
      .set(alice.auth)
      .send({ name: 'Landing', url: `${site.url}/landing` });
    websiteId = created.body.data.id as number;
    shots.push(await capture());
    headline = 'Ship faster, v2 <b>now</b>';
    shots.push(await capture());
    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
    b = await new DashboardClient(t.url).signInOk(bob.email, PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await site?.stop();
  });

  it('history: the text change is a change (badge with the line counts) and previews its changed lines, escaped', async () => {
    const res = await a.get(`/dashboard/websites/${websiteId}/history`);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(new RegExp(`data-screenshot-id="${shots[1]}" data-change="changed">[\\s\\S]*?changed \\d\\.\\d\\d% · text \\+1 −1 lines</span>`));
    expect(res.text).toContain(
      '<li class="td-removed" title="removed"><span class="td-sign" aria-label="removed">−</span><span class="td-text">Ship faster, v1</span></li>',
    );
    // The h1's markup made "v2 now" bold in the page; its text has no markup, and nothing of the page is markup here.
    expect(res.text).toContain(
      '<li class="td-added" title="added"><span class="td-sign" aria-label="added">+</span><span class="td-text">Ship faster, v2 now</span></li>',
    );
    expect(res.text).toContain("or the page's visible text changed");
  });

  it('compare: the text diff beside the image diff, context lines included, the page’s markup-looking text escaped; links to the whole diff and the text', async () => {
    const res = await a.get(`/dashboard/screenshots/${shots[1]}/compare`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<span id="text-counts">+1 −1 lines</span>');
    expect(res.text).toMatch(/<div class="ch-diffs"><figure class="ch-diff" id="diff">[\s\S]*<figure class="ch-text" id="text-diff">/);
    expect(res.text).toContain('<span class="td-text">Use &lt;img src=x onerror=alert(1)&gt; &amp; friends safely.</span>');
    expect(res.text).not.toContain('<img src=x');
    const whole = await a.get(`/dashboard/screenshots/${shots[1]}/text-diff`);
    expect({ status: whole.status, type: whole.headers['content-type'] }).toEqual({ status: 200, type: 'text/plain; charset=utf-8' });
    expect(whole.text).toContain('-Ship faster, v1\n+Ship faster, v2 now\n');
    const kept = await a.get(`/dashboard/screenshots/${shots[1]}/text`);
    expect(kept.text).toBe('Acme\nShip faster, v2 now\nUse <img src=x onerror=alert(1)> & friends safely.\nPricing\nDocs\n');
    // The first capture has nothing to compare with: no text diff on its page, and its route is 404.
    expect((await a.get(`/dashboard/screenshots/${shots[0]}/compare`)).text).not.toContain('id="text-diff"');
    expect((await a.get(`/dashboard/screenshots/${shots[0]}/text-diff`)).status).toBe(404);
    // Another account: 404 on every route.
    for (const path of [`/dashboard/screenshots/${shots[1]}/text`, `/dashboard/screenshots/${shots[1]}/text-diff`])
      expect((await b.get(path)).status).toBe(404);
  });

  describe('in a real browser', () => {
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
      page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      await page.goto(`${t.url}/dashboard/login`);
      await page.type('#email', alice.email);
      await page.type('#password', PASSWORD);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
    });

    afterAll(async () => {
      await browser?.close();
    });

    for (const [label, viewport, beside] of [
      ['desktop', { width: 1280, height: 800 }, true],
      ['phone', { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 }, false],
    ] as const) {
      it(`${label} ${viewport.width}×${viewport.height}: the text diff is ${beside ? 'beside' : 'below'} the image diff, green and red, and the page fits`, async () => {
        await page.setViewport(viewport);
        await page.goto(`${t.url}/dashboard/screenshots/${shots[1]}/compare`, { waitUntil: 'load' });
        const layout = await page.evaluate(() => {
          const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
          const colour = (selector: string) => getComputedStyle(document.querySelector(selector)!).backgroundColor;
          return {
            sameRow: Math.abs(box('#diff').top - box('#text-diff').top) < 2,
            added: colour('li.td-added'),
            removed: colour('li.td-removed'),
            addedText: document.querySelector('li.td-added')!.textContent,
            fits: document.documentElement.scrollWidth <= document.documentElement.clientWidth,
            injected: document.querySelectorAll('main img[src="x"], .ch-text img').length,
          };
        });
        expect(layout).toEqual({
          sameRow: beside,
          added: 'rgb(220, 250, 230)',
          removed: 'rgb(254, 228, 226)',
          addedText: '+Ship faster, v2 now',
          fits: true,
          injected: 0,
        });
        await page.$eval('#text-diff', (el) => el.scrollIntoView());
        await page.screenshot({ path: join(SHOTS_DIR, `compare-text-${viewport.width}.png`) });
        await page.goto(`${t.url}/dashboard/websites/${websiteId}/history`, { waitUntil: 'load' });
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
        expect(await page.$$eval('.ch-text-preview li', (items) => items.map((li) => li.textContent))).toEqual(['−Ship faster, v1', '+Ship faster, v2 now']);
        await page.screenshot({ path: join(SHOTS_DIR, `history-text-${viewport.width}.png`) });
      });
    }
  });
});
