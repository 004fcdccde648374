import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { ChannelInput, ChannelsService } from '../../src/modules/notifications/application/channels.service';
import { toErrorResponse } from '../../src/shared/http/error-filter';
import { closedPort } from '../support/assertions';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { SmtpTestServer } from '../support/smtp-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Notification channels (issue 31) end to end, on whichever database the run uses (SQLite, or PostgreSQL with
 * DATABASE_URL): real captures in real Chromium, e-mail through a real SMTP server process (smtp-server), Slack
 * and Discord messages to real local HTTP receivers. The URL policy is ON: the receivers are reached only
 * because their origins are in URL_ALLOWLIST (which also stands in for hooks.slack.com / discord.com).
 */

interface Received {
  path: string;
  body: Record<string, unknown>;
}

/** Records every message; answers with the next planned status (204 once the plan runs out). */
class Receiver {
  readonly received: Received[] = [];
  plan: number[] = [];
  url = '';
  private readonly server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      this.received.push({ path: req.url ?? '', body: JSON.parse(body) as Record<string, unknown> });
      res.writeHead(this.plan.shift() ?? 204).end();
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

  /** The messages posted to `path`, once (bounded wait) there are `n`. */
  async at(path: string, n: number, timeoutMs = 20_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = this.received.filter((r) => r.path === path);
      if (got.length >= n) return got;
      if (Date.now() > deadline) throw new Error(`only ${got.length} of ${n} messages reached ${path} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const PUBLIC_URL = 'https://shots.example.com';

describe('Notification channels (e-mail over real SMTP, Slack and Discord receivers, URL policy on)', () => {
  let receiver: Receiver;
  let smtp: SmtpTestServer;
  let pages: PageServer;
  let color = 'rgb(0,128,0)';
  /** What /headline shows on its next request: a few letters of a mostly unchanging page. */
  let headline = 'Ship faster, v1';
  let deadUrl: string;
  let t: TestApp;
  let account: TestAccount;
  const api = () => request(t.url);

  beforeAll(async () => {
    receiver = await new Receiver().start();
    smtp = await new SmtpTestServer().start();
    pages = await new PageServer({
      '/': solidPage('rgb(0,0,255)'),
      '/changing': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage(color)),
      '/headline': (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<!doctype html><html><body style="margin:0;font:16px sans-serif"><h1>${headline}</h1><p>Build, test and deploy in one place.</p><p>Pricing</p></body></html>`,
          ),
    }).start();
    deadUrl = `http://127.0.0.1:${await closedPort()}`;
    t = await startTestApp({
      env: {
        ALLOW_PRIVATE_NETWORKS: 'false',
        URL_ALLOWLIST: [receiver.url, pages.url, deadUrl].join(','),
        WEBHOOK_POLL_MS: '100',
        WEBHOOK_RETRY_DELAYS: '1,1,1',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Screenshots <alerts@shots.example.com>',
        PUBLIC_URL,
      },
    });
    account = await t.createAccount({ plan: 'business' });
  });

  afterAll(async () => {
    await t?.close();
    await pages?.stop();
    await smtp?.stop();
    await receiver?.stop();
  });

  async function website(who: TestAccount, name: string, url: string): Promise<number> {
    const res = await api().post('/websites').set(who.auth).send({ name, url });
    expect(res.status).toBe(201);
    return res.body.data.id as number;
  }

  async function capture(who: TestAccount, websiteId: number) {
    const take = await api().post(`/websites/${websiteId}/screenshot`).set(who.auth).send({});
    expect(take.status).toBe(200);
    return waitForJob(t.url, who.auth, take.body.job_id);
  }

  async function channel(who: TestAccount, body: Record<string, unknown>): Promise<{ id: number }> {
    const res = await api().post('/notification-channels').set(who.auth).send(body);
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
    return res.body.data as { id: number };
  }

  it('create answers 201 with the webhook URL masked; GET and the list mask it; PUT and DELETE work', async () => {
    const target = `${receiver.url}/services/T0001/B0001/very-secret-token`;
    const created = await api()
      .post('/notification-channels')
      .set(account.auth)
      .send({ name: 'Ops', type: 'slack', target, events: ['screenshot.changed', 'screenshot.failed'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      data: {
        id: expect.any(Number),
        name: 'Ops',
        type: 'slack',
        target: `${receiver.url}/********`,
        events: ['screenshot.changed', 'screenshot.failed'],
        website_ids: null,
        enabled: true,
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
        last_delivery: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const id = created.body.data.id as number;
    const got = await api().get(`/notification-channels/${id}`).set(account.auth).expect(200);
    expect(got.body.data.target).toBe(`${receiver.url}/********`);
    const list = await api().get('/notification-channels').set(account.auth).expect(200);
    expect(JSON.stringify(list.body)).not.toContain('very-secret-token');
    expect(list.body.meta).toMatchObject({ total: expect.any(Number), current_page: 1 });

    const site = await website(account, 'Listed', `${pages.url}/`);
    const put = await api()
      .put(`/notification-channels/${id}`)
      .set(account.auth)
      .send({ name: 'Ops 2', events: ['execution.failed'], website_ids: [site], enabled: false });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      name: 'Ops 2',
      events: ['execution.failed'],
      website_ids: [site],
      enabled: false,
      target: `${receiver.url}/********`,
    });
    // A new type needs a new target.
    const retype = await api().put(`/notification-channels/${id}`).set(account.auth).send({ type: 'email' });
    expect(retype.status).toBe(422);
    expect(retype.body.details).toEqual([{ field: 'target', message: expect.stringMatching(/target is required/) }]);

    await api().delete(`/notification-channels/${id}`).set(account.auth).expect(200, { success: true, message: 'Notification channel deleted' });
    await api().get(`/notification-channels/${id}`).set(account.auth).expect(404);
  });

  it('bad bodies are 422 naming each field: type, events, target of each type, website_ids of another account, unknown fields', async () => {
    const other = await t.createAccount({ plan: 'business' });
    const theirs = await website(other, 'Theirs', `${pages.url}/`);
    const cases: Array<[Record<string, unknown>, string, RegExp?]> = [
      [{ name: 'x', type: 'sms', target: 'a@b.c', events: ['screenshot.failed'] }, 'type'],
      [{ name: 'x', type: 'email', target: 'a@b.c', events: [] }, 'events'],
      [{ name: 'x', type: 'email', target: 'a@b.c', events: ['screenshot.exploded'] }, 'events'],
      [{ name: '', type: 'email', target: 'a@b.c', events: ['screenshot.failed'] }, 'name'],
      [{ name: 'x', type: 'email', target: 'not an address', events: ['screenshot.failed'] }, 'target', /e-mail address/],
      [{ name: 'x', type: 'slack', target: 'https://example.com/services/x', events: ['screenshot.failed'] }, 'target', /hooks\.slack\.com/],
      [{ name: 'x', type: 'slack', target: 'http://hooks.slack.com/services/x', events: ['screenshot.failed'] }, 'target', /hooks\.slack\.com/],
      [{ name: 'x', type: 'discord', target: 'https://169.254.169.254/api/webhooks/1/x', events: ['screenshot.failed'] }, 'target', /discord\.com/],
      [{ name: 'x', type: 'discord', target: 'not a url', events: ['screenshot.failed'] }, 'target'],
      [{ name: 'x', type: 'email', target: 'a@b.c', events: ['screenshot.failed'], website_ids: [theirs] }, 'website_ids', /not found/],
      [{ name: 'x', type: 'email', target: 'a@b.c', events: ['screenshot.failed'], website_ids: ['1'] }, 'website_ids'],
      [{ name: 'x', type: 'email', target: 'a@b.c', events: ['screenshot.failed'], secret: 'no' }, 'secret'],
    ];
    for (const [body, field, message] of cases) {
      const res = await api().post('/notification-channels').set(account.auth).send(body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 422, code: 'validation_failed' });
      const fields = (res.body.details as Array<{ field: string; message: string }>).filter((d) => d.field.startsWith(field));
      expect({ body, fields: fields.length > 0 }).toEqual({ body, fields: true });
      if (message) expect(fields[0].message).toMatch(message);
    }
  });

  it('at most 20 per account, under concurrency too: 5 creates at once at 18 channels, exactly 2 are 201, the others the 422 of the limit', async () => {
    const limitError = { field: 'name', message: 'an account can have at most 20 notification channels' };
    const channels = t.app.get(ChannelsService);
    const body = (name: string): ChannelInput => ({ name, type: 'slack', target: `${receiver.url}/services/${name}`, events: ['screenshot.failed'] });
    const seed = async (who: number) => {
      for (let i = 0; i < 18; i += 1) await channels.create(who, body(`seed-${i}`));
    };
    const owner = await t.createAccount({ plan: 'business' });
    await seed(owner.id);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        api()
          .post('/notification-channels')
          .set(owner.auth)
          .send(body(`racer-${i}`)),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 422, 422, 422]);
    for (const refused of answers.filter((a) => a.status === 422)) {
      expect(refused.body).toEqual({ success: false, error: 'The given data was invalid', code: 'validation_failed', details: [limitError] });
    }
    expect((await channels.list(owner.id, { page: 1, perPage: 100 })).total).toBe(20);

    // The service itself, called 5 times at once (the dashboard's path): the same 2 pass.
    const other = await t.createAccount({ plan: 'business' });
    await seed(other.id);
    const settled = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => channels.create(other.id, body(`racer-${i}`))));
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected']);
    for (const s of settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected')) {
      expect(toErrorResponse(s.reason)).toMatchObject({ status: 422, body: { code: 'validation_failed', details: [limitError] } });
    }
    expect((await channels.list(other.id, { page: 1, perPage: 100 })).total).toBe(20);
  });

  it("another account's channel is 404 on every route", async () => {
    const mine = await channel(account, { name: 'Mine', type: 'email', target: 'me@example.com', events: ['screenshot.failed'] });
    const other = await t.createAccount({ plan: 'business' });
    for (const [method, path] of [
      ['get', `/notification-channels/${mine.id}`],
      ['put', `/notification-channels/${mine.id}`],
      ['delete', `/notification-channels/${mine.id}`],
      ['post', `/notification-channels/${mine.id}/test`],
    ] as const) {
      const res = await api()
        [method](path)
        .set(other.auth)
        .send(method === 'put' ? { name: 'mine now' } : undefined);
      expect({ path, method, status: res.status, code: res.body.code }).toEqual({ path, method, status: 404, code: 'not_found' });
    }
    await api().delete(`/notification-channels/${mine.id}`).set(account.auth).expect(200);
  });

  it('the test endpoint sends a message to each type: Slack {text, blocks}, Discord {content, embeds}, e-mail from MAIL_FROM', async () => {
    const who = await t.createAccount({ plan: 'business' });
    const slack = await channel(who, { name: 'S', type: 'slack', target: `${receiver.url}/slack-test`, events: ['screenshot.failed'] });
    const discord = await channel(who, { name: 'D', type: 'discord', target: `${receiver.url}/discord-test`, events: ['screenshot.failed'] });
    const email = await channel(who, { name: 'E', type: 'email', target: 'test-endpoint@example.com', events: ['screenshot.failed'] });
    for (const c of [slack, discord, email]) {
      const res = await api().post(`/notification-channels/${c.id}/test`).set(who.auth);
      expect(res.status).toBe(202);
      expect(res.body.data).toEqual({ id: expect.stringMatching(/^msg_/), type: 'notification.test', status: 'pending', created_at: expect.any(String) });
    }
    const [s] = await receiver.at('/slack-test', 1);
    expect(s.body).toMatchObject({ text: 'Test notification from the screenshot service', blocks: expect.any(Array) });
    const [d] = await receiver.at('/discord-test', 1);
    expect(d.body).toMatchObject({
      content: 'Test notification from the screenshot service',
      embeds: [expect.objectContaining({ title: expect.any(String) })],
      allowed_mentions: { parse: [] },
    });
    const mail = (await smtp.until(1)).find((m) => m.to.includes('test-endpoint@example.com'))!;
    expect(mail).toMatchObject({ from: 'alerts@shots.example.com', subject: 'Test notification from the screenshot service' });
    expect(mail.text).toContain('This channel works');
    // The delivery's outcome shows on the channel.
    for (let i = 0; ; i++) {
      const got = await api().get(`/notification-channels/${slack.id}`).set(who.auth).expect(200);
      if (got.body.data.last_delivery?.status === 'succeeded') break;
      if (i > 100) throw new Error(`last_delivery: ${JSON.stringify(got.body.data.last_delivery)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it('a failed capture is e-mailed with the website and the error; a channel for another website hears nothing', async () => {
    const who = await t.createAccount({ plan: 'business' });
    const broken = await website(who, 'Broken shop', `${deadUrl}/`);
    const fine = await website(who, 'Fine shop', `${pages.url}/`);
    await channel(who, { name: 'Mail', type: 'email', target: 'failures@example.com', events: ['screenshot.failed'], website_ids: [broken] });
    await channel(who, { name: 'Other site', type: 'slack', target: `${receiver.url}/other-site`, events: ['screenshot.failed'], website_ids: [fine] });
    const before = smtp.received.length;
    const job = await capture(who, broken);
    expect(job.status).toBe('failed');
    const mail = (await smtp.until(before + 1)).slice(before).find((m) => m.to.includes('failures@example.com'))!;
    expect(mail.subject).toBe('Broken shop: screenshot failed');
    expect(mail.text).toContain(`Error: ${job.error}`);
    expect(mail.text).toContain(`${PUBLIC_URL}/dashboard/jobs/${job.id}`);
    expect(mail.html).toContain('Broken shop: screenshot failed');
    // The other website's channel: its events are not this one's (give the dispatcher a few passes).
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((r) => r.path === '/other-site')).toHaveLength(0);
  });

  it('a visual change reaches Discord with the ratio and the compare and image links; a failing receiver is retried', async () => {
    const who = await t.createAccount({ plan: 'business' });
    color = 'rgb(0,128,0)';
    const site = await website(who, 'Landing page', `${pages.url}/changing`);
    await channel(who, { name: 'Discord', type: 'discord', target: `${receiver.url}/discord-change`, events: ['screenshot.changed'] });
    const first = await capture(who, site);
    expect(first).toMatchObject({ status: 'succeeded' });
    color = 'rgb(200,0,0)';
    receiver.plan = [500]; // the first attempt fails: the message comes again
    const second = await capture(who, site);
    expect(second).toMatchObject({ status: 'succeeded' });
    // The comparison runs in the background after the job; the message follows it (bounded wait on a loaded machine).
    const got = await receiver.at('/discord-change', 2, 45_000).catch(async (err: Error) => {
      const shot = await api().get(`/screenshots/${second.screenshot_id}`).set(who.auth);
      throw new Error(`${err.message}; the capture's change: ${JSON.stringify(shot.body.data?.change)}`);
    });
    expect(got[1].body).toEqual(got[0].body); // the same message on every attempt
    const body = got[1].body as { content: string; embeds: Array<{ description: string; url: string }> };
    expect(body.content).toBe('Landing page changed');
    expect(body.embeds[0].description).toMatch(/Pixels changed: 100\.00 %/);
    // The compare page and the image are signed alert links (issue 46): they open without a dashboard session.
    const signed = (view: string) =>
      new RegExp(`${PUBLIC_URL}/links\\?screenshot=${second.screenshot_id}&view=${view}&access_key=rk_[0-9a-f]{24}&expires=\\d+&signature=[0-9a-f]{64}`);
    expect(body.embeds[0].description).toMatch(signed('compare'));
    expect(body.embeds[0].description).toMatch(signed('image'));
    expect(body.embeds[0].url).toMatch(signed('compare'));
  });

  it('a headline edit ("Ship faster, v1" → "v2") is quoted as its changed lines in Slack and e-mail; the API keeps text_diff {added, removed}', async () => {
    const who = await t.createAccount({ plan: 'business' });
    headline = 'Ship faster, v1';
    const site = await website(who, 'Product page', `${pages.url}/headline`);
    await channel(who, { name: 'Slack', type: 'slack', target: `${receiver.url}/slack-text`, events: ['screenshot.changed'] });
    await channel(who, { name: 'Mail', type: 'email', target: 'text-changes@example.com', events: ['screenshot.changed'] });
    expect(await capture(who, site)).toMatchObject({ status: 'succeeded' });
    headline = 'Ship faster, v2';
    const second = await capture(who, site);
    expect(second).toMatchObject({ status: 'succeeded' });
    const [slack] = await receiver.at('/slack-text', 1, 45_000).catch(async (err: Error) => {
      const shot = await api().get(`/screenshots/${second.screenshot_id}`).set(who.auth);
      throw new Error(`${err.message}; the capture's change: ${JSON.stringify(shot.body.data?.change)}`);
    });
    const section = (slack.body as { blocks: Array<{ text?: { text: string } }> }).blocks[0].text!.text;
    expect(section).toContain('Text: 1 line added, 1 removed\n- Ship faster, v1\n+ Ship faster, v2');
    expect(section).not.toContain('Build, test and deploy'); // context lines are not quoted
    const deadline = Date.now() + 20_000;
    while (!smtp.received.some((m) => m.to.includes('text-changes@example.com'))) {
      if (Date.now() > deadline) throw new Error('the change e-mail never arrived');
      await new Promise((r) => setTimeout(r, 50));
    }
    const mail = smtp.received.find((m) => m.to.includes('text-changes@example.com'))!;
    expect(mail.subject).toBe('Product page changed');
    expect(mail.text).toContain('- Ship faster, v1\n+ Ship faster, v2\n');
    expect(mail.html).toContain('<p style="margin:4px 0">+ Ship faster, v2</p>');
    // The lines stay in messages: the API (and the webhook payload built from it) carries the counts only.
    const shot = await api().get(`/screenshots/${second.screenshot_id}`).set(who.auth).expect(200);
    expect(shot.body.data.change.text_diff).toEqual({ added: 1, removed: 1 });
  });

  it('an SMTP server that refuses once (451) gets the message on the retry', async () => {
    const who = await t.createAccount({ plan: 'business' });
    const c = await channel(who, { name: 'Mail', type: 'email', target: 'retry@example.com', events: ['screenshot.failed'] });
    await smtp.failNext(1);
    await api().post(`/notification-channels/${c.id}/test`).set(who.auth).expect(202);
    const deadline = Date.now() + 20_000;
    while (!smtp.received.some((m) => m.to.includes('retry@example.com'))) {
      if (Date.now() > deadline) throw new Error('the retried e-mail never arrived');
      await new Promise((r) => setTimeout(r, 50));
    }
    const got = await api().get(`/notification-channels/${c.id}`).set(who.auth).expect(200);
    expect(got.body.data.last_delivery).toMatchObject({ type: 'notification.test', status: 'succeeded', error: null });
  });
});
