import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import puppeteer from 'puppeteer';
import request from 'supertest';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { RenderKeysService } from '../../src/modules/render-keys/application/render-keys.service';
import { WebsitesService } from '../../src/modules/websites/application/websites.service';
import { closedPort } from '../support/assertions';
import { DashboardClient } from '../support/dashboard-session';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

const PASSWORD = 'playground render password';
/** DASHBOARD_SCREENSHOTS=<folder> saves the playground as pictures (as the other dashboard specs do). */
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : null;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

function unescapeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * The playground on /render (issue 30): a bare URL is rendered by RendersService in real Chromium — no website is
 * created — the picture is shown from storage, the one-line curl is GET /render (and works as printed), and
 * "Copy signed link" carries a link signed with the account's newest render key (or offers to create one).
 * The overview's "Capture a URL" box goes the same way.
 */
describe('Dashboard playground: a URL through /render, its curl and its signed link', () => {
  let t: TestApp;
  let pages: PageServer;
  let alice: TestAccount;
  let bob: TestAccount;
  let a: DashboardClient;
  let b: DashboardClient;

  beforeAll(async () => {
    pages = await new PageServer({ '/': solidPage('rgb(0,128,0)'), '/blue': solidPage('rgb(0,0,255)') }).start();
    t = await startTestApp({ env: { DASHBOARD_LIMIT_PER_MINUTE: '100000', SIGN_IN_LIMIT_PER_MINUTE: '100000' } });
    alice = await t.createAccount({ plan: 'business' });
    bob = await t.createAccount({ plan: 'business' });
    for (const who of [alice, bob]) await t.app.get(AccountsService).setPassword(who.email, PASSWORD);
    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
    b = await new DashboardClient(t.url).signInOk(bob.email, PASSWORD);
  });

  afterAll(async () => {
    await t?.close();
    await pages?.stop();
  });

  it('Try with a URL: a render (no website made), its picture from storage, the one-line curl that works as printed', async () => {
    const url = `${pages.url}/`;
    const tried = await a.submit('/dashboard/playground', { url, viewport_width: '640', viewport_height: '400', action: 'try' });
    expect(tried.status).toBe(303);
    const location = String(tried.headers.location);
    expect(location).toMatch(new RegExp(`^/dashboard/playground\\?.*render=(${UUID})`));
    const renderId = new RegExp(`render=(${UUID})`).exec(location)![1];
    expect((await t.app.get(WebsitesService).list(alice.id, { page: 1, perPage: 10 })).total).toBe(0);

    const page = await a.get(location);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<img id="capture-image" src="/dashboard/playground/renders/${renderId}/image" alt="The capture" width="640" height="400">`);
    expect(page.text).toContain('kept an hour, not in your gallery');
    const image = await a.get(`/dashboard/playground/renders/${renderId}/image`, { binary: true });
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect((image.body as Buffer).subarray(1, 4).toString()).toBe('PNG');

    const curl = unescapeHtml(/<textarea id="curl-command"[^>]*>([\s\S]*?)<\/textarea>/.exec(page.text)![1]);
    const query = new URLSearchParams({ url, viewport_width: '640', viewport_height: '400' }).toString();
    expect(curl).toBe(`curl -H "Authorization: Bearer $TOKEN" "${t.url}/render?${query}" -o shot.png`);
    const asPrinted = new URL(/"(http[^"]+)"/.exec(curl)![1]);
    const rendered = await request(t.url)
      .get(asPrinted.pathname + asPrinted.search)
      .set(alice.auth)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(rendered.status).toBe(200);
    expect(rendered.headers['content-type']).toBe('image/png');

    // Another account: the render and its file are 404.
    expect((await b.get(location)).status).toBe(404);
    expect((await b.get(`/dashboard/playground/renders/${renderId}/image`)).status).toBe(404);
    expect((await a.get('/dashboard/playground/renders/not-a-uuid/image')).status).toBe(404);
  });

  it('no render key: the page offers to create one; with one, "Copy signed link" holds a link the service accepts', async () => {
    const url = `${pages.url}/blue`;
    const without = await a.get(`/dashboard/playground?${new URLSearchParams({ url, full_page: 'true' })}`);
    expect(without.text).toContain('<button type="submit" class="secondary" id="create-render-key">Create a render key</button>');
    expect(without.text).not.toContain('id="copy-signed-link"');
    expect((await a.submit('/dashboard/settings/render-keys', { name: 'playground' })).status).toBe(303);

    const withKey = await a.get(`/dashboard/playground?${new URLSearchParams({ url, full_page: 'true' })}`);
    expect(withKey.text).toContain('<button type="button" class="secondary" data-copy="signed-link-value" id="copy-signed-link">Copy signed link</button>');
    const link = unescapeHtml(/<textarea id="signed-link-value"[^>]*>([\s\S]*?)<\/textarea>/.exec(withKey.text)![1]);
    const [key] = (await t.app.get(RenderKeysService).list(alice.id, { page: 1, perPage: 1 })).items;
    const query = `${new URLSearchParams({ url, full_page: 'true' })}&access_key=${key.accessKey}`;
    expect(link).toMatch(new RegExp(`^${t.url.replace(/[.]/g, '\\.')}/render\\?`));
    // Issue 46: the link expires, 7 days from now unless the form chose otherwise, and the page says when.
    const expires = Math.floor(t.clock.now().getTime() / 1000) + 7 * 86_400;
    expect(link.startsWith(`${t.url}/render?${query}&expires=${expires}&signature=`)).toBe(true);
    expect(withKey.text).toContain(`Expires <time datetime="${new Date(expires * 1000).toISOString()}">`);
    await expect(t.app.get(RenderKeysService).authenticateLink(link.split('?')[1], t.clock.now())).resolves.toEqual({ accountId: alice.id, keyId: key.id });
    await expect(t.app.get(RenderKeysService).authenticateLink(link.split('?')[1], new Date((expires + 1) * 1000))).rejects.toMatchObject({
      code: 'link_expired',
    });
    // "never" only when asked for.
    const never = await a.get(`/dashboard/playground?${new URLSearchParams({ url, full_page: 'true', link_expires: 'never' })}`);
    expect(unescapeHtml(/<textarea id="signed-link-value"[^>]*>([\s\S]*?)<\/textarea>/.exec(never.text)![1])).toMatch(
      new RegExp(`&access_key=${key.accessKey}&signature=`),
    );
    expect(never.text).toContain('<strong>Never expires</strong>');
  });

  it('a page that cannot be reached: 422, the capture’s error beside the URL', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}/`;
    const res = await a.submit('/dashboard/playground', { url: dead, action: 'try' });
    expect(res.status).toBe(422);
    expect(res.text).toMatch(/<p class="field-error" id="e-url">The capture failed: [^<]*ERR_CONNECTION_REFUSED/);
  });

  it('a website chosen: still its capture job, and the curl is its Take Screenshot call', async () => {
    const website = await t.app.get(WebsitesService).create(bob.id, { name: 'Bob home', url: `${pages.url}/` });
    const tried = await b.submit('/dashboard/playground', { website_id: String(website.id), action: 'try' });
    expect(tried.status).toBe(303);
    expect(String(tried.headers.location)).toMatch(new RegExp(`[?&]job=${UUID}`));
    const page = await b.get(String(tried.headers.location));
    expect(unescapeHtml(/<textarea id="curl-command"[^>]*>([\s\S]*?)<\/textarea>/.exec(page.text)![1])).toBe(
      `# Capture "Bob home" with these options (the website's saved options fill the rest)\ncurl -X POST '${t.url}/websites/${website.id}/screenshot' \\\n  -H "Authorization: Bearer $TOKEN" \\\n  -H 'Content-Type: application/json'`,
    );
    expect(page.text).not.toContain('id="signed-link"');
  });

  it('the overview’s "Capture a URL" renders too: its picture on the overview, no website', async () => {
    const carol = await t.createAccount({ plan: 'pro' });
    await t.app.get(AccountsService).setPassword(carol.email, PASSWORD);
    const c = await new DashboardClient(t.url).signInOk(carol.email, PASSWORD);
    const res = await c.submit('/dashboard/capture', { url: `${pages.url}/` });
    expect(res.status).toBe(303);
    const location = String(res.headers.location);
    expect(location).toMatch(new RegExp(`^/dashboard\\?url=.*&render=${UUID}#capture-url$`));
    const page = await c.get(location.split('#')[0]);
    expect(page.text).toMatch(
      new RegExp(`<img id="capture-image" src="/dashboard/playground/renders/${UUID}/image" alt="The capture" width="1280" height="800">`),
    );
    expect((await t.app.get(WebsitesService).list(carol.id, { page: 1, perPage: 10 })).total).toBe(0);
  });

  it('in a real browser: Try renders in place, Copy signed link copies it; the page fits 1280 and 390 px', async () => {
    const renderKeys = t.app.get(RenderKeysService);
    if ((await renderKeys.list(alice.id, { page: 1, perPage: 1 })).total === 0) await renderKeys.create(alice.id, 'playground');
    const browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      await page.goto(`${t.url}/dashboard/login`, { waitUntil: 'load' });
      await page.type('#email', alice.email);
      await page.type('#password', PASSWORD);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
      await page.goto(`${t.url}/dashboard/playground`, { waitUntil: 'load' });
      await page.type('#f-url', `${pages.url}/blue`);
      await page.click('#try-capture');
      // Posted in place: the result panel with the picture replaces the placeholder, the address names the render.
      await page.waitForSelector('#capture-image', { timeout: 30_000 });
      await page.waitForFunction(() => (document.getElementById('capture-image') as HTMLImageElement).naturalWidth === 1280);
      expect(new URL(page.url()).searchParams.get('render')).toMatch(new RegExp(`^${UUID}$`));
      await page.click('#copy-signed-link');
      await page.waitForFunction(() => document.getElementById('copy-signed-link')!.textContent === 'Copied');
      const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      expect(await fits()).toBe(true);
      if (SHOTS_DIR) mkdirSync(SHOTS_DIR, { recursive: true });
      if (SHOTS_DIR) await page.screenshot({ path: join(SHOTS_DIR, 'playground-render-desktop.png'), fullPage: true });
      await page.setViewport({ width: 390, height: 844 });
      expect(await fits()).toBe(true);
      if (SHOTS_DIR) await page.screenshot({ path: join(SHOTS_DIR, 'playground-render-phone.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
