import { mkdirSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer';
import request from 'supertest';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { SESSION_LIFETIME_MS } from '../../src/modules/accounts/domain/session';
import { RenderKeysService } from '../../src/modules/render-keys/application/render-keys.service';
import { SecretBox } from '../../src/shared/secrets/secret-box';
import { DashboardClient, setCookieNamed } from '../support/dashboard-session';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

const PASSWORD = 'playground try password';
/** DASHBOARD_SCREENSHOTS=<folder> saves the pictures (docs/dashboard in the docs). */
const SHOTS_DIR = process.env.DASHBOARD_SCREENSHOTS ? resolve(process.env.DASHBOARD_SCREENSHOTS) : null;

function unescapeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The `<details>` or `<fieldset>` section that holds a field, as served. */
function sectionOf(html: string, field: string): string {
  const at = html.indexOf(`data-field="${field}"`);
  const open = Math.max(html.lastIndexOf('<details', at), html.lastIndexOf('<fieldset class="section"', at));
  return html.slice(open, html.indexOf('>', open) + 1);
}

/**
 * Issue 46, items 6 and 7, in real Chromium: the playground's try (a wrong selector fails fast on its own field,
 * the report and the four snippets beside the result, elapsed time and "Stop waiting"), and a form posted after its
 * session expired: sign-in says so, and the form comes back with what was typed — never a secret — while CSRF holds.
 */
describe('Dashboard playground: the try, its report and snippets; expired sessions keep what was typed', () => {
  let t: TestApp;
  let pages: PageServer;
  let alice: TestAccount;
  let a: DashboardClient;
  let browser: Browser;
  const slow: Array<() => void> = [];

  beforeAll(async () => {
    pages = await new PageServer({
      '/': '<!doctype html><title>Green page</title><style>html,body{margin:0;background:rgb(0,128,0)}</style><h1>Hello</h1>',
      '/blue': solidPage('rgb(0,0,255)'),
      // Answers after 6 s: long enough to see the wait and stop it.
      '/slow': (_req, res) => {
        const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage('rgb(255,0,0)')), 6_000);
        slow.push(() => clearTimeout(timer));
      },
    }).start();
    t = await startTestApp({ env: { DASHBOARD_LIMIT_PER_MINUTE: '100000', SIGN_IN_LIMIT_PER_MINUTE: '100000' } });
    alice = await t.createAccount({ plan: 'business' });
    await t.app.get(AccountsService).setPassword(alice.email, PASSWORD);
    a = await new DashboardClient(t.url, { Origin: t.url }).signInOk(alice.email, PASSWORD);
    browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
  });

  afterAll(async () => {
    await browser?.close();
    for (const stop of slow) stop();
    await t?.close();
    await pages?.stop();
  });

  async function signedInPage(width = 1280): Promise<Page> {
    // A context of its own: no cookie of another test's page.
    const page = await (await browser.createBrowserContext()).newPage();
    await page.setViewport({ width, height: 900 });
    await page.goto(`${t.url}/dashboard/login`, { waitUntil: 'load' });
    await page.type('#email', alice.email);
    await page.type('#password', PASSWORD);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
    return page;
  }

  it('a selector that never appears fails within seconds, its message beside its own field in an open section', async () => {
    const started = Date.now();
    const res = await a.submit('/dashboard/playground', { url: `${pages.url}/`, selector: '.pricing-table', action: 'try' });
    const tookMs = Date.now() - started;

    expect(res.status).toBe(422);
    expect(tookMs).toBeLessThan(15_000); // the page is still after ~0.1 s, then 3 s: not the capture's 30 s
    const message = /<p class="field-error" id="e-selector">([^<]*)<\/p>/.exec(res.text)?.[1];
    expect(unescapeHtml(message ?? '')).toBe(
      'The capture failed: No element matches selector ".pricing-table": the page finished loading and stayed still for 3 s without one.',
    );
    expect(res.text).not.toContain('id="e-url"');
    expect(sectionOf(res.text, 'selector')).toBe('<details class="section" open>');
    expect(res.text).toContain('<strong>Please correct this:</strong> see the field marked below.</div>');
  });

  it('in a real browser: the result with its report (words and JSON) and the snippets as tabs, at 1280 and 390 px', async () => {
    const renderKeys = t.app.get(RenderKeysService);
    if ((await renderKeys.list(alice.id, { page: 1, perPage: 1 })).total === 0) await renderKeys.create(alice.id, 'playground');
    const page = await signedInPage();
    try {
      await page.goto(`${t.url}/dashboard/playground`, { waitUntil: 'load' });
      await page.type('#f-url', `${pages.url}/`);
      await page.type('#f-viewport_width', '800');
      await page.type('#f-viewport_height', '500');
      await page.click('#try-capture');
      await page.waitForSelector('#capture-image', { timeout: 30_000 });
      const shown = await page.evaluate(() => ({
        report: document.querySelector('#capture-result .capture-report')?.textContent?.replace(/\s+/g, ' ').trim(),
        json: JSON.parse(document.querySelector('#report-json pre')!.textContent) as Record<string, unknown>,
        tabs: Array.from(document.querySelectorAll('.snippets [role="tab"]')).map((tab) => tab.textContent),
        visible: Array.from(document.querySelectorAll('.snippets .snippet'))
          .filter((p) => !(p as HTMLElement).hidden)
          .map((p) => p.id),
        node: (document.getElementById('code-node') as HTMLTextAreaElement).value,
        python: (document.getElementById('code-python') as HTMLTextAreaElement).value,
        php: (document.getElementById('code-php') as HTMLTextAreaElement).value,
        expiry: document.getElementById('link-expiry')?.textContent,
      }));
      expect(shown.report).toMatch(/^complete HTTP 200 · “Green page” · http:\/\/127\.0\.0\.1:\d+\/ · page 500 px tall · waited \d+ ms after load$/);
      expect(shown.json).toMatchObject({ http_status: 200, title: 'Green page', settled: true, warnings: [] });
      expect(shown.tabs).toEqual(['curl', 'Node', 'Python', 'PHP']);
      expect(shown.visible).toEqual(['snippet-curl']);
      expect(shown.node).toContain(`await render(api, { url: "${pages.url}/", viewport_width: 800, viewport_height: 500 });`);
      expect(shown.python).toContain(`shot = api.render("${pages.url}/", viewport_width=800, viewport_height=500)`);
      expect(shown.php).toContain(`api('POST', "$base/render", ['url' => '${pages.url}/', 'viewport_width' => 800, 'viewport_height' => 500]);`);
      expect(shown.expiry).toMatch(/^Expires \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 7 days\)/);
      await page.click('#tab-python');
      expect(
        await page.evaluate(() =>
          Array.from(document.querySelectorAll('.snippets .snippet'))
            .filter((p) => !(p as HTMLElement).hidden)
            .map((p) => p.id),
        ),
      ).toEqual(['snippet-python']);
      await page.evaluate(() => ((document.getElementById('report-json') as HTMLDetailsElement).open = true));
      const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      expect(await fits()).toBe(true);
      if (SHOTS_DIR) mkdirSync(SHOTS_DIR, { recursive: true });
      if (SHOTS_DIR) await page.screenshot({ path: join(SHOTS_DIR, 'playground-report-1280.png'), fullPage: true });
      await page.setViewport({ width: 390, height: 844 });
      expect(await fits()).toBe(true);
      // Laid out and painted at the new width before the picture.
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      if (SHOTS_DIR) await page.screenshot({ path: join(SHOTS_DIR, 'playground-report-390.png'), fullPage: true });
    } finally {
      await page.browserContext().close();
    }
  });

  it('in a real browser: a try shows its elapsed time, and Stop waiting says honestly that the render goes on', async () => {
    const page = await signedInPage();
    try {
      await page.goto(`${t.url}/dashboard/playground`, { waitUntil: 'load' });
      await page.type('#f-url', `${pages.url}/slow`);
      await page.click('#try-capture');
      await page.waitForFunction(() => document.getElementById('try-elapsed')?.textContent === '2 s', { timeout: 10_000 });
      expect(await page.$eval('#try-status', (el) => el.textContent)).toBe(`Capturing ${pages.url}/slow…`);
      if (SHOTS_DIR) {
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: join(SHOTS_DIR, 'playground-waiting-1280.png') });
      }
      await page.click('#stop-waiting');
      const stopped = await page.$eval('#stopped-note', (el) => el.textContent);
      expect(stopped).toContain('could not be cancelled');
      expect(await page.$eval('#try-capture', (el) => (el as HTMLButtonElement).disabled)).toBe(false);
      expect(new URL(page.url()).pathname).toBe('/dashboard/playground');
    } finally {
      await page.browserContext().close();
    }
  });

  describe('a form sent after its session expired', () => {
    const box = () => t.app.get(SecretBox);
    /** A signed-in client whose session then ends on the server (as expiry does: the session is no longer found). */
    async function expiredClient(): Promise<{ c: DashboardClient; oldCsrf: string }> {
      const c = await new DashboardClient(t.url, { Origin: t.url }).signInOk(alice.email, PASSWORD);
      const oldCsrf = await c.csrf();
      await c.copy().post('/dashboard/logout', { _csrf: oldCsrf }); // another tab signs out: this one's cookie is now dead
      return { c, oldCsrf };
    }
    function draftOf(res: { headers: Record<string, unknown> } & Parameters<typeof setCookieNamed>[0]): string {
      const cookie = setCookieNamed(res, 'sst_draft');
      expect(cookie?.attributes).toEqual(expect.arrayContaining(['Path=/dashboard', 'HttpOnly', 'SameSite=Lax', 'Max-Age=900']));
      return inflateRawSync(Buffer.from(box().open(cookie!.value), 'base64')).toString('utf8');
    }

    it('website: sign-in says why, the form comes back filled (no secret kept), once; CSRF still holds', async () => {
      const { c, oldCsrf } = await expiredClient();
      const posted = await c.post('/dashboard/websites', {
        _csrf: oldCsrf,
        name: 'Pricing "page" $HOME',
        url: 'https://example.com/pricing',
        viewport_width: '1024',
        headers: 'X-Api-Key: header-secret-1',
        'http_auth.username': 'user-1',
        'http_auth.password': 'auth-secret-1',
        css: 'body { color: red }',
      });
      expect(posted.status).toBe(303);
      expect(posted.headers.location).toBe('/dashboard/login?next=%2Fdashboard%2Fwebsites%2Fnew&notice=session-expired-kept');
      const draft = draftOf(posted);
      expect(draft).toContain('Pricing \\"page\\" $HOME');
      for (const secret of ['header-secret-1', 'auth-secret-1', 'user-1', oldCsrf]) expect(draft).not.toContain(secret);

      const signIn = await c.get(String(posted.headers.location));
      expect(signIn.text).toContain('Your session expired — sign in again; what you typed is kept.');
      expect(signIn.text).toContain('<input type="hidden" name="next" value="/dashboard/websites/new">');
      const back = await c.signIn(alice.email, PASSWORD, { next: '/dashboard/websites/new' });
      expect(back.headers.location).toBe('/dashboard/websites/new');

      const form = await c.get('/dashboard/websites/new');
      expect(form.text).toContain('id="draft-restored"');
      expect(form.text).toContain('value="Pricing &quot;page&quot; $HOME"');
      expect(form.text).toContain('value="https://example.com/pricing"');
      expect(form.text).toContain('value="1024"');
      expect(form.text).toContain('body { color: red }</textarea>');
      expect(form.text).not.toContain('header-secret-1');
      expect(setCookieNamed(form, 'sst_draft')?.attributes).toContain('Max-Age=0');
      expect((await c.get('/dashboard/websites/new')).text).not.toContain('id="draft-restored"'); // read once

      // The old session's token is refused; the new session's page token saves it.
      expect((await c.post('/dashboard/websites', { _csrf: oldCsrf, name: 'x', url: 'https://example.com/' })).status).toBe(403);
      const saved = await c.submit('/dashboard/websites', { name: 'Pricing', url: 'https://example.com/pricing' });
      expect(saved.status).toBe(303);
    });

    it('edit: the restored form keeps the saved secrets masked, so saving does not clear them', async () => {
      const made = await request(t.url)
        .post('/websites')
        .set(alice.auth)
        .send({ name: 'Shop', url: 'https://example.com/shop', capture_options: { headers: { 'X-Token': 'saved-secret-2' } } });
      expect(made.status).toBe(201);
      const site = made.body.data as { id: number };
      const { c, oldCsrf } = await expiredClient();
      const posted = await c.post(`/dashboard/websites/${site.id}/edit`, {
        _csrf: oldCsrf,
        name: 'Shop renamed',
        url: 'https://example.com/shop',
        headers: 'X-Token: ********',
      });
      expect(posted.headers.location).toBe(`/dashboard/login?next=%2Fdashboard%2Fwebsites%2F${site.id}%2Fedit&notice=session-expired-kept`);
      await c.signIn(alice.email, PASSWORD, { next: `/dashboard/websites/${site.id}/edit` });
      const form = await c.get(`/dashboard/websites/${site.id}/edit`);
      expect(form.text).toContain('value="Shop renamed"');
      expect(form.text).toContain('X-Token: ********</textarea>');
      expect(form.text).not.toContain('saved-secret-2');
    });

    it('playground and channels: kept the same way; a webhook address is a secret, an e-mail address is not', async () => {
      const { c, oldCsrf } = await expiredClient();
      const tried = await c.post('/dashboard/playground', { _csrf: oldCsrf, url: 'https://example.com/$x', wait_for_selector: "a[title='x']", action: 'try' });
      expect(tried.headers.location).toBe('/dashboard/login?next=%2Fdashboard%2Fplayground&notice=session-expired-kept');
      await c.signIn(alice.email, PASSWORD, { next: '/dashboard/playground' });
      const playground = await c.get('/dashboard/playground');
      expect(playground.text).toContain('id="draft-restored"');
      expect(playground.text).toContain('value="https://example.com/$x"');
      expect(playground.text).toContain('value="a[title=&#39;x&#39;]"');

      const second = await expiredClient();
      const slack = await second.c.post('/dashboard/notifications', {
        _csrf: second.oldCsrf,
        name: 'Team room',
        type: 'slack',
        target: 'https://hooks.slack.com/services/T000/B000/webhook-secret-3',
        events: ['screenshot.failed'],
      });
      expect(slack.headers.location).toBe('/dashboard/login?next=%2Fdashboard%2Fnotifications&notice=session-expired-kept');
      expect(draftOf(slack)).not.toContain('webhook-secret-3');
      await second.c.signIn(alice.email, PASSWORD, { next: '/dashboard/notifications' });
      const channels = await second.c.get('/dashboard/notifications');
      expect(channels.text).toContain('Restored what you typed before your session expired.');
      expect(channels.text).toContain('value="Team room"');
      expect(channels.text).not.toContain('webhook-secret-3');

      const third = await expiredClient();
      const email = await third.c.post('/dashboard/notifications', { _csrf: third.oldCsrf, name: 'Me', type: 'email', target: 'me@example.com' });
      expect(draftOf(email)).toContain('me@example.com');
    });

    it('a draft is only for the account that typed it: another account signing in on the same browser never sees it', async () => {
      const bob = await t.createAccount({ plan: 'business' });
      await t.app.get(AccountsService).setPassword(bob.email, PASSWORD);
      const { c, oldCsrf } = await expiredClient();
      const posted = await c.post('/dashboard/websites', { _csrf: oldCsrf, name: 'Alice private launch page', url: 'https://example.com/launch' });
      expect(posted.headers.location).toBe('/dashboard/login?next=%2Fdashboard%2Fwebsites%2Fnew&notice=session-expired-kept');
      expect(draftOf(posted)).toContain('Alice private launch page');

      // Bob signs in on this browser and opens the form the draft is for: an empty form, and the draft is gone.
      await c.signIn(bob.email, PASSWORD, { next: '/dashboard/websites/new' });
      const bobsForm = await c.get('/dashboard/websites/new');
      expect(bobsForm.status).toBe(200);
      expect(bobsForm.text).not.toContain('id="draft-restored"');
      expect(bobsForm.text).not.toContain('Alice private launch page');
      expect(bobsForm.text).not.toContain('https://example.com/launch');
      expect(setCookieNamed(bobsForm, 'sst_draft')?.attributes).toContain('Max-Age=0');
      expect(c.cookies.has('sst_draft')).toBe(false);

      // Alice back on the same browser (Bob signs out first): it was dropped, not kept for her.
      expect((await c.submit('/dashboard/logout')).status).toBe(303);
      await c.signIn(alice.email, PASSWORD, { next: '/dashboard/websites/new' });
      expect((await c.get('/dashboard/websites/new')).text).not.toContain('Alice private launch page');

      // Bob's own expired post comes back to Bob.
      const bobClient = await new DashboardClient(t.url, { Origin: t.url }).signInOk(bob.email, PASSWORD);
      const bobCsrf = await bobClient.csrf();
      await bobClient.copy().post('/dashboard/logout', { _csrf: bobCsrf });
      await bobClient.post('/dashboard/websites', { _csrf: bobCsrf, name: 'Bob page', url: 'https://example.com/bob' });
      await bobClient.signIn(bob.email, PASSWORD, { next: '/dashboard/websites/new' });
      expect((await bobClient.get('/dashboard/websites/new')).text).toContain('value="Bob page"');
    });

    it('a post from another site keeps no draft; a GET comes back to its page; other forms say the session expired', async () => {
      const { c, oldCsrf } = await expiredClient();
      const forged = await c.post(
        '/dashboard/websites',
        { _csrf: oldCsrf, name: 'Planted', url: 'https://evil.example/' },
        { headers: { Origin: 'https://evil.example' } },
      );
      expect(forged.status).toBe(303);
      expect(forged.headers.location).toBe('/dashboard/login?notice=session-expired');
      expect(setCookieNamed(forged, 'sst_draft')).toBeUndefined();

      const page = await c.get('/dashboard/screenshots?page=2');
      expect(page.headers.location).toBe('/dashboard/login?next=%2Fdashboard%2Fscreenshots%3Fpage%3D2');
      // A post of a page that keeps no draft: sign-in says why, and only that.
      const revoke = await c.post('/dashboard/settings/api-keys', { _csrf: oldCsrf, name: 'ci' });
      expect(revoke.headers.location).toBe('/dashboard/login?notice=session-expired');
      expect((await c.get(String(revoke.headers.location))).text).toContain('Your session expired — sign in again.</div>');
    });

    it('in a real browser: the session expires while the playground is open; Try leads to sign-in and back, with the URL typed', async () => {
      const page = await signedInPage(390);
      try {
        await page.goto(`${t.url}/dashboard/playground`, { waitUntil: 'load' });
        await page.type('#f-url', `${pages.url}/blue`);
        await page.select('#f-link_expires', '1d');
        t.clock.advance(SESSION_LIFETIME_MS + 1_000); // the session really expires
        await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#try-capture')]);
        expect(new URL(page.url()).pathname).toBe('/dashboard/login');
        expect(await page.$eval('.notice', (el) => el.textContent)).toBe('Your session expired — sign in again; what you typed is kept.');
        if (SHOTS_DIR) await page.screenshot({ path: join(SHOTS_DIR, 'session-expired-390.png') });
        await page.type('#email', alice.email);
        await page.type('#password', PASSWORD);
        await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
        expect(new URL(page.url()).pathname).toBe('/dashboard/playground');
        expect(await page.$eval('#f-url', (el) => (el as HTMLInputElement).value)).toBe(`${pages.url}/blue`);
        expect(await page.$eval('#f-link_expires', (el) => (el as HTMLSelectElement).value)).toBe('1d');
        expect(await page.$('#draft-restored')).not.toBeNull();
        if (SHOTS_DIR) await page.screenshot({ path: join(SHOTS_DIR, 'draft-restored-390.png') });
      } finally {
        await page.browserContext().close();
      }
    });
  });
});
