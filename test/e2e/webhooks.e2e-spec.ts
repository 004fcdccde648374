import { once } from 'node:events';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { WebhooksService } from '../../src/modules/webhooks/application/webhooks.service';
import { toErrorResponse } from '../../src/shared/http/error-filter';
import { closedPort } from '../support/assertions';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';
import { createTestDatabase, usingPostgres } from '../support/test-database';

/**
 * Webhooks (issue 18, Standard Webhooks format) end to end: real captures in real Chromium announced to a local
 * receiver, signatures checked with the `standardwebhooks` package, retries, restarts and two instances. The URL
 * policy is ON here (ALLOW_PRIVATE_NETWORKS=false): the receiver and the page server are reached only because
 * their origins are in URL_ALLOWLIST, and a metadata address is refused.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One test's endpoint on the shared receiver: its own path, so a late delivery meant for an earlier test (a
 * capture that finished after that test gave up on it, a retry still due) lands on that test's channel and never
 * counts as this one's. Records what arrives; answers with the next planned status (204 once the plan runs out).
 */
class Channel {
  readonly received: Received[] = [];
  plan: number[] = [];

  constructor(readonly url: string) {}

  answer(delivery: Received): number {
    this.received.push(delivery);
    return this.plan.shift() ?? 204;
  }

  /** Waits (bounded) until `n` deliveries have arrived on this channel in all. */
  async until(n: number, timeoutMs = 20_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < n) {
      if (Date.now() > deadline) throw new Error(`only ${this.received.length} of ${n} deliveries arrived within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.received;
  }
}

/** A local HTTP receiver serving one Channel per path (paths nobody opened answer 404). */
class Receiver {
  private readonly channels = new Map<string, Channel>();
  private opened = 0;
  private readonly server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const channel = this.channels.get(req.url ?? '');
      res.writeHead(channel ? channel.answer({ headers: req.headers, body }) : 404).end();
    });
  });
  url = '';

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** A fresh endpoint (URL) whose deliveries no other test sees. */
  channel(): Channel {
    const path = `/hook/${++this.opened}`;
    const channel = new Channel(`${this.url}${path}`);
    this.channels.set(path, channel);
    return channel;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('Webhooks (Standard Webhooks, real captures, URL policy on)', () => {
  let receiver: Receiver;
  let pages: PageServer;
  let deadPort: number;
  let t: TestApp;
  let account: TestAccount;
  let env: Record<string, string>;
  const api = () => request(t.url);

  beforeAll(async () => {
    receiver = await new Receiver().start();
    pages = await new PageServer({ '/': solidPage('rgb(0,128,0)') }).start();
    deadPort = await closedPort();
    env = {
      ALLOW_PRIVATE_NETWORKS: 'false',
      URL_ALLOWLIST: [receiver.url, pages.url, `http://127.0.0.1:${deadPort}`].join(','),
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_RETRY_DELAYS: '1,1,1',
      CAPTURE_TIMEOUT_MS: '5000',
    };
    t = await startTestApp({ env });
    account = await t.createAccount({ plan: 'business' });
  });

  afterAll(async () => {
    await t?.close();
    await pages?.stop();
    await receiver?.stop();
  });

  /** A webhook of `who` pointing at `channel` (a fresh one, this test's own, unless given). */
  async function createWebhook(who: TestAccount, events = ['screenshot.succeeded', 'screenshot.failed'], app = t, channel = receiver.channel()) {
    const res = await request(app.url).post('/webhooks').set(who.auth).send({ url: channel.url, events, description: 'test receiver' });
    expect(res.status).toBe(201);
    return { ...(res.body.data as { id: number; secret: string }), channel };
  }

  async function capture(who: TestAccount, url = `${pages.url}/`) {
    const site = await api().post('/websites').set(who.auth).send({ name: 'hooked', url });
    expect(site.status).toBe(201);
    const take = await api().post(`/websites/${site.body.data.id}/screenshot`).set(who.auth).send({});
    expect(take.status).toBe(200);
    return waitForJob(t.url, who.auth, take.body.job_id);
  }

  it('create answers 201 with the secret once; GET, list and PUT never show it; DELETE removes it', async () => {
    const created = await api()
      .post('/webhooks')
      .set(account.auth)
      .send({ url: `${receiver.url}/a`, events: ['execution.failed'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      data: {
        id: expect.any(Number),
        url: `${receiver.url}/a`,
        events: ['execution.failed'],
        enabled: true,
        description: null,
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      },
    });
    expect(Buffer.from(created.body.data.secret.slice(6), 'base64')).toHaveLength(32);
    const id = created.body.data.id;

    const got = await api().get(`/webhooks/${id}`).set(account.auth).expect(200);
    expect(got.body.data).not.toHaveProperty('secret');
    const list = await api().get('/webhooks').set(account.auth).expect(200);
    expect(list.body.data.find((w: { id: number }) => w.id === id)).not.toHaveProperty('secret');
    expect(list.body.meta).toMatchObject({ total: expect.any(Number) });
    const put = await api()
      .put(`/webhooks/${id}`)
      .set(account.auth)
      .send({ events: ['execution.succeeded', 'execution.failed'], description: 'ops' });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ events: ['execution.succeeded', 'execution.failed'], description: 'ops' });
    expect(put.body.data).not.toHaveProperty('secret');
    await api().delete(`/webhooks/${id}`).set(account.auth).expect(200, { success: true, message: 'Webhook deleted' });
    await api().get(`/webhooks/${id}`).set(account.auth).expect(404);
  });

  it('a metadata or private address is 422 naming url; so are unknown events and empty event lists', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.7/hook', 'http://[::1]:9/hook']) {
      const res = await api()
        .post('/webhooks')
        .set(account.auth)
        .send({ url, events: ['screenshot.succeeded'] });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, code: 'validation_failed', details: [{ field: 'url', message: expect.stringMatching(/address/) }] });
    }
    const bad = await api()
      .post('/webhooks')
      .set(account.auth)
      .send({ url: `${receiver.url}/x`, events: ['screenshot.exploded'] });
    expect(bad.status).toBe(422);
    expect(bad.body.details.map((d: { field: string }) => d.field)).toContain('events');
    const empty = await api()
      .post('/webhooks')
      .set(account.auth)
      .send({ url: `${receiver.url}/x`, events: [] });
    expect(empty.status).toBe(422);
  });

  it("another account's webhook is 404 on every route", async () => {
    const mine = await createWebhook(account);
    const other = await t.createAccount({ plan: 'business' });
    for (const [method, path] of [
      ['get', `/webhooks/${mine.id}`],
      ['put', `/webhooks/${mine.id}`],
      ['delete', `/webhooks/${mine.id}`],
      ['post', `/webhooks/${mine.id}/test`],
      ['get', `/webhooks/${mine.id}/deliveries`],
    ] as const) {
      const res = await api()
        [method](path)
        .set(other.auth)
        .send(method === 'put' ? { description: 'mine now' } : undefined);
      expect({ path, method, status: res.status, code: res.body.code }).toEqual({ path, method, status: 404, code: 'not_found' });
    }
    await api().delete(`/webhooks/${mine.id}`).set(account.auth).expect(200);
  });

  it('at most 20 per account, under concurrency too: 5 creates at once at 18 webhooks, exactly 2 are 201, the others the 422 of the limit', async () => {
    const limitError = { field: 'url', message: 'an account can have at most 20 webhooks' };
    const webhooks = t.app.get(WebhooksService);
    const seed = async (who: number) => {
      for (let i = 0; i < 18; i += 1) await webhooks.create(who, { url: `${receiver.url}/seed-${i}`, events: ['screenshot.succeeded'] });
    };
    const owner = await t.createAccount({ plan: 'business' });
    await seed(owner.id);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        api()
          .post('/webhooks')
          .set(owner.auth)
          .send({ url: `${receiver.url}/racer-${i}`, events: ['screenshot.succeeded'] }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 422, 422, 422]);
    for (const refused of answers.filter((a) => a.status === 422)) {
      expect(refused.body).toEqual({ success: false, error: 'The given data was invalid', code: 'validation_failed', details: [limitError] });
    }
    expect((await webhooks.list(owner.id, { page: 1, perPage: 100 })).total).toBe(20);
    // One more, alone, at the limit: the same 422.
    const late = await api()
      .post('/webhooks')
      .set(owner.auth)
      .send({ url: `${receiver.url}/late`, events: ['screenshot.succeeded'] });
    expect({ status: late.status, details: late.body.details }).toEqual({ status: 422, details: [limitError] });

    // The service itself, called 5 times at once (the dashboard's path): the same 2 pass.
    const other = await t.createAccount({ plan: 'business' });
    await seed(other.id);
    const settled = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => webhooks.create(other.id, { url: `${receiver.url}/racer-${i}`, events: ['screenshot.succeeded'] })),
    );
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected']);
    for (const s of settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected')) {
      expect(toErrorResponse(s.reason)).toMatchObject({ status: 422, body: { code: 'validation_failed', details: [limitError] } });
    }
    expect((await webhooks.list(other.id, { page: 1, perPage: 100 })).total).toBe(20);
  });

  it('a capture delivers one screenshot.succeeded whose signature verifies with the standardwebhooks package', async () => {
    const who = await t.createAccount({ plan: 'business' });
    const hook = await createWebhook(who);
    const job = await capture(who);
    expect(job.status).toBe('succeeded');
    const [delivery] = await hook.channel.until(1);
    const verified = new Webhook(hook.secret).verify(delivery.body, delivery.headers as Record<string, string>) as Record<string, unknown>;
    expect(verified).toMatchObject({
      id: delivery.headers['webhook-id'],
      type: 'screenshot.succeeded',
      created_at: expect.any(String),
      data: {
        job: { id: job.id, status: 'succeeded', type: 'screenshot', screenshot_id: job.screenshot_id },
        screenshot: {
          id: job.screenshot_id,
          format: 'png',
          mime_type: 'image/png',
          // The capture report, as GET /screenshots/{id} shows it.
          capture: { http_status: 200, final_url: `${pages.url}/`, truncated: false, settled: true, pending: [] },
        },
      },
    });
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    // Exactly one: another pass of the dispatcher does not send it again.
    await new Promise((r) => setTimeout(r, 500));
    expect(hook.channel.received).toHaveLength(1);
    // A wrong secret does not verify: the signature really depends on it.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(delivery.body, delivery.headers as Record<string, string>)).toThrow();
  });

  it('a failed capture delivers screenshot.failed with the job’s error', async () => {
    const who = await t.createAccount({ plan: 'business' });
    const hook = await createWebhook(who);
    const job = await capture(who, `http://127.0.0.1:${deadPort}/`);
    expect(job.status).toBe('failed');
    const [delivery] = await hook.channel.until(1, 30_000);
    expect(JSON.parse(delivery.body)).toMatchObject({
      type: 'screenshot.failed',
      data: { job: { id: job.id, status: 'failed', error: expect.any(String) }, screenshot: null },
    });
  });

  it('each job kind emits its own events: a capture screenshot.*, a scenario run execution.*, a render none (issue 43)', async () => {
    const who = await t.createAccount({ plan: 'business' });
    const all = ['screenshot.succeeded', 'screenshot.failed', 'execution.succeeded', 'execution.failed'];
    const hook = await createWebhook(who, all);
    // A render first (it ends first): were it announced, its event would arrive before the others.
    const rendered = await api()
      .get('/render')
      .query({ url: `${pages.url}/`, response_type: 'json' })
      .set(who.auth);
    expect(`${rendered.status} ${JSON.stringify(rendered.body)}`).toMatch(/^200 /);
    const renderId = rendered.body.data.id as string;
    const site = await api()
      .post('/websites')
      .set(who.auth)
      .send({ name: 'kinds', url: `${pages.url}/` });
    const scenario = await api()
      .post('/scenarios')
      .set(who.auth)
      .send({ name: 'Kinds', website_id: site.body.data.id, steps: [{ type: 'screenshot' }] });
    expect(scenario.status).toBe(201);
    const run = await api().post(`/scenarios/${scenario.body.data.id}/run`).set(who.auth);
    expect(run.status).toBe(200);
    const execution = await waitForJob(t.url, who.auth, run.body.execution_id);
    expect(execution).toMatchObject({ type: 'scenario', status: 'succeeded' });
    const take = await api().post(`/websites/${site.body.data.id}/screenshot`).set(who.auth).send({});
    const shot = await waitForJob(t.url, who.auth, take.body.job_id);
    expect(shot).toMatchObject({ type: 'screenshot', status: 'succeeded' });
    await hook.channel.until(2, 30_000);
    await new Promise((r) => setTimeout(r, 1_000)); // a render's event, were there one, would have arrived by now
    const events = hook.channel.received.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, any> });
    expect(events.map((e) => e.type).sort()).toEqual(['execution.succeeded', 'screenshot.succeeded']);
    expect(events.find((e) => e.type === 'execution.succeeded')!.data.execution).toMatchObject({ id: execution.id });
    expect(events.find((e) => e.type === 'screenshot.succeeded')!.data.job).toMatchObject({ id: shot.id, type: 'screenshot' });
    const deliveries = await api().get(`/webhooks/${hook.id}/deliveries`).set(who.auth).expect(200);
    expect((deliveries.body.data as Array<{ source_id: string }>).map((d) => d.source_id)).not.toContain(renderId);
  });

  it('a receiver answering 500 then 204 sees the same webhook-id twice; the deliveries list shows both attempts', async () => {
    const who = await t.createAccount({ plan: 'business' });
    const hook = await createWebhook(who);
    hook.channel.plan = [500];
    await api().post(`/webhooks/${hook.id}/test`).set(who.auth).expect(202);
    const [first, second] = await hook.channel.until(2);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(JSON.parse(first.body)).toMatchObject({ type: 'webhook.test', data: { webhook_id: hook.id } });
    // Each attempt is signed for its own timestamp, and both verify.
    for (const attempt of [first, second]) new Webhook(hook.secret).verify(attempt.body, attempt.headers as Record<string, string>);
    const deliveries = await waitForDelivery(t, who, hook.id, (d) => d.status === 'succeeded');
    expect(deliveries[0]).toMatchObject({
      id: first.headers['webhook-id'],
      type: 'webhook.test',
      status: 'succeeded',
      attempt: 2,
      status_code: 204,
      error: null,
    });
    const webhook = await api().get(`/webhooks/${hook.id}`).set(who.auth).expect(200);
    expect(webhook.body.data).toMatchObject({ enabled: true, failing_since: null });
  });

  it('retries run out: the delivery is failed with the last answer, and the endpoint shows it is failing', async () => {
    const who = await t.createAccount({ plan: 'business' });
    const hook = await createWebhook(who);
    hook.channel.plan = [500, 500, 500, 500];
    await api().post(`/webhooks/${hook.id}/test`).set(who.auth).expect(202);
    await hook.channel.until(4);
    const [failed] = await waitForDelivery(t, who, hook.id, (d) => d.status === 'failed');
    expect(failed).toMatchObject({ status: 'failed', attempt: 4, status_code: 500, error: 'endpoint answered 500', next_retry_at: null });
    const webhook = await api().get(`/webhooks/${hook.id}`).set(who.auth).expect(200);
    expect(webhook.body.data.failing_since).toEqual(expect.any(String));
  });

  it('a restart between two attempts still delivers (the delivery is a row, not a timer)', async () => {
    // An instance of its own on a database of its own, which outlives it.
    const database = await createTestDatabase();
    let first: TestApp | null = await startTestApp({ env, database });
    let second: TestApp | null = null;
    try {
      const who = await first.createAccount({ plan: 'business' });
      const hook = await createWebhook(who, ['screenshot.succeeded'], first);
      hook.channel.plan = [503];
      await request(first.url).post(`/webhooks/${hook.id}/test`).set(who.auth).expect(202);
      const [attempt1] = await hook.channel.until(1);
      // Stopped before its retry is due (1 s later); a new instance on the same database takes over.
      await first.close();
      first = null;
      second = await startTestApp({ env, database });
      const [, attempt2] = await hook.channel.until(2);
      expect(attempt2.headers['webhook-id']).toBe(attempt1.headers['webhook-id']);
      expect(await waitForDelivery(second, who, hook.id, (d) => d.status === 'succeeded')).toMatchObject([{ attempt: 2, status_code: 204 }]);
    } finally {
      await first?.close();
      await second?.close();
      await database.drop();
    }
  });

  (usingPostgres() ? it : it.skip)('two instances × 50 events (PostgreSQL + Redis only): each delivered, none twice at the same attempt', async () => {
    const second = await startTestApp({ env, database: t.database, redisKeyPrefix: t.config.redisKeyPrefix });
    try {
      // Five accounts of ten events each, to stay inside the API's own per-minute limit.
      const owners = await Promise.all(Array.from({ length: 5 }, () => t.createAccount({ plan: 'business' })));
      const channel = receiver.channel(); // the five webhooks share one endpoint
      for (const owner of owners) {
        const hook = await createWebhook(owner, undefined, t, channel);
        for (let i = 0; i < 10; i++) await api().post(`/webhooks/${hook.id}/test`).set(owner.auth).expect(202);
      }
      const received = await channel.until(50, 30_000);
      await new Promise((r) => setTimeout(r, 1_000)); // a doubled send would arrive by now
      const ids = received.map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(50);
      expect(new Set(ids).size).toBe(50);
    } finally {
      await second.close();
    }
  });
});

async function waitForDelivery(t: TestApp, who: TestAccount, webhookId: number, done: (d: Record<string, unknown>) => boolean) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await request(t.url).get(`/webhooks/${webhookId}/deliveries`).set(who.auth).expect(200);
    const items = res.body.data as Array<Record<string, unknown>>;
    if (items.length > 0 && items.every(done)) return items;
    if (Date.now() > deadline) throw new Error(`deliveries never reached the expected state: ${JSON.stringify(items)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
