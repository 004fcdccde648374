import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { WebsitesService } from '../../src/modules/websites/application/websites.service';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

const PASSWORD = 'notifications dashboard password';
/** DOCS_SHOTS=1 saves the pages as pictures for docs/dashboard/ (as the other dashboard specs do). */
const SHOTS = process.env.DOCS_SHOTS === '1' ? resolve(__dirname, '../../docs/dashboard') : null;

/**
 * The dashboard's Notifications page in real Chromium with JavaScript OFF (plain forms must do everything): add a
 * Slack channel (a wrong URL first: the error beside the field, the typed values kept), send it a test message
 * (a real local receiver gets it), remove it; and the page fits a 390 px phone.
 */
describe('Dashboard: Notifications page (real browser, no JavaScript)', () => {
  let t: TestApp;
  let account: TestAccount;
  let browser: Browser;
  let page: Page;
  let receiver: Server;
  let receiverUrl: string;
  const received: string[] = [];

  const go = async (path: string) => {
    const res = await page.goto(`${t.url}${path}`, { waitUntil: 'load' });
    return res!.status();
  };
  const clickAndWait = async (selector: string) => {
    const [res] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
    return res?.status();
  };
  const fitsWidth = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(body);
        res.writeHead(200).end('ok');
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    t = await startTestApp({
      env: {
        ALLOW_PRIVATE_NETWORKS: 'false',
        URL_ALLOWLIST: receiverUrl,
        WEBHOOK_POLL_MS: '100',
        DASHBOARD_LIMIT_PER_MINUTE: '100000',
        SIGN_IN_LIMIT_PER_MINUTE: '100000',
      },
    });
    account = await t.createAccount({ plan: 'pro' });
    await t.app.get(AccountsService).setPassword(account.email, PASSWORD);
    await t.app.get(WebsitesService).create(account.id, { name: 'Acme home', url: `${receiverUrl}/` });
    browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
    page = await browser.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setViewport({ width: 1280, height: 800 });
    await go('/dashboard/login');
    await page.type('#email', account.email);
    await page.type('#password', PASSWORD);
    await clickAndWait('button[type=submit]');
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    receiver?.closeAllConnections();
    receiver?.close();
  });

  it('add (an error first), send a test, remove; the page fits 390 px', async () => {
    expect(await go('/dashboard/notifications')).toBe(200);
    expect(await page.$eval('nav.main a[aria-current="page"]', (a) => a.textContent)).toBe('Alerts');
    expect(await page.content()).toContain('No channels yet.');

    await page.type('#channel-name', 'Team Slack');
    await page.select('#channel-type', 'slack');
    await page.type('#channel-target', 'https://example.com/not-slack');
    expect(await clickAndWait('#add-channel-button')).toBe(422);
    expect(await page.$eval('#target-error', (p) => p.textContent)).toMatch(/hooks\.slack\.com/);
    expect(await page.$eval('#channel-name', (i) => (i as HTMLInputElement).value)).toBe('Team Slack');

    await page.$eval('#channel-target', (i) => ((i as HTMLInputElement).value = ''));
    await page.type('#channel-target', `${receiverUrl}/services/T1/B1/secret-part`);
    expect(await clickAndWait('#add-channel-button')).toBe(200);
    expect(new URL(page.url()).search).toBe('?notice=channel-created');
    const content = await page.content();
    expect(content).toContain('Team Slack');
    // What the row shows (its text: the mask is kept on one line by a span of its own).
    expect(await page.$eval('tr[data-channel-id] td.mono', (td) => td.textContent)).toBe(`${receiverUrl}/********`);
    expect(content).not.toContain('secret-part');

    await clickAndWait('tr[data-channel-id] form button[type=submit]');
    expect(await page.content()).toMatch(/Test message queued/);
    for (const until = Date.now() + 15_000; received.length === 0;) {
      if (Date.now() > until) throw new Error('the test message never arrived');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(JSON.parse(received[0])).toMatchObject({ text: 'Test notification from the screenshot service' });
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'notifications-desktop.png'), fullPage: true });

    await page.setViewport({ width: 390, height: 844 });
    await go('/dashboard/notifications');
    expect(await fitsWidth()).toBe(true);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'notifications-phone.png'), fullPage: true });
    await page.setViewport({ width: 1280, height: 800 });

    await clickAndWait('tr[data-channel-id] a.button.danger');
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Remove channel?');
    await clickAndWait('#confirm-remove');
    expect(new URL(page.url()).search).toBe('?notice=channel-deleted');
    expect(await page.content()).toContain('No channels yet.');
  });
});
