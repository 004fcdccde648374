import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { RenderKeysService } from '../../src/modules/render-keys/application/render-keys.service';
import { signRenderQuery } from '../../src/modules/render-keys/domain/render-key';
import { DashboardClient } from '../support/dashboard-session';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

const PASSWORD = 'render keys dashboard password';
/** DASHBOARD_SCREENSHOTS=<folder> saves the page as pictures (as the other dashboard specs do). */
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : null;

/**
 * Settings → Render keys (issue 30): create a key (its secret shown once, with a copy button and a signing
 * recipe), list, delete; the secret shown is one that signs links authenticateLink accepts; another account's
 * key is a 404; and the page in real Chromium at 1280 px and 390 px.
 */
describe('Dashboard: Render keys page', () => {
  let t: TestApp;
  let alice: TestAccount;
  let bob: TestAccount;
  let a: DashboardClient;
  let b: DashboardClient;
  let keys: RenderKeysService;

  beforeAll(async () => {
    t = await startTestApp({ env: { DASHBOARD_LIMIT_PER_MINUTE: '100000', SIGN_IN_LIMIT_PER_MINUTE: '100000' } });
    alice = await t.createAccount({ plan: 'pro' });
    bob = await t.createAccount({ plan: 'starter' });
    for (const who of [alice, bob]) await t.app.get(AccountsService).setPassword(who.email, PASSWORD);
    a = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
    b = await new DashboardClient(t.url).signInOk(bob.email, PASSWORD);
    keys = t.app.get(RenderKeysService);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('create: 303, then the list shows the secret once (with Copy and a signing recipe); it signs links the service accepts', async () => {
    const made = await a.submit('/dashboard/settings/render-keys', { name: 'Blog <thumbnails>' });
    expect(made.status).toBe(303);
    expect(made.headers.location).toBe('/dashboard/settings/render-keys');
    const shown = await a.get('/dashboard/settings/render-keys');
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('<strong>Your new render key “Blog &lt;thumbnails&gt;”.</strong>');
    const secret = /id="new-render-key-secret" readonly value="(rks_[0-9a-f]{64})"/.exec(shown.text)![1];
    const accessKey = /<code class="mono" id="new-render-key-access">(rk_[0-9a-f]{24})<\/code>/.exec(shown.text)![1];
    expect(shown.text).toContain('<button type="button" class="secondary" data-copy="new-render-key-secret">Copy</button>');
    expect(shown.text).toContain(`query=&#39;url=https%3A%2F%2Fexample.com&amp;access_key=${accessKey}&#39;`);
    expect(shown.text).toContain(`openssl dgst -sha256 -hmac &#39;${secret}&#39;`);
    const id = Number(
      new RegExp(`<tr data-render-key-id="(\\d+)">\\s*<td>Blog &lt;thumbnails&gt;</td>\\s*<td class="mono">${accessKey}</td>`).exec(shown.text)![1],
    );

    const link = signRenderQuery(`url=https%3A%2F%2Fexample.com&access_key=${accessKey}`, secret);
    await expect(keys.authenticateLink(link, t.clock.now())).resolves.toEqual({ accountId: alice.id, keyId: id });

    // Once: a reload no longer has it, and the key is not made twice.
    const again = await a.get('/dashboard/settings/render-keys');
    expect(again.text).not.toContain(secret);
    expect(again.text).not.toContain('id="new-render-key"');
    expect(again.text.match(/data-render-key-id=/g)).toHaveLength(1);
    // The tabs: API tokens | Render keys, on both pages.
    expect(again.text).toContain(
      '<nav class="subnav" aria-label="Keys"><a href="/dashboard/settings/api-keys">API tokens</a><a href="/dashboard/settings/render-keys" aria-current="page">Render keys</a></nav>',
    );
    expect((await a.get('/dashboard/settings/api-keys')).text).toContain('<a href="/dashboard/settings/api-keys" aria-current="page">API tokens</a>');
  });

  it('the secret is shown only to the session that made the key (a copied cookie in another session shows nothing)', async () => {
    const made = await a.submit('/dashboard/settings/render-keys', { name: '' });
    expect(made.status).toBe(303);
    const carried = /sst_new_render_key=([^;]+)/.exec(String(made.headers['set-cookie']))![1];
    const other = await new DashboardClient(t.url).signInOk(alice.email, PASSWORD);
    other.cookies.set('sst_new_render_key', decodeURIComponent(carried));
    const page = await other.get('/dashboard/settings/render-keys');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('id="new-render-key"');
    expect(page.text).toContain('<span class="muted">unnamed</span>');
  });

  it('a name over 100 characters is 422 with the error beside the field; the 21st key is refused the same way', async () => {
    const long = await a.submit('/dashboard/settings/render-keys', { name: 'x'.repeat(101) });
    expect(long.status).toBe(422);
    expect(long.text).toContain('<p class="notice error" id="name-error">The name must be at most 100 characters.</p>');
    const busy = await t.createAccount({ plan: 'business' });
    for (let i = 0; i < 20; i += 1) await keys.create(busy.id, `k${i}`);
    await t.app.get(AccountsService).setPassword(busy.email, PASSWORD);
    const c = await new DashboardClient(t.url).signInOk(busy.email, PASSWORD);
    const over = await c.submit('/dashboard/settings/render-keys', { name: 'one more' });
    expect(over.status).toBe(422);
    expect(over.text).toContain('You already have 20 render keys: delete one first.');
  });

  it('delete: a confirmation page, then 303 with a notice; links it signed are refused; another account gets 404', async () => {
    const key = await keys.create(alice.id, 'to delete');
    const link = signRenderQuery(`url=https%3A%2F%2Fexample.com&access_key=${key.accessKey}`, key.secret);
    expect((await b.get(`/dashboard/settings/render-keys/${key.id}/delete`)).status).toBe(404);
    expect((await b.submit(`/dashboard/settings/render-keys/${key.id}/delete`)).status).toBe(404);
    await expect(keys.authenticateLink(link, t.clock.now())).resolves.toEqual({ accountId: alice.id, keyId: key.id });

    const confirm = await a.get(`/dashboard/settings/render-keys/${key.id}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(
      `Delete <strong>to delete</strong> (<span class="mono">${key.accessKey}</span>)? Every link it signed stops working at once.`,
    );
    const done = await a.submit(`/dashboard/settings/render-keys/${key.id}/delete`);
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe('/dashboard/settings/render-keys?notice=render-key-deleted');
    const list = await a.get('/dashboard/settings/render-keys?notice=render-key-deleted');
    expect(list.text).toContain('Render key deleted. Every link it signed is now refused.');
    expect(list.text).not.toContain(`data-render-key-id="${key.id}"`);
    await expect(keys.authenticateLink(link, t.clock.now())).rejects.toMatchObject({ code: 'invalid_signature' });
    expect((await a.get('/dashboard/settings/render-keys/abc/delete')).status).toBe(404);
  });

  it('Free plan: the button is disabled, the plan explained, and a forged post is refused with 403', async () => {
    const free = await t.createAccount({ plan: 'free' });
    await t.app.get(AccountsService).setPassword(free.email, PASSWORD);
    const f = await new DashboardClient(t.url).signInOk(free.email, PASSWORD);
    const page = await f.get('/dashboard/settings/render-keys');
    expect(page.text).toContain('<button type="submit" id="create-render-key" disabled aria-disabled="true">Create render key</button>');
    expect(page.text).toContain('The Free plan has no API access.');
    expect((await f.submit('/dashboard/settings/render-keys', { name: 'nope' })).status).toBe(403);
    expect((await keys.list(free.id, { page: 1, perPage: 20 })).total).toBe(0);
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

    it('from API Keys to the Render keys tab; create one; Copy puts the secret in the field’s selection; fits 1280 and 390 px', async () => {
      await page.goto(`${t.url}/dashboard/settings/api-keys`, { waitUntil: 'load' });
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('nav.subnav a[href="/dashboard/settings/render-keys"]')]);
      expect(new URL(page.url()).pathname).toBe('/dashboard/settings/render-keys');
      await page.type('#render-key-name', 'Blog thumbnails');
      const [created] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#create-render-key')]);
      expect(created!.status()).toBe(200);
      const secret = await page.$eval('#new-render-key-secret', (el) => (el as HTMLInputElement).value);
      expect(secret).toMatch(/^rks_[0-9a-f]{64}$/);
      await page.click('button[data-copy="new-render-key-secret"]');
      await page.waitForFunction(() => document.querySelector('button[data-copy="new-render-key-secret"]')!.textContent === 'Copied');
      const selected = await page.evaluate(() => {
        const input = document.getElementById('new-render-key-secret') as HTMLInputElement;
        return input.value.slice(input.selectionStart ?? 0, input.selectionEnd ?? 0);
      });
      expect(selected).toBe(secret);
      expect(await fitsWidth()).toBe(true);
      await shoot('render-keys-desktop');

      await page.setViewport({ width: 390, height: 844 });
      expect(await fitsWidth()).toBe(true);
      await shoot('render-keys-phone');
      // The list as cards: the access key labelled, Delete reachable.
      await page.goto(`${t.url}/dashboard/settings/render-keys`, { waitUntil: 'load' });
      expect(await fitsWidth()).toBe(true);
      const label = await page.$eval('.render-key-cards td:nth-child(2)', (td) => getComputedStyle(td, '::before').content);
      expect(label).toBe('"Access key"');
      expect(await page.$eval('.render-key-cards a.button.danger', (el) => (el as HTMLElement).getBoundingClientRect().right <= window.innerWidth)).toBe(true);
      await page.setViewport({ width: 1280, height: 800 });
      expect(await fitsWidth()).toBe(true);
    });
  });
});
