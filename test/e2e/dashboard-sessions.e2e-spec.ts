import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import request from 'supertest';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { SessionsService } from '../../src/modules/sessions/application/sessions.service';
import { DashboardClient } from '../support/dashboard-session';
import { LoginApp } from '../support/login-app';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

const PASSWORD = 'sessions dashboard password';
/** DASHBOARD_SCREENSHOTS=<folder> saves the page as pictures (as the other dashboard specs do). */
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : null;

/**
 * The Sessions page (issue 44, item 4): create from a login scenario (it logs in for real) or by pasting a
 * cookies.txt, status and when refreshed, which websites use it, refresh, delete (refused while a website uses it);
 * and the page in real Chromium at 1280 px and 390 px.
 */
describe('Dashboard: Sessions page', () => {
  let t: TestApp;
  let app: LoginApp;
  let alice: TestAccount;
  let a: DashboardClient;
  let websiteId: number;
  let scenarioId: number;

  beforeAll(async () => {
    app = await new LoginApp().start();
    t = await startTestApp({ env: { DASHBOARD_LIMIT_PER_MINUTE: '100000', SIGN_IN_LIMIT_PER_MINUTE: '100000' } });
    alice = await t.createAccount({ plan: 'business' });
    await t.app.get(AccountsService).setPassword(alice.email, PASSWORD);
    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
    websiteId = (
      await request(t.url)
        .post('/websites')
        .set(alice.auth)
        .send({ name: 'Shop account', url: `${app.url}/account` })
    ).body.data.id;
    scenarioId = (
      await request(t.url)
        .post('/scenarios')
        .set(alice.auth)
        .send({
          name: 'Shop login',
          website_id: websiteId,
          steps: [
            { type: 'fill', selector: '#user', value: app.user },
            { type: 'fill', selector: '#password', value: app.password, secret: true },
            { type: 'click', selector: '#submit' },
          ],
        })
    ).body.data.id;
  });
  afterAll(async () => {
    await t?.close();
    await app?.stop();
  });

  it('create from a scenario (pending, then ready) and from a pasted cookies.txt; a bad file is a 422 in words; refresh; delete refused while used', async () => {
    const fromScenario = await a.submit('/dashboard/sessions', {
      from: 'scenario',
      name: 'Shop',
      logged_in_selector: '#account-menu',
      scenario_id: String(scenarioId),
    });
    expect(fromScenario.status).toBe(303);
    expect(fromScenario.headers.location).toBe('/dashboard/sessions?notice=session-login-queued');
    const sessions = t.app.get(SessionsService);
    const [shop] = await sessions.listAll(alice.id);
    for (const deadline = Date.now() + 60_000; (await sessions.get(alice.id, shop.id)).status === 'pending' && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 50));
    expect((await sessions.get(alice.id, shop.id)).status).toBe('ready');

    const txt = `127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\t${app.newSession()}`;
    expect((await a.submit('/dashboard/sessions', { from: 'cookies_txt', name: 'Pasted', logged_in_selector: '', cookies_txt: txt })).status).toBe(303);
    const bad = await a.submit('/dashboard/sessions', { from: 'cookies_txt', name: 'Bad', logged_in_selector: '', cookies_txt: 'not a cookie' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('line 1 is not a cookie');

    await request(t.url)
      .put(`/websites/${websiteId}`)
      .set(alice.auth)
      .send({ capture_options: { session_id: shop.id } });
    const page = await a.get('/dashboard/sessions');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<tr data-session-id="${shop.id}">`);
    expect(page.text).toContain(`<a href="/dashboard/websites/${websiteId}">Shop account</a>`);
    expect(page.text).toContain('login: <a href="/dashboard/scenarios/');
    // No value of any cookie on the page.
    for (const sid of app.issued) expect(page.text).not.toContain(sid);

    expect((await a.submit(`/dashboard/sessions/${shop.id}/refresh`, {})).headers.location).toBe('/dashboard/sessions?notice=session-login-queued');
    const confirm = await a.get(`/dashboard/sessions/${shop.id}/delete`);
    expect(confirm.text).toContain('remove it from their capture options first');
    const refused = await a.submit(`/dashboard/sessions/${shop.id}/delete`, {});
    expect(refused.status).toBe(409);
    const pasted = (await sessions.listAll(alice.id)).find((s) => s.name === 'Pasted')!;
    expect((await a.submit(`/dashboard/sessions/${pasted.id}/delete`, {})).headers.location).toBe('/dashboard/sessions?notice=session-deleted');
  });

  describe('in a browser', () => {
    let browser: Browser;
    let page: Page;
    beforeAll(async () => {
      browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
      page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      await page.goto(`${t.url}/dashboard/login`, { waitUntil: 'load' });
      await page.type('#email', alice.email);
      await page.type('#password', PASSWORD);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('the page fits 1280 and 390 px', async () => {
      for (const [width, height, name] of [
        [1280, 800, 'sessions'],
        [390, 844, 'sessions-390'],
      ] as const) {
        await page.setViewport({ width, height });
        await page.goto(`${t.url}/dashboard/sessions`, { waitUntil: 'load' });
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        if (SHOTS_DIR) {
          mkdirSync(SHOTS_DIR, { recursive: true });
          await page.screenshot({ path: join(SHOTS_DIR, `${name}.png`), fullPage: true });
        }
      }
    });

    /** The options of the select `selector`: value, text and whether chosen. */
    const options = (selector: string) =>
      page.$$eval(`${selector} option`, (all) => all.map((o) => ({ value: o.value, text: o.textContent?.trim(), selected: o.selected })));

    it('the website form and the schedule editor offer the sessions as a pick-list (None first; no script needed); a schedule saved with one is listed on the Sessions page', async () => {
      const [shop] = (await t.app.get(SessionsService).listAll(alice.id)).filter((s) => s.name === 'Shop');
      await page.setJavaScriptEnabled(false);
      for (const [width, height, suffix] of [
        [1280, 800, ''],
        [390, 844, '-390'],
      ] as const) {
        await page.setViewport({ width, height });
        // The website's saved session is the chosen one (its edit form keeps it when saved again).
        await page.goto(`${t.url}/dashboard/websites/${websiteId}/edit`, { waitUntil: 'load' });
        await page.$eval('#f-session_id', (el) => el.closest('details')?.setAttribute('open', ''));
        expect(await options('#f-session_id')).toEqual([
          { value: '', text: 'None', selected: false },
          { value: String(shop.id), text: 'Shop (ready)', selected: true },
        ]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        if (SHOTS_DIR) {
          await (await page.$('[data-field="session_id"]'))!.scrollIntoView();
          await page.screenshot({ path: join(SHOTS_DIR, `website-form-session${suffix}.png`) });
        }
        await page.goto(`${t.url}/dashboard/schedules/new?website_id=${websiteId}`, { waitUntil: 'load' });
        expect(await options('#schedule-session')).toEqual([
          { value: '', text: 'None: the scenario’s or the website’s', selected: true },
          { value: String(shop.id), text: 'Shop (ready)', selected: false },
        ]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        if (SHOTS_DIR) await page.screenshot({ path: join(SHOTS_DIR, `schedule-editor-session${suffix}.png`), fullPage: true });
      }
      // The playground's options offer it too (a capture may start logged in).
      await page.goto(`${t.url}/dashboard/playground`, { waitUntil: 'load' });
      expect((await options('#f-session_id')).map((o) => o.text)).toEqual(['None', 'Shop (ready)']);

      // Saved without script: the schedule names the session, and the Sessions page lists it with a link.
      await page.goto(`${t.url}/dashboard/schedules/new?website_id=${websiteId}`, { waitUntil: 'load' });
      await page.type('#schedule-name', 'Logged-in nightly');
      await page.select('#schedule-session', String(shop.id));
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#save-schedule')]);
      const scheduleId = Number(/schedules\/(\d+)\/edit/.exec(page.url())?.[1]);
      expect((await request(t.url).get(`/schedules/${scheduleId}`).set(alice.auth)).body.data.session_id).toBe(shop.id);
      expect((await options('#schedule-session')).find((o) => o.selected)?.value).toBe(String(shop.id));
      await page.setJavaScriptEnabled(true);
      const sessionsPage = await a.get('/dashboard/sessions');
      expect(sessionsPage.text).toContain(`<a href="/dashboard/schedules/${scheduleId}/edit">Logged-in nightly</a>`);
      const refused = await a.submit(`/dashboard/sessions/${shop.id}/delete`, {});
      expect(refused.status).toBe(409);
      expect(refused.text).toContain(`the schedule &#39;Logged-in nightly&#39; (${scheduleId})`);
    });
  });
});
