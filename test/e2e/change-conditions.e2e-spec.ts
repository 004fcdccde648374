/// <reference lib="dom" />
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import puppeteer from 'puppeteer';
import request from 'supertest';
import { CHROME_ARGS } from '../../src/adapters/capture/browser-pool';
import { findChrome } from '../../src/adapters/capture/capture-options';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { closedPort } from '../support/assertions';
import { waitForComparison } from '../support/changes';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Issue 46 items 3 and 4 end to end: a website's `ignore_text` and `alert_when` decide whether a change is `changed`
 * and alerted (real Chromium on pages served on 127.0.0.1, Slack messages to a real local HTTP receiver), and a failed
 * capture is told in words in the job's `error` and the webhook payload, the raw code in `error_code`. The URL
 * policy is on: the pages and the receiver are reached through URL_ALLOWLIST. Runs on both stacks.
 */

interface Received {
  path: string;
  body: Record<string, unknown>;
}

class Receiver {
  readonly received: Received[] = [];
  url = '';
  private readonly server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      this.received.push({ path: req.url ?? '', body: JSON.parse(body) as Record<string, unknown> });
      res.writeHead(204).end();
    });
  });

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async at(path: string, n: number, timeoutMs = 45_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = this.received.filter((r) => r.path === path);
      if (got.length >= n) return got;
      if (Date.now() > deadline) throw new Error(`only ${got.length} of ${n} messages reached ${path} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Pictures of the website form's conditions: DASHBOARD_SCREENSHOTS (docs/dashboard for the docs), else /tmp. */
const SHOTS_DIR = resolve(process.env.DASHBOARD_SCREENSHOTS ?? '/tmp/change-conditions');
const PASSWORD = 'change conditions password';

const page = (lines: string[]) =>
  `<!doctype html><html><body style="margin:0;font:16px sans-serif"><h1>Acme kettle</h1>${lines.map((l) => `<p>${l}</p>`).join('')}<p>Ships in 2 days.</p></body></html>`;

describe('Change conditions and failure words (issue 46, items 3 and 4)', () => {
  let receiver: Receiver;
  let pages: PageServer;
  let deadUrl: string;
  let t: TestApp;
  let clock = 0;
  let headline = 'Kettle, 1.7 l';
  let price = '$12.99';
  let longLine = `${'a'.repeat(200_000)}!`;
  const api = () => request(t.url);

  beforeAll(async () => {
    receiver = await new Receiver().start();
    pages = await new PageServer({
      // The clock line changes on every visit; the headline only when a test changes it.
      '/clock': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(page([headline, `Updated at 10:${String(++clock).padStart(2, '0')}:07`])),
      '/price': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page([`Price: ${price}`])),
      '/long': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page([longLine, `Visit ${++clock}`])),
    }).start();
    deadUrl = `http://127.0.0.1:${await closedPort()}`;
    t = await startTestApp({
      env: {
        ALLOW_PRIVATE_NETWORKS: 'false',
        URL_ALLOWLIST: [receiver.url, pages.url, deadUrl].join(','),
        WEBHOOK_POLL_MS: '100',
        WEBHOOK_RETRY_DELAYS: '1,1,1',
        SCHEDULE_TICK_MS: '3600000',
        SIGN_IN_LIMIT_PER_MINUTE: '100000',
        DASHBOARD_LIMIT_PER_MINUTE: '100000',
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await pages?.stop();
    await receiver?.stop();
  });

  async function website(who: TestAccount, body: Record<string, unknown>): Promise<number> {
    const res = await api().post('/websites').set(who.auth).send(body);
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
    return res.body.data.id as number;
  }

  async function capture(who: TestAccount, websiteId: number): Promise<number> {
    const take = await api().post(`/websites/${websiteId}/screenshot`).set(who.auth).send({});
    expect(take.status).toBe(200);
    const job = await waitForJob(t.url, who.auth, take.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded' });
    return job.screenshot_id as number;
  }

  async function change(who: TestAccount, id: number): Promise<Record<string, unknown>> {
    await waitForComparison(t.app, id);
    const res = await api().get(`/screenshots/${id}`).set(who.auth).expect(200);
    return res.body.data.change as Record<string, unknown>;
  }

  async function slack(who: TestAccount, path: string): Promise<void> {
    const res = await api()
      .post('/notification-channels')
      .set(who.auth)
      .send({ name: path, type: 'slack', target: `${receiver.url}${path}`, events: ['screenshot.changed'] });
    expect(res.status).toBe(201);
  }

  /** The Slack messages at `path` once there are `n`: each names its capture through its (signed) compare link. */
  async function alertedShots(path: string, n: number): Promise<number[]> {
    const got = await receiver.at(path, n);
    return got.map((m) => {
      const text = JSON.stringify(m.body);
      return Number(/\/links\?screenshot=(\d+)(?:&|&amp;|\\u0026)view=compare/.exec(text)![1]);
    });
  }

  it('ignore_text and alert_when are validated (422 naming ignore_text[i]), echoed, and replaced by PUT', async () => {
    const who = await t.createAccount({ plan: 'business' });
    const bad = await api()
      .post('/websites')
      .set(who.auth)
      .send({ name: 'x', url: `${pages.url}/clock`, ignore_text: ['^ok$', '(a)\\1', '('], alert_when: { min_changed_ratio: 2, colour: 'red' } });
    expect(bad.status).toBe(422);
    const fields = (bad.body.details as Array<{ field: string; message: string }>).map((d) => d.field).sort();
    expect(fields).toEqual(expect.arrayContaining(['alert_when.min_changed_ratio', 'ignore_text[1]', 'ignore_text[2]']));
    expect(fields).not.toContain('ignore_text[0]');
    expect(bad.body.details).toEqual(expect.arrayContaining([{ field: 'ignore_text[1]', message: expect.stringMatching(/^ignore_text\[1\] .*RE2.*\\1/) }]));
    expect(JSON.stringify(bad.body.details)).toContain('colour');
    const tooMany = await api()
      .post('/websites')
      .set(who.auth)
      .send({ name: 'x', url: `${pages.url}/clock`, ignore_text: Array.from({ length: 21 }, (_, i) => `line ${i}`) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.details).toEqual([{ field: 'ignore_text', message: expect.stringContaining('at most 20') }]);

    const id = await website(who, {
      name: 'Kettle',
      url: `${pages.url}/clock`,
      ignore_text: ['^Updated at'],
      alert_when: { text_contains: 'In stock', text_only: true },
    });
    const got = await api().get(`/websites/${id}`).set(who.auth).expect(200);
    expect(got.body.data).toMatchObject({ ignore_text: ['^Updated at'], alert_when: { text_contains: 'In stock', text_only: true } });
    const put = await api()
      .put(`/websites/${id}`)
      .set(who.auth)
      .send({ alert_when: { min_changed_ratio: 0.5 } })
      .expect(200);
    expect(put.body.data).toMatchObject({ ignore_text: ['^Updated at'], alert_when: { min_changed_ratio: 0.5 } });
    const badPut = await api()
      .put(`/websites/${id}`)
      .set(who.auth)
      .send({ ignore_text: ['fine', '(?=x)'] });
    expect(badPut.status).toBe(422);
    expect(badPut.body.details.map((d: { field: string }) => d.field)).toEqual(['ignore_text[1]']);
    // Another account's website: 404, not its conditions.
    const other = await t.createAccount({ plan: 'business' });
    await api().put(`/websites/${id}`).set(other.auth).send({ ignore_text: [] }).expect(404);
  });

  it('a page whose only change is a clock line (ignored) is changed: false and alerts nobody; the next real change alerts once', async () => {
    const who = await t.createAccount({ plan: 'business' });
    headline = 'Kettle, 1.7 l';
    const id = await website(who, { name: 'Kettle', url: `${pages.url}/clock`, ignore_text: ['^updated at \\d{2}:\\d{2}'] });
    await slack(who, '/clock');
    const first = await capture(who, id);
    const second = await capture(who, id);
    expect(await change(who, second)).toMatchObject({ previous_id: first, changed: false, text_changed: false, text_diff: { added: 0, removed: 0 } });
    // The text diff leaves the ignored line out.
    const diff = await api().get(`/screenshots/${second}/text-diff`).set(who.auth);
    expect(diff.text).not.toMatch(/^[-+]Updated at/m);
    headline = 'Kettle, 1.8 l';
    const third = await capture(who, id);
    expect(await change(who, third)).toMatchObject({ changed: true, text_diff: { added: 1, removed: 1 } });
    // The third capture's message arrives; none ever came for the second (it would have been emitted first).
    expect(await alertedShots('/clock', 1)).toEqual([third]);
    const changes = await api().get(`/websites/${id}/changes`).set(who.auth).expect(200);
    expect(changes.body.data.map((s: { id: number }) => s.id)).toEqual([third]);
  });

  it('alert_when.text_contains: the price phrase alerts only when it appears', async () => {
    const who = await t.createAccount({ plan: 'business' });
    price = '$12.99';
    const id = await website(who, { name: 'Kettle price', url: `${pages.url}/price`, alert_when: { text_contains: 'Price: $9.99' } });
    await slack(who, '/price');
    await capture(who, id);
    price = '$10.99';
    const cheaper = await capture(who, id);
    expect(await change(who, cheaper)).toMatchObject({ changed: false, text_changed: true, text_diff: { added: 1, removed: 1 } });
    price = '$9.99';
    const target = await capture(who, id);
    expect(await change(who, target)).toMatchObject({ changed: true, text_changed: true });
    expect(await alertedShots('/price', 1)).toEqual([target]);
  });

  it('a hostile pattern, (a+)+$, on a 200,000-character line: the comparison ends fast (RE2 runs in linear time)', async () => {
    const who = await t.createAccount({ plan: 'business' });
    const id = await website(who, { name: 'Long line', url: `${pages.url}/long`, ignore_text: ['(a+)+$', '^visit \\d+$'] });
    await capture(who, id);
    longLine = `${'a'.repeat(200_000)}?`;
    const second = await capture(who, id);
    const started = Date.now();
    const result = await change(who, second);
    // A backtracking engine would not finish `(a+)+$` on this line in any lifetime; RE2 takes milliseconds. The
    // bound is generous for a loaded 2-core machine (the comparison also decodes and diffs two pictures).
    expect(Date.now() - started).toBeLessThan(15_000);
    // The long line changed ("!" → "?") and is not ignored (it does not end in "a"); the visit line is ignored.
    expect(result).toMatchObject({ text_changed: true, text_diff: { added: 1, removed: 1 } });
  });

  it('a refused connection is told in words in the job’s error and in the webhook payload; the raw code is error_code', async () => {
    const who = await t.createAccount({ plan: 'business' });
    const hook = await api()
      .post('/webhooks')
      .set(who.auth)
      .send({ url: `${receiver.url}/failed`, events: ['screenshot.failed'] });
    expect(hook.status).toBe(201);
    const id = await website(who, { name: 'Down', url: `${deadUrl}/` });
    const take = await api().post(`/websites/${id}/screenshot`).set(who.auth).send({}).expect(200);
    const job = await waitForJob(t.url, who.auth, take.body.job_id);
    const sentence = 'The site refused the connection. Check that the site is up and that the address and port are right.';
    expect(job).toMatchObject({ status: 'failed', error: sentence, error_code: 'net::ERR_CONNECTION_REFUSED' });
    const [delivery] = await receiver.at('/failed', 1);
    const data = delivery.body.data as { job: { id: string; error: string; error_code: string } };
    expect(data.job).toMatchObject({ id: take.body.job_id, error: sentence, error_code: 'net::ERR_CONNECTION_REFUSED' });
    expect(JSON.stringify(delivery.body)).not.toContain('"error":"net::');
  });

  it('the dashboard shows the conditions on the website form and edits them, at 1280 and 390 px; a bad pattern is named on its line', async () => {
    mkdirSync(SHOTS_DIR, { recursive: true });
    const who = await t.createAccount({ plan: 'business', name: 'Dana' });
    await t.app.get(AccountsService).setPassword(who.email, PASSWORD);
    const id = await website(who, {
      name: 'Kettle shop',
      url: `${pages.url}/price`,
      ignore_text: ['^Updated at \\d{2}:\\d{2}', 'visitors today'],
      alert_when: { text_contains: 'In stock', min_changed_ratio: 0.05 },
    });
    const browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
    try {
      const tab = await browser.newPage();
      await tab.setViewport({ width: 1280, height: 800 });
      await tab.goto(`${t.url}/dashboard/login`);
      await tab.type('#email', who.email);
      await tab.type('#password', PASSWORD);
      await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.click('button[type=submit]')]);
      for (const viewport of [
        { width: 1280, height: 800 },
        { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 },
      ]) {
        await tab.setViewport(viewport);
        await tab.goto(`${t.url}/dashboard/websites/${id}/edit`, { waitUntil: 'load' });
        const shown = await tab.evaluate(() => {
          const value = (id: string) => (document.getElementById(id) as HTMLInputElement | HTMLTextAreaElement).value;
          const box = document.querySelector('[data-field="ignore_text"]')!.getBoundingClientRect();
          return {
            ignore: value('f-ignore_text'),
            contains: value('f-alert_when-text_contains'),
            missing: value('f-alert_when-text_missing'),
            ratio: value('f-alert_when-min_changed_ratio'),
            textOnly: (document.getElementById('f-alert_when-text_only') as HTMLInputElement).checked,
            visible: box.width > 0 && box.height > 0,
            fits: document.documentElement.scrollWidth <= document.documentElement.clientWidth,
          };
        });
        expect(shown).toEqual({
          ignore: '^Updated at \\d{2}:\\d{2}\nvisitors today',
          contains: 'In stock',
          missing: '',
          ratio: '0.05',
          textOnly: false,
          visible: true,
          fits: true,
        });
        await tab.$eval('[data-field="change_threshold"]', (el) => el.scrollIntoView());
        await tab.screenshot({ path: join(SHOTS_DIR, `website-conditions-${viewport.width}.png`) });
      }

      // Edited in the form: a pattern RE2 refuses is named on its line, what was typed stays.
      await tab.setViewport({ width: 1280, height: 800 });
      const setValue = (selector: string, value: string) => tab.$eval(selector, (el, v) => ((el as HTMLInputElement).value = v), value);
      await setValue('#f-ignore_text', '^Updated at\n(a)\\1');
      await setValue('#f-alert_when-text_contains', '');
      await setValue('#f-alert_when-text_missing', 'Sold out');
      await setValue('#f-alert_when-min_changed_ratio', '');
      await tab.click('#f-alert_when-text_only');
      await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.$eval('#f-ignore_text', (el) => (el as HTMLTextAreaElement).form!.requestSubmit())]);
      const rejected = await tab.evaluate(() => ({
        error: document.getElementById('e-ignore_text')?.textContent ?? null,
        kept: (document.getElementById('f-alert_when-text_missing') as HTMLInputElement).value,
      }));
      expect(rejected.error).toMatch(/^Line 2 is not a regular expression this service can run \(RE2 syntax.*\\1\.$/);
      expect(rejected.kept).toBe('Sold out');
      await tab.$eval('[data-field="ignore_text"]', (el) => el.scrollIntoView());
      await tab.screenshot({ path: join(SHOTS_DIR, 'website-conditions-error-1280.png') });
      await setValue('#f-ignore_text', '^Updated at');
      await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.$eval('#f-ignore_text', (el) => (el as HTMLTextAreaElement).form!.requestSubmit())]);
      const saved = await api().get(`/websites/${id}`).set(who.auth).expect(200);
      expect(saved.body.data).toMatchObject({ ignore_text: ['^Updated at'], alert_when: { text_missing: 'Sold out', text_only: true } });
      expect(saved.body.data.alert_when).not.toHaveProperty('text_contains');
      expect(saved.body.data.alert_when).not.toHaveProperty('min_changed_ratio');
    } finally {
      await browser.close();
    }
  });
});
