import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import AdmZip from 'adm-zip';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { WebhookDispatcher } from '../../src/modules/webhooks/application/webhook-dispatcher';
import { binary, closedPort } from '../support/assertions';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Batches (issue 47 item 3, docs/batches.md) end to end: real Chromium capturing pages served on 127.0.0.1, the
 * ZIP and its results.csv read back, `batch.completed` received by a local webhook endpoint, all-or-nothing
 * validation, tenant isolation, and a batch of 500 beside another account's capture (fair slots) then cancelled.
 * Runs on SQLite, and on PostgreSQL + Redis (Bull) with DATABASE_URL / REDIS_URL set.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SLOTS = 4;

/** A local webhook endpoint: records every body it is sent, answers 204. */
class Receiver {
  readonly bodies: Array<{ type: string; data: Record<string, unknown> }> = [];
  private readonly server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      this.bodies.push(JSON.parse(body) as { type: string; data: Record<string, unknown> });
      res.writeHead(204).end();
    });
  });
  url = '';

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  completed(batchId: string) {
    return this.bodies.filter((b) => b.type === 'batch.completed' && (b.data.batch as { id: string }).id === batchId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(value).slice(0, 500)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Batches (real Chromium, pages on 127.0.0.1)', () => {
  let t: TestApp;
  let pages: PageServer;
  let receiver: Receiver;
  let dead: number;
  let owner: TestAccount;
  let other: TestAccount;
  const api = () => request(t.url);

  beforeAll(async () => {
    receiver = await new Receiver().start();
    pages = await new PageServer({
      '/red': solidPage('rgb(255,0,0)'),
      '/green': solidPage('rgb(0,160,0)'),
      '/blue': solidPage('rgb(0,0,255)'),
      '/tall': solidPage('rgb(200,200,0)', 1500),
      '/fair': solidPage('rgb(0,128,255)'),
    }).start();
    dead = await closedPort();
    t = await startTestApp({ env: { WEBHOOK_POLL_MS: '100', CAPTURE_CONCURRENCY: String(SLOTS), CAPTURE_TIMEOUT_MS: '15000' } });
    const accounts = t.app.get(AccountsService);
    owner = await t.createAccount({ plan: 'pro' });
    other = await t.createAccount({ plan: 'pro' });
    for (const who of [owner, other]) await accounts.updateAccount(who.email, { limitPerMinute: 100_000, limitPerHour: 100_000 });
    await api()
      .post('/webhooks')
      .set(owner.auth)
      .send({ url: receiver.url, events: ['batch.completed'] })
      .expect(201);
  });

  afterAll(async () => {
    await t?.close();
    await pages?.stop();
    await receiver?.stop();
  });

  const jobCount = async (accountId: number) => {
    const [row]: Array<{ n: string | number }> = await t.app.get(DataSource).query(`SELECT COUNT(*) AS n FROM jobs WHERE account_id = ${Number(accountId)}`);
    return Number(row.n);
  };

  it('one bad item is a 422 naming it, and nothing is created (all or nothing); the URL policy and the plan size apply', async () => {
    const items = [
      { url: `${pages.url}/red` },
      { url: `${pages.url}/green`, format: 'jpeg', quality: 80 },
      { url: `${pages.url}/blue` },
      { url: `${pages.url}/tall`, viewport_width: 5 },
    ];
    const bad = await api().post('/batches').set(owner.auth).send({ items }).expect(422);
    expect(bad.body).toMatchObject({ success: false, code: 'validation_failed' });
    expect(bad.body.details).toEqual([{ field: 'items[3].viewport_width', message: expect.stringContaining('viewport_width') }]);
    // An option that only conflicts with the merged shared options is named at the item too (png takes no quality).
    const conflict = await api()
      .post('/batches')
      .set(owner.auth)
      .send({ items: [{ url: `${pages.url}/red` }, { url: `${pages.url}/green`, format: 'png' }], options: { quality: 70, format: 'jpeg' } })
      .expect(422);
    expect(conflict.body.details.map((d: { field: string }) => d.field)).toEqual(['items[1].quality']);
    const policy = await api()
      .post('/batches')
      .set(owner.auth)
      .send({ urls: [`${pages.url}/red`, 'http://user:secret@127.0.0.1/', 'file:///etc/passwd'] })
      .expect(422);
    expect(policy.body.details.map((d: { field: string }) => d.field)).toEqual(['urls[1]', 'urls[2]']);
    await api()
      .post('/batches')
      .set(owner.auth)
      .send({ urls: [`${pages.url}/red`], items: [{ url: `${pages.url}/red` }] })
      .expect(422);
    const empty = await api().post('/batches').set(owner.auth).send({ urls: [] }).expect(422);
    expect(empty.body.details).toEqual([{ field: 'urls', message: 'urls must hold at least one URL' }]);
    const tooMany = await api()
      .post('/batches')
      .set(owner.auth)
      .send({ urls: Array.from({ length: 501 }, (_, i) => `${pages.url}/red?${i}`) })
      .expect(422);
    expect(tooMany.body.details).toEqual([{ field: 'urls', message: 'urls must hold at most 500 URLs on the pro plan (it holds 501)' }]);
    await api()
      .post('/batches')
      .set(owner.auth)
      .send({ urls: [`${pages.url}/red`], extra: 1 })
      .expect(422);
    // Nothing was written: no batch, no job.
    expect((await api().get('/batches').set(owner.auth).expect(200)).body.meta.total).toBe(0);
    expect(await jobCount(owner.id)).toBe(0);
  });

  let batchId: string;

  it('captures every item, pages its items by cursor, and announces batch.completed once', async () => {
    const created = await api()
      .post('/batches')
      .set(owner.auth)
      .send({
        name: 'Colours',
        options: { format: 'jpeg' },
        items: [
          { url: `${pages.url}/red`, quality: 70 },
          { url: `${pages.url}/green`, format: 'png' },
          { url: `http://127.0.0.1:${dead}/gone` },
          { url: `${pages.url}/blue`, viewport_width: 800, viewport_height: 600 },
          { url: `${pages.url}/tall`, full_page: true, format: 'png' },
        ],
      });
    expect([created.status, created.body.details]).toEqual([202, undefined]);
    expect(created.body).toMatchObject({ success: true, id: expect.stringMatching(UUID), total: 5, status: 'running' });
    batchId = created.body.id;

    const done = await until(
      'the batch ends',
      async () => (await api().get(`/batches/${batchId}`).set(owner.auth).expect(200)).body,
      (body) => body.data.status !== 'running',
    );
    expect(done.data.items.map((i: { error: string | null }) => i.error)).toEqual([null, null, expect.any(String), null, null]);
    expect(done.data).toMatchObject({
      id: batchId,
      name: 'Colours',
      status: 'completed',
      total: 5,
      counts: { queued: 0, succeeded: 4, failed: 1, cancelled: 0 },
    });
    const items = done.data.items as Array<Record<string, any>>;
    expect(items.map((i) => i.status)).toEqual(['succeeded', 'succeeded', 'failed', 'succeeded', 'succeeded']);
    expect(items[0].file).toMatchObject({ name: `1-127.0.0.1-${new URL(pages.url).port}-red.jpg`, format: 'jpeg', width: 1280, height: 800 });
    expect(items[1].file).toMatchObject({ format: 'png' });
    expect(items[2]).toMatchObject({ file: null, error: expect.stringMatching(/refused|could not|not answer/i) });
    expect(items[3].file).toMatchObject({ width: 800, height: 600 });
    expect(items[4].file.height).toBeGreaterThanOrEqual(1500);
    // Every item is an ordinary job of the account (type batch_item).
    const job = (await api().get(`/jobs/${items[0].job_id}`).set(owner.auth).expect(200)).body.data;
    expect(job).toMatchObject({ type: 'batch_item', status: 'succeeded' });

    // Cursor paging of the items: per_page=2, following links.next to the end.
    const positions: number[] = [];
    let next: string | null = `/batches/${batchId}?per_page=2`;
    while (next) {
      const page: request.Response = await api().get(next.replace(t.url, '')).set(owner.auth).expect(200);
      positions.push(...page.body.data.items.map((i: { position: number }) => i.position));
      expect(page.body.meta).toMatchObject({ per_page: 2, total: 5, last_page: 3 });
      next = page.body.links.next;
      if (next) expect(next).toContain('cursor=');
    }
    expect(positions).toEqual([0, 1, 2, 3, 4]);
    const failedOnly = await api().get(`/batches/${batchId}?status=failed`).set(owner.auth).expect(200);
    expect(failedOnly.body.data.items.map((i: { position: number }) => i.position)).toEqual([2]);

    // batch.completed: once, with the counts, however often the dispatcher runs.
    await until(
      'batch.completed arrives',
      () => Promise.resolve(receiver.completed(batchId).length),
      (n) => n >= 1,
      20_000,
    );
    const dispatcher = t.app.get(WebhookDispatcher);
    await dispatcher.pass();
    await dispatcher.pass();
    const [event, ...more] = receiver.completed(batchId);
    expect(more).toHaveLength(0);
    expect(event.data.batch).toMatchObject({ id: batchId, status: 'completed', counts: { succeeded: 4, failed: 1 } });

    const list = await api().get('/batches').set(owner.auth).expect(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id: batchId, total: 5, status: 'completed' })]);
  });

  it('downloads a streamed ZIP of what succeeded, with results.csv (url, status, file, error)', async () => {
    const res = await api().get(`/batches/${batchId}/download`).set(owner.auth).buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="batch-${batchId}.zip"`);
    const zip = new AdmZip(res.body as Buffer);
    const names = zip.getEntries().map((e) => e.entryName);
    const port = new URL(pages.url).port;
    expect(names).toEqual([
      `1-127.0.0.1-${port}-red.jpg`,
      `2-127.0.0.1-${port}-green.png`,
      `4-127.0.0.1-${port}-blue.jpg`,
      `5-127.0.0.1-${port}-tall.png`,
      'results.csv',
    ]);
    const jpeg = zip.getEntry(names[0])!.getData();
    expect(jpeg.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(zip.getEntry(names[1])!.getData().subarray(1, 4).toString()).toBe('PNG');
    const rows = parse<Record<string, string>>(zip.getEntry('results.csv')!.getData(), { columns: true });
    expect(rows.map((r) => [r.status, r.file])).toEqual([
      ['succeeded', names[0]],
      ['succeeded', names[1]],
      ['failed', ''],
      ['succeeded', names[2]],
      ['succeeded', names[3]],
    ]);
    expect(rows[2]).toMatchObject({ url: `http://127.0.0.1:${dead}/gone`, error: expect.stringMatching(/.+/) });
  });

  it("another account's batch is 404 on every route (no existence leak); an id that is no UUID too", async () => {
    for (const [method, path] of [
      ['get', `/batches/${batchId}`],
      ['get', `/batches/${batchId}/download`],
      ['delete', `/batches/${batchId}`],
    ] as const) {
      const res = await api()[method](path).set(other.auth);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'not_found' });
    }
    expect((await api().get('/batches').set(other.auth).expect(200)).body.meta.total).toBe(0);
    await api().get('/batches/12').set(owner.auth).expect(404);
  });

  it("a batch of 500 shares the fair slots: another account's capture is not starved; a cancel ends what has not started", async () => {
    const website = await api()
      .post('/websites')
      .set(other.auth)
      .send({ name: 'fair', url: `${pages.url}/fair` })
      .expect(201);
    const waited = async () => {
      const started = performance.now();
      const take = await api().post(`/websites/${website.body.data.id}/screenshot`).set(other.auth).send({}).expect(200);
      for (;;) {
        const res = await api().get(`/jobs/${take.body.job_id}?wait=30`).set(other.auth).expect(200);
        if (res.body.data.status === 'succeeded') return performance.now() - started;
        if (res.body.data.status === 'failed') throw new Error(res.body.data.error);
      }
    };
    const idle = [await waited(), await waited()].sort((a, b) => a - b)[0];

    const asked = performance.now();
    const created = await api()
      .post('/batches')
      .set(owner.auth)
      .send({ urls: Array.from({ length: 500 }, (_, i) => `${pages.url}/red?n=${i}`) })
      .expect(202);
    const createMs = performance.now() - asked;
    const big = created.body.id as string;
    const behind = await waited();
    const atAnswer = (await api().get(`/batches/${big}?per_page=1`).set(owner.auth).expect(200)).body.data.counts;
    console.log(
      `batch of 500: created in ${Math.round(createMs)} ms; the other account's capture idle ${Math.round(idle)} ms, behind the batch ${Math.round(behind)} ms; the batch then had ${atAnswer.queued} of 500 not ended`,
    );
    // Not starved: the other account's capture ended while nearly all of the batch was still waiting, and took
    // at most a few captures' time more than alone (the batch holds at most the slots there are).
    expect(atAnswer.queued).toBeGreaterThan(450);
    expect(behind).toBeLessThan(idle + 10_000);

    const cancelled = await api().delete(`/batches/${big}`).set(owner.auth).expect(200);
    expect(cancelled.body.data.cancel_requested_at).toEqual(expect.any(String));
    expect(cancelled.body.data.counts.cancelled).toBeGreaterThan(450);
    const ended = await until(
      'the cancelled batch ends',
      async () => (await api().get(`/batches/${big}?status=cancelled&per_page=1`).set(owner.auth).expect(200)).body,
      (body) => body.data.status !== 'running',
    );
    const counts = ended.data.counts;
    expect(ended.data.status).toBe('cancelled');
    expect(counts.queued).toBe(0);
    expect(counts.succeeded + counts.failed + counts.cancelled).toBe(500);
    expect(counts.succeeded).toBeLessThan(50);
    expect(ended.data.items[0]).toMatchObject({ status: 'cancelled', file: null, error: expect.stringContaining('Cancelled') });
    // A cancelled item's job never ran: it ended failed without a start.
    const job = (await api().get(`/jobs/${ended.data.items[0].job_id}`).set(owner.auth).expect(200)).body.data;
    expect(job).toMatchObject({ status: 'failed', started_at: null });
    // A second cancel changes nothing.
    expect((await api().delete(`/batches/${big}`).set(owner.auth).expect(200)).body.data.counts).toEqual(counts);
    await until(
      'batch.completed of the cancelled batch',
      () => Promise.resolve(receiver.completed(big).length),
      (n) => n >= 1,
      20_000,
    );
    expect(receiver.completed(big)[0].data.batch).toMatchObject({ status: 'cancelled' });
  });
});
