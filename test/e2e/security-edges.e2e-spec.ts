import { createHmac } from 'node:crypto';
import request from 'supertest';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { binary } from '../support/assertions';
import { DashboardClient } from '../support/dashboard-session';
import { decodeImage } from '../support/images';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The edges an outside attacker found (issue 43, security 1–4), against the real app (SQLite + in-process queue;
 * with DATABASE_URL and REDIS_URL: PostgreSQL + Bull) and real signed links: secrets in public links, control
 * characters in names, Slack/Discord targets that only looked right, `__proto__` and NUL in /render's query,
 * lone surrogates in JSON bodies.
 *
 * Rate limit: Business (60 a minute); the clock is pinned and every test starts in a fresh minute.
 */
const EVIL_NAME = 'Evil\r\nBcc: victim@evil.example';
const PASSWORD = 'security edges password';

describe('Security edges (issue 43)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let minute = Date.parse('2035-03-01T08:00:00Z');
  const api = () => request(t.url);

  async function renderJobs(): Promise<number> {
    const { items } = await t.app.get(JobRepository).list(account.id, { page: 1, perPage: 100 }, { type: 'render' });
    return items.length;
  }

  /** A render key of the account, and a function that signs a query with it (access_key added). */
  async function signer(name: string): Promise<(query: string) => string> {
    const key = await api().post('/render-keys').set(account.auth).send({ name });
    expect(key.status).toBe(201);
    const { access_key, secret } = key.body.data as { access_key: string; secret: string };
    return (query: string) => {
      const signed = `${query}&access_key=${access_key}`;
      return `/render?${signed}&signature=${createHmac('sha256', secret).update(signed).digest('hex')}`;
    };
  }

  beforeAll(async () => {
    pages = await new PageServer({ '/red': solidPage('rgb(255,0,0)'), '/hook': '{}' }).start();
    t = await startTestApp({ env: { CAPTURE_TIMEOUT_MS: '8000', URL_ALLOWLIST: pages.url } });
    account = await t.createAccount({ plan: 'business' });
  });
  afterAll(async () => {
    await t?.close();
    await pages?.stop();
  });
  beforeEach(() => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  });

  describe('1. no secrets in a query string', () => {
    const SECRETS = {
      cookies: JSON.stringify([{ name: 'sid', value: 'secret-session' }]),
      headers: JSON.stringify({ 'X-Api-Key': 'secret-key' }),
      http_auth: JSON.stringify({ username: 'u', password: 'secret-password' }),
    };

    it('a signed link (valid signature) with cookies, headers or http_auth → 422 naming each, pointing to saved sessions; nothing rendered', async () => {
      const sign = await signer('public image');
      const url = encodeURIComponent(`${pages.url}/red`);
      for (const [field, value] of Object.entries(SECRETS)) {
        const res = await api().get(sign(`url=${url}&${field}=${encodeURIComponent(value)}`));
        expect({ field, status: res.status, body: res.body }).toEqual({
          field,
          status: 422,
          body: {
            success: false,
            error: 'The given data was invalid',
            code: 'validation_failed',
            details: [
              {
                field,
                message: `${field} must not be sent in a signed link: the link is public. Use a saved session: create one with POST /sessions and pass its id as session_id (docs/sessions.md), or send it in a POST /render body with a bearer token`,
              },
            ],
          },
        });
        expect(String(res.headers['cache-control'] ?? '')).not.toMatch(/public/);
      }
      // All three at once: each named.
      const all = await api().get(
        sign(
          `url=${url}&${Object.entries(SECRETS)
            .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
            .join('&')}`,
        ),
      );
      expect(all.status).toBe(422);
      expect(all.body.details.map((d: { field: string }) => d.field)).toEqual(['headers', 'cookies', 'http_auth']);
      // The signature was good (a bad one is a 403 first): the 422 is the secret's.
      const tampered = await api().get(sign(`url=${url}&cookies=${encodeURIComponent(SECRETS.cookies)}`).replace('sid', 'sie'));
      expect(tampered.status).toBe(403);
      expect(await renderJobs()).toBe(0);
    });

    it('a bearer GET /render (and a query string beside a POST body) refuses them too; a bearer POST body may send them', async () => {
      for (const [field, value] of Object.entries(SECRETS)) {
        const get = await api()
          .get('/render')
          .query({ url: `${pages.url}/red`, [field]: value })
          .set(account.auth);
        expect({ field, status: get.status, details: get.body.details }).toEqual({
          field,
          status: 422,
          details: [
            {
              field,
              message: `${field} must not be sent in a query string: URLs end up in logs and histories. Use a saved session: create one with POST /sessions and pass its id as session_id (docs/sessions.md), or send it in a POST /render body with a bearer token`,
            },
          ],
        });
      }
      const beside = await api()
        .post(`/render?headers=${encodeURIComponent(SECRETS.headers)}`)
        .set(account.auth)
        .send({ url: `${pages.url}/red` });
      expect({ status: beside.status, fields: beside.body.details?.map((d: { field: string }) => d.field) }).toEqual({ status: 422, fields: ['headers'] });
      expect(await renderJobs()).toBe(0);

      const body = await api()
        .post('/render')
        .set(account.auth)
        .send({ url: `${pages.url}/red`, viewport_width: 400, cookies: [{ name: 'sid', value: 'secret-session' }], headers: { 'X-Api-Key': 'k' } })
        .buffer(true)
        .parse(binary);
      expect(body.status).toBe(200);
      expect(body.headers['cache-control']).toBe('private, no-store');
      expect((await decodeImage(body.body as Buffer)).width).toBe(400);
    });
  });

  describe('2. names are one line: no CR, LF or other control characters', () => {
    it('websites, scenarios, schedules, notification channels and render keys refuse "Evil\\r\\nBcc: …" with a 422 naming `name`, on create and update', async () => {
      const website = await api()
        .post('/websites')
        .set(account.auth)
        .send({ name: 'Home', url: `${pages.url}/red` });
      expect(website.status).toBe(201);
      const websiteId = website.body.data.id as number;
      const scenario = await api()
        .post('/scenarios')
        .set(account.auth)
        .send({ name: 'Login', website_id: websiteId, steps: [{ type: 'screenshot' }] });
      expect(scenario.status).toBe(201);
      const schedule = await api()
        .post('/schedules')
        .set(account.auth)
        .send({ name: 'Morning', website_id: websiteId, frequency: 'daily', time: '10:00', timezone: 'Europe/Berlin' });
      expect(schedule.status).toBe(201);
      const channel = await api()
        .post('/notification-channels')
        .set(account.auth)
        .send({ name: 'Ops', type: 'slack', target: `${pages.url}/hook`, events: ['screenshot.failed'] });
      expect(channel.status).toBe(201);

      const attempts: Array<[string, (name: string) => request.Test]> = [
        [
          'POST /websites',
          (name) =>
            api()
              .post('/websites')
              .set(account.auth)
              .send({ name, url: `${pages.url}/red` }),
        ],
        ['PUT /websites/{id}', (name) => api().put(`/websites/${websiteId}`).set(account.auth).send({ name })],
        [
          'POST /scenarios',
          (name) =>
            api()
              .post('/scenarios')
              .set(account.auth)
              .send({ name, website_id: websiteId, steps: [{ type: 'screenshot' }] }),
        ],
        ['PUT /scenarios/{id}', (name) => api().put(`/scenarios/${scenario.body.data.id}`).set(account.auth).send({ name })],
        [
          'POST /schedules',
          (name) =>
            api().post('/schedules').set(account.auth).send({ name, website_id: websiteId, frequency: 'daily', time: '10:00', timezone: 'Europe/Berlin' }),
        ],
        ['PUT /schedules/{id}', (name) => api().put(`/schedules/${schedule.body.data.id}`).set(account.auth).send({ name })],
        [
          'POST /notification-channels',
          (name) =>
            api()
              .post('/notification-channels')
              .set(account.auth)
              .send({ name, type: 'slack', target: `${pages.url}/hook`, events: ['screenshot.failed'] }),
        ],
        ['PUT /notification-channels/{id}', (name) => api().put(`/notification-channels/${channel.body.data.id}`).set(account.auth).send({ name })],
        ['POST /render-keys', (name) => api().post('/render-keys').set(account.auth).send({ name })],
      ];
      for (const [route, send] of attempts) {
        for (const name of [EVIL_NAME, 'line\u2028separator', 'tab\there', 'bell\u0007', 'c1\u0085', 'del\u007f']) {
          const res = await send(name);
          expect({ route, name, status: res.status, details: res.body.details }).toEqual({
            route,
            name,
            status: 422,
            details: [{ field: 'name', message: 'name must be one line of text without control characters (no CR, LF, tab, NUL, DEL or U+2028/U+2029)' }],
          });
        }
        t.clock.advance(60_000); // 54 refused requests: keep clear of the minute's limit
      }
      // Nothing was stored or renamed.
      const names = async (path: string) => ((await api().get(path).set(account.auth)).body.data as Array<{ name: string | null }>).map((x) => x.name);
      expect(await names('/websites')).toEqual(['Home']);
      expect(await names('/scenarios')).toEqual(['Login']);
      expect(await names('/schedules')).toEqual(['Morning']);
      expect(await names('/notification-channels')).toEqual(['Ops']);
      expect((await names('/render-keys')).filter((n) => n !== null && /[\r\n\t]/.test(n))).toEqual([]);
    });

    it('the dashboard’s render-key form refuses such a name too (422, no key made)', async () => {
      await t.app.get(AccountsService).setPassword(account.email, PASSWORD);
      const c = await new DashboardClient(t.url).signInOk(account.email, PASSWORD);
      const before = (await api().get('/render-keys').set(account.auth)).body.data.length as number;
      const res = await c.submit('/dashboard/settings/render-keys', { name: 'Evil\r\nBcc: victim@evil.example' });
      expect(res.status).toBe(422);
      expect(res.text).toContain('The name must be one line of text');
      expect((await api().get('/render-keys').set(account.auth)).body.data.length).toBe(before);
    });
  });

  describe('3. Slack and Discord targets: https, exact host, default port, the webhooks path', () => {
    let channelId: number;
    beforeAll(async () => {
      const made = await api()
        .post('/notification-channels')
        .set(account.auth)
        .send({ name: 'Targets', type: 'slack', target: `${pages.url}/hook`, events: ['screenshot.failed'] });
      expect(made.status).toBe(201);
      channelId = made.body.data.id as number;
    });

    it.each([
      ['discord', 'https://discord.com/api/other', 'https://discord.com/api/webhooks/…'],
      ['discord', 'https://discord.com/api/webhooks/../other', 'https://discord.com/api/webhooks/…'],
      ['discord', 'https://discord.com/api/webhooks/%2e%2e/%2e%2e/users/@me', 'https://discord.com/api/webhooks/…'],
      ['discord', 'https://discord.com:8443/api/webhooks/1/token', 'https://discord.com/api/webhooks/…'],
      ['slack', 'https://hooks.slack.com/other/T/B/X', 'https://hooks.slack.com/services/…'],
      ['slack', 'https://hooks.slack.com/services/..%2f..%2fadmin', 'https://hooks.slack.com/services/…'],
    ])('%s %s → 422 naming target, create and update', async (type, target, expected) => {
      const label = type === 'slack' ? 'Slack' : 'Discord';
      const details = [{ field: 'target', message: `target must be a ${label} incoming-webhook URL (${expected})` }];
      const created = await api()
        .post('/notification-channels')
        .set(account.auth)
        .send({ name: 'Hooked', type, target, events: ['screenshot.failed'] });
      expect({ status: created.status, details: created.body.details }).toEqual({ status: 422, details });
      const list = (await api().get('/notification-channels').set(account.auth)).body.data as Array<{ name: string }>;
      expect(list.map((c) => c.name)).not.toContain('Hooked');
      const updated = await api().put(`/notification-channels/${channelId}`).set(account.auth).send({ type, target });
      expect({ status: updated.status, details: updated.body.details }).toEqual({ status: 422, details });
    });
  });

  describe('4. /render’s query like every other route’s; lone surrogates', () => {
    it('GET /render?…&__proto__=x → 422 (unknown field), bearer and signed alike', async () => {
      const jobs = await renderJobs();
      const url = encodeURIComponent(`${pages.url}/red`);
      const bearer = await api().get(`/render?url=${url}&__proto__=x`).set(account.auth);
      expect({ status: bearer.status, details: bearer.body.details }).toEqual({
        status: 422,
        details: [{ field: '__proto__', message: '__proto__ is not allowed' }],
      });
      const sign = await signer('proto');
      const signed = await api().get(sign(`url=${url}&__proto__=x`));
      expect({ status: signed.status, details: signed.body.details }).toEqual({
        status: 422,
        details: [{ field: '__proto__', message: '__proto__ is not allowed' }],
      });
      expect(await renderJobs()).toBe(jobs);
    });

    it('cache_key=a%00b → 422 naming cache_key (NUL), as documented', async () => {
      const jobs = await renderJobs();
      const res = await api()
        .get(`/render?url=${encodeURIComponent(`${pages.url}/red`)}&cache_ttl=60&cache_key=a%00b`)
        .set(account.auth);
      expect({ status: res.status, details: res.body.details }).toEqual({
        status: 422,
        details: [{ field: 'cache_key', message: 'cache_key must not contain NUL characters' }],
      });
      expect(await renderJobs()).toBe(jobs);
    });

    it('a lone surrogate ("a\\ud800b") in any string field → 422 naming it, nothing stored', async () => {
      const before = (await api().get('/websites').set(account.auth)).body.meta.total as number;
      const website = await api()
        .post('/websites')
        .set(account.auth)
        .set('Content-Type', 'application/json')
        .send(`{"name":"a\\ud800b","url":"${pages.url}/red"}`);
      expect({ status: website.status, details: website.body.details }).toEqual({
        status: 422,
        details: [{ field: 'name', message: 'name must be valid Unicode text (it holds a lone surrogate such as \\ud800)' }],
      });
      expect((await api().get('/websites').set(account.auth)).body.meta.total).toBe(before);
      const render = await api()
        .post('/render')
        .set(account.auth)
        .set('Content-Type', 'application/json')
        .send(`{"url":"${pages.url}/red","cache_key":"x\\udfffy"}`);
      expect({ status: render.status, fields: render.body.details?.map((d: { field: string }) => d.field) }).toEqual({ status: 422, fields: ['cache_key'] });
      // A pair (an emoji) is text like any other.
      const emoji = await api()
        .post('/websites')
        .set(account.auth)
        .set('Content-Type', 'application/json')
        .send(`{"name":"Shop \\ud83d\\uded2","url":"${pages.url}/red"}`);
      expect(emoji.status).toBe(201);
      expect(emoji.body.data.name).toBe('Shop 🛒');
    });
  });
});
