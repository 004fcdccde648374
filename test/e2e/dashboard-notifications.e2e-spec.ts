import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { WebsitesService } from '../../src/modules/websites/application/websites.service';
import { ChannelRepository } from '../../src/modules/notifications/application/ports';
import { ChannelsService } from '../../src/modules/notifications/application/channels.service';
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

  it('PUBLIC_URL unset: the Alerts page and the Overview warn that alert links point to localhost', async () => {
    expect(await go('/dashboard/notifications')).toBe(200);
    const warning = await page.$eval('#public-url-warning', (d) => d.textContent ?? '');
    expect(warning).toContain(`Links in alerts point to http://localhost:${t.config.port}.`);
    expect(warning).toContain('PUBLIC_URL');
    expect(await go('/dashboard')).toBe(200);
    expect(await page.$('#public-url-warning')).not.toBeNull();
  });

  it('edit a channel: name and events change, the target left empty stays (masked, never shown back); a bad new one is refused beside its field', async () => {
    const channels = t.app.get(ChannelsService);
    const slack = await channels.create(account.id, {
      name: 'Edit me',
      type: 'slack',
      target: `${receiverUrl}/services/T9/B9/kept-secret`,
      events: ['screenshot.failed'],
    });
    expect(await go(`/dashboard/notifications/${slack.id}/edit`)).toBe(200);
    expect(await page.$eval('#channel-target', (i) => (i as HTMLInputElement).value)).toBe('');
    expect(await page.$eval('#current-target', (p) => p.textContent)).toBe(`Now: ${receiverUrl}/********`);
    expect(await page.content()).not.toContain('kept-secret');
    if (SHOTS) {
      await page.setViewport({ width: 390, height: 844 });
      await go(`/dashboard/notifications/${slack.id}/edit`);
      expect(await fitsWidth()).toBe(true);
      await page.screenshot({ path: join(SHOTS, 'notifications-edit-phone.png'), fullPage: true });
      await page.setViewport({ width: 1280, height: 800 });
      await go(`/dashboard/notifications/${slack.id}/edit`);
    }

    await page.type('#channel-target', 'https://example.com/not-slack');
    expect(await clickAndWait('#save-channel-button')).toBe(422);
    expect(await page.$eval('#target-error', (p) => p.textContent)).toMatch(/hooks\.slack\.com/);

    await page.$eval('#channel-target', (i) => ((i as HTMLInputElement).value = ''));
    await page.$eval('#channel-name', (i) => ((i as HTMLInputElement).value = ''));
    await page.type('#channel-name', 'Edited');
    await page.click('input[name=events][value="screenshot.changed"]');
    expect(await clickAndWait('#save-channel-button')).toBe(200);
    expect(new URL(page.url()).search).toBe('?notice=channel-updated');
    const saved = await channels.get(account.id, slack.id);
    expect(saved).toMatchObject({ name: 'Edited', target: `${receiverUrl}/services/T9/B9/kept-secret` });
    expect(saved.events.sort()).toEqual(['screenshot.changed', 'screenshot.failed']);
    await channels.delete(account.id, slack.id);
  });

  it('a long masked target (a Teams workflow host) stays on one line, cut with an ellipsis, at 1280 and 390 px', async () => {
    // Straight into the table: the host is Microsoft's (no DNS here), and the page only shows it.
    const longHost = 'default0123456789abcdef0123456789ab.cd.environment.api.powerplatform.com';
    await t.app.get(ChannelRepository).createWithinLimit(
      {
        accountId: account.id,
        name: 'Team channel',
        type: 'teams',
        target: `https://${longHost}/powerautomate/automations/direct/workflows/0123/triggers/manual/paths/invoke?sig=x`,
        events: ['screenshot.changed', 'screenshot.failed'],
        websiteIds: null,
        createdAt: new Date(),
      },
      20,
    );
    for (const width of [1280, 390]) {
      await page.setViewport({ width, height: width === 390 ? 844 : 800 });
      expect(await go('/dashboard/notifications')).toBe(200);
      expect(await fitsWidth()).toBe(true);
      const box = await page.$eval('tr[data-channel-id] .target', (el) => {
        const host = el.querySelector('.target-host') as HTMLElement;
        const mask = el.querySelector('.target-mask') as HTMLElement;
        const cell = el.closest('td')!.getBoundingClientRect();
        return {
          lines: Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight)),
          title: el.getAttribute('title'),
          cut: host.scrollWidth > host.clientWidth,
          maskInside: mask.getBoundingClientRect().right <= cell.right + 1,
          mask: mask.textContent,
        };
      });
      expect({ width, ...box }).toEqual({ width, lines: 1, title: `https://${longHost}/********`, cut: true, maskInside: true, mask: '/********' });
      if (SHOTS) await page.screenshot({ path: join(SHOTS, width === 390 ? 'notifications-phone.png' : 'notifications-desktop.png'), fullPage: true });
    }
    await page.setViewport({ width: 1280, height: 800 });
  });
});
