/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { ScenarioRepository } from '../../src/modules/scenarios/application/ports';
import { SchedulesService } from '../../src/modules/schedules/application/schedules.service';
import { WebsitesService } from '../../src/modules/websites/application/websites.service';
import { DashboardClient } from '../support/dashboard-session';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The website choosers of the schedule and scenario editors (issue 45, "pickers that search"): an account with more
 * websites than a picker offers gets the newest 50 and a search, never every website in the page. Without script the
 * chooser's Find button posts the editor back, drawn again with the narrowed choices and everything typed kept, and
 * nothing saved; with script the choices follow the search as it is typed (GET /dashboard/website-choices).
 * Pictures of the schedule editor at 1280 and 390 px go to docs/dashboard/ when DASHBOARD_SCREENSHOTS is set.
 */

const PASSWORD = 'chooser password one';
const WEBSITES = 60;
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : null;

/** The options of the select with this id, as [value, label]. */
function optionsOf(page: string, selectId: string): Array<[string, string]> {
  const select = new RegExp(`<select id="${selectId}"[^>]*>([\\s\\S]*?)</select>`).exec(page)?.[1];
  if (select === undefined) throw new Error(`no select #${selectId} in the page`);
  return [...select.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1], m[2]]);
}

describe('Dashboard website choosers in the editors', () => {
  let t: TestApp;
  let alice: TestAccount;
  let bob: TestAccount;
  let a: DashboardClient;
  const sites: number[] = [];
  let bobSite = 0;

  beforeAll(async () => {
    t = await startTestApp({ env: { DASHBOARD_LIMIT_PER_MINUTE: '100000', SIGN_IN_LIMIT_PER_MINUTE: '100000' } });
    alice = await t.createAccount({ plan: 'pro', name: 'Alice' });
    bob = await t.createAccount({ plan: 'pro', name: 'Bob' });
    await t.app.get(AccountsService).setPassword(alice.email, PASSWORD);
    const websites = t.app.get(WebsitesService);
    // Through the service, not the API: 60 creations would meet the plan's per-minute request limit.
    for (let i = 1; i <= WEBSITES; i++) {
      sites.push((await websites.create(alice.id, { name: `Shop ${String(i).padStart(2, '0')}`, url: `https://shop-${i}.example.com/` })).id);
    }
    bobSite = (await websites.create(bob.id, { name: 'Shop of Bob', url: 'https://bob.example.com/' })).id;
    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('offers the newest 50 websites and a search, not every website', async () => {
    const page = await a.get('/dashboard/schedules/new');
    expect(page.status).toBe(200);
    const options = optionsOf(page.text, 'schedule-website');
    expect(options[0]).toEqual(['', 'Choose a website']);
    expect(options.slice(1).map(([, name]) => name)).toEqual(Array.from({ length: 50 }, (_, i) => `Shop ${WEBSITES - i}`));
    expect(page.text).toContain('Showing the newest 50 matches: type part of a name or URL to narrow.');
    expect(page.text).toMatch(/<input type="search" id="schedule-website-search" name="site"[^>]*data-website-choices="schedule-website"/);
  });

  it('keeps the chosen website among the choices though it is older than the newest 50', async () => {
    const oldest = sites[0];
    const page = await a.get(`/dashboard/schedules/new?website_id=${oldest}`);
    const options = optionsOf(page.text, 'schedule-website');
    expect(options[0]).toEqual([String(oldest), 'Shop 01']);
    expect(page.text).toMatch(new RegExp(`<option value="${oldest}" selected>Shop 01</option>`));
  });

  it('schedule editor: Find posts the form back with the narrowed choices and what was typed, and saves nothing', async () => {
    const before = (await t.app.get(SchedulesService).list(alice.id, { page: 1, perPage: 1 })).total;
    const res = await a.submit('/dashboard/schedules/new', {
      name: 'Typed before searching',
      website_id: '',
      scenario_id: '',
      frequency: 'weekly',
      time: '07:45',
      timezone: 'Europe/Berlin',
      day_of_week: '3',
      enabled: 'true',
      site: 'shop 0',
      find_website: '1',
    });
    expect(res.status).toBe(200);
    expect(optionsOf(res.text, 'schedule-website').map(([, name]) => name)).toEqual([
      'Choose a website',
      ...Array.from({ length: 9 }, (_, i) => `Shop 0${9 - i}`),
    ]);
    expect(res.text).not.toContain('Showing the newest 50 matches');
    expect(res.text).toContain('value="Typed before searching"');
    expect(res.text).toContain('value="07:45"');
    expect(res.text).toContain('value="Europe/Berlin"');
    expect(res.text).toMatch(/<input type="search" id="schedule-website-search" name="site" maxlength="200" value="shop 0"/);
    expect(res.text).not.toContain('class="field-error"');
    expect((await t.app.get(SchedulesService).list(alice.id, { page: 1, perPage: 1 })).total).toBe(before);
  });

  it('scenario editor: Find keeps the steps typed so far and saves nothing', async () => {
    const res = await a.submit('/dashboard/scenarios/new', {
      name: 'Checkout',
      description: '',
      website_id: '',
      'steps[0].type': 'click',
      'steps[0].selector': '#buy-now',
      site: 'shop-7.example',
      find_website: '1',
    });
    expect(res.status).toBe(200);
    expect(optionsOf(res.text, 'scenario-website')).toEqual([
      ['', 'Choose a website'],
      [String(sites[6]), 'Shop 07'],
    ]);
    expect(res.text).toContain('value="#buy-now"');
    expect((await t.app.get(ScenarioRepository).list(alice.id, { page: 1, perPage: 1 }, {})).total).toBe(0);
  });

  it('GET /dashboard/website-choices: the matches of the signed-in account only, the selected one kept', async () => {
    const res = await a.get(`/dashboard/website-choices?site=${encodeURIComponent('shop')}&selected=${sites[0]}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.more).toBe(true);
    expect(res.body.websites).toHaveLength(51);
    expect(res.body.websites[0]).toEqual({ id: sites[0], name: 'Shop 01' });
    expect(res.body.websites.map((w: { name: string }) => w.name)).not.toContain('Shop of Bob');
    // Another account's website is neither found by its name nor kept as "selected".
    const foreign = await a.get(`/dashboard/website-choices?site=bob&selected=${bobSite}`);
    expect(foreign.body).toEqual({ websites: [], more: false });
    // Signed out: the sign-in page, not the list.
    const anonymous = await new DashboardClient(t.url).get('/dashboard/website-choices?site=shop');
    expect(anonymous.status).toBe(303);
  });

  describe('in a real browser', () => {
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
      page = await browser.newPage();
      await page.goto(`${t.url}/dashboard/login`, { waitUntil: 'load' });
      await page.type('#email', alice.email);
      await page.type('#password', PASSWORD);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
      expect(new URL(page.url()).pathname).toBe('/dashboard');
    });

    afterAll(async () => {
      await browser?.close();
    });

    for (const width of [1280, 390]) {
      it(`the choices follow the search as it is typed, Find and Enter search in place (${width} px)`, async () => {
        await page.setViewport({ width, height: 900 });
        await page.goto(`${t.url}/dashboard/schedules/new`, { waitUntil: 'load' });
        await page.type('#schedule-name', 'Typed in the browser');
        await page.type('#schedule-website-search', 'shop 1');
        await page.waitForFunction(() => document.querySelectorAll('#schedule-website option').length === 11);
        const labels = await page.$$eval('#schedule-website option', (os) => os.map((o) => o.textContent));
        expect(labels).toEqual(['Choose a website', ...Array.from({ length: 10 }, (_, i) => `Shop ${19 - i}`)]);
        expect(await page.$eval('#schedule-website-search-note', (n) => (n as HTMLElement).hidden)).toBe(true);
        await page.select('#schedule-website', String(sites[11]));
        // Enter in the search searches again (no post): the typed name and the choice stay.
        await page.click('#schedule-website-search', { clickCount: 3 });
        await page.type('#schedule-website-search', 'shop 0');
        await page.keyboard.press('Enter');
        await page.waitForFunction(() => Array.from(document.querySelectorAll('#schedule-website option')).some((o) => o.textContent === 'Shop 01'));
        expect(await page.$eval('#schedule-name', (i) => (i as HTMLInputElement).value)).toBe('Typed in the browser');
        expect(await page.$eval('#schedule-website', (s) => (s as HTMLSelectElement).value)).toBe(String(sites[11]));
        // The search row fits the screen.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        if (SHOTS_DIR) {
          mkdirSync(SHOTS_DIR, { recursive: true });
          await page.screenshot({ path: `${SHOTS_DIR}/schedule-website-chooser-${width}.png`, fullPage: true });
        }
      });
    }
  });
});
