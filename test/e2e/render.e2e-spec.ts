import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { RenderSweeper, SWEEP_GRACE_MS } from '../../src/modules/renders/application/render-sweeper';
import { RenderRepository } from '../../src/modules/renders/application/ports';
import { RenderJobRunner } from '../../src/modules/renders/application/render-job.runner';
import { RendersService } from '../../src/modules/renders/application/renders.service';
import { renderFileKey } from '../../src/modules/renders/domain/render';
import type { RenderJobOptions } from '../../src/modules/renders/domain/render-job';
import type { JobProps } from '../../src/modules/jobs/domain/job';
import { ScreenshotStorage } from '../../src/modules/screenshots/application/ports';
import { UrlPolicy } from '../../src/shared/url-policy';
import { binary } from '../support/assertions';
import { decodeImage, RED } from '../support/images';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Render in one call and its cache (API.md "Render in one call", "Render cache"; docs/render.md): real Chromium on
 * pages served on 127.0.0.1, the real app (embedded: SQLite + in-process queue; with DATABASE_URL and REDIS_URL:
 * PostgreSQL + Bull), renders run as jobs of type `render` by the workers.
 *
 * Rate limit: Business (60 a minute); the clock is pinned and every test starts in a fresh minute.
 */
const PAGES = {
  '/red': `<!doctype html><title>Red – ünïcode</title>${solidPage('rgb(255,0,0)').replace('<!doctype html>', '')}`,
  '/blue': solidPage('rgb(0,0,255)'),
  // Never answers: the capture's timeout_ms runs out.
  '/never': () => undefined,
  '/gone': (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Gone</title><h1>Not here</h1>');
  },
};

describe('Render in one call (real Chromium)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let minute = Date.parse('2034-08-01T08:00:00Z');
  const api = () => request(t.url);
  const render = (query: Record<string, string>, auth = account.auth) => api().get('/render').query(query).set(auth).buffer(true).parse(binary);

  /** The account's render jobs, read from the jobs table (not through the API: no request counted). */
  async function renderJobs(of: TestAccount = account) {
    const { items } = await t.app.get(JobRepository).list(of.id, { page: 1, perPage: 100 }, { type: 'render' });
    return items;
  }

  /**
   * The live entry of `query`'s key left pending, as an abandoned render leaves it: a render makes the key's entry
   * (then retired), a pending one is inserted in its place, with a render job claimed by a worker that then died
   * (`job: 'running'`), or none. Returns the pending entry's id.
   */
  async function abandonedEntry(query: Record<string, string>, job: 'running' | 'none'): Promise<string> {
    const made = await render(query);
    expect(made.status).toBe(200);
    const repository = t.app.get(RenderRepository);
    const entry = (await repository.findById(made.headers['x-render-id']))!;
    await repository.retire(entry.id);
    const id = randomUUID();
    const now = t.clock.now();
    const keepUntil = new Date(now.getTime() + 3_600_000);
    expect(await repository.insertLive({ id, accountId: account.id, cacheKey: entry.cacheKey, url: entry.url, format: 'png', createdAt: now, keepUntil })).toBe(
      true,
    );
    if (job === 'running') expect(await runningRenderJob(id, entry.url, Number(query.viewport_width))).not.toBeNull();
    return id;
  }

  /** Writes the render job `id` (a capture of `url` at `viewportWidth`) and claims it, as a worker starting it does. */
  async function runningRenderJob(id: string, url: string, viewportWidth: number): Promise<JobProps<RenderJobOptions> | null> {
    const jobs = t.app.get(JobRepository);
    const now = t.clock.now();
    const options = { url, options: { viewportWidth }, ttlSeconds: 0 };
    await jobs.createOrGetIdempotent({
      id,
      type: 'render',
      accountId: account.id,
      websiteId: null,
      source: 'api',
      options,
      idempotencyKey: null,
      createdAt: now,
    });
    const past = new Date(0);
    return (await jobs.claim(id, now, { screenshot: past, scenario: past, render: past })) as JobProps<RenderJobOptions> | null;
  }

  /** The names of the account's render objects on disk (STORAGE_DIR/.renders/<account>/). */
  function renderFiles(): string[] {
    const dir = join(t.config.storageDir, '.renders', String(account.id));
    return existsSync(dir) ? readdirSync(dir) : [];
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { CAPTURE_TIMEOUT_MS: '8000' } });
    pages = await new PageServer(PAGES).start();
    account = await t.createAccount({ plan: 'business' });
  });
  afterAll(async () => {
    await pages?.stop();
    await t?.close();
  });
  beforeEach(() => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  });

  it('GET /render answers the PNG itself: its pixels, size, type, length, X-Cache: MISS and the capture report in X-Capture-* headers', async () => {
    const res = await render({ url: `${pages.url}/red`, viewport_width: '390', viewport_height: '300' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-length']).toBe(String(res.body.length));
    expect(res.headers['x-cache']).toBe('MISS');
    expect(res.headers.age).toBeUndefined();
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
    expect(res.headers['x-capture-http-status']).toBe('200');
    expect(decodeURIComponent(res.headers['x-capture-final-url'])).toBe(`${pages.url}/red`);
    expect(decodeURIComponent(res.headers['x-capture-title'])).toBe('Red – ünïcode');
    expect(res.headers['x-capture-page-height']).toBe('300');
    expect(res.headers['x-capture-truncated']).toBe('false');
    expect(res.headers['x-capture-settled']).toBe('true');
    expect(Number(res.headers['x-capture-waited-ms'])).toBeGreaterThanOrEqual(0);
    expect(res.headers['x-capture-pending']).toBe('');
    const image = await decodeImage(res.body);
    expect(image).toMatchObject({ format: 'png', width: 390, height: 300 });
    expect(image.at(195, 150)).toEqual(RED);
  });

  it('format=jpeg and format=pdf answer their content types', async () => {
    const jpeg = await render({ url: `${pages.url}/blue`, format: 'jpeg', quality: '90' });
    expect(jpeg.status).toBe(200);
    expect(jpeg.headers['content-type']).toBe('image/jpeg');
    expect((await decodeImage(jpeg.body)).format).toBe('jpeg');
    const pdf = await render({ url: `${pages.url}/blue`, format: 'pdf' });
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('POST /render takes a JSON body; response_type=json answers {success, data} whose url works without a token until it expires, and refuses a tampered link', async () => {
    const res = await api()
      .post('/render')
      .set(account.auth)
      .send({ url: `${pages.url}/red`, viewport_width: 400, viewport_height: 240, response_type: 'json' });
    expect(res.status).toBe(200);
    expect(res.headers['x-cache']).toBe('MISS');
    const data = res.body.data;
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/renders\/[0-9a-f-]{36}\?expires=\d+&signature=[\w-]+$/),
        expires_at: expect.any(String),
        mime_type: 'image/png',
        width: 400,
        height: 240,
        capture: expect.objectContaining({ http_status: 200, final_url: `${pages.url}/red`, title: 'Red – ünïcode', page_height: 240 }),
      },
    });
    // cache_ttl 0, yet the link is kept at least an hour (docs/render.md).
    expect(Date.parse(data.expires_at) - minute).toBeGreaterThanOrEqual(3_600_000);
    const link = new URL(data.url);
    const file = await request(t.url).get(`${link.pathname}${link.search}`).buffer(true).parse(binary);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect((await decodeImage(file.body)).at(10, 10)).toEqual(RED);

    const tampered = await request(t.url).get(`${link.pathname}${link.search.replace(/expires=(\d+)/, (_, n) => `expires=${Number(n) + 1}`)}`);
    expect(tampered.status).toBe(403);
    expect(tampered.body).toEqual({ success: false, error: 'The link’s signature is invalid', code: 'invalid_signature' });
    t.clock.set(new Date(Date.parse(data.expires_at) + 1000));
    const late = await request(t.url).get(`${link.pathname}${link.search}`);
    expect(late.status).toBe(403);
    expect(late.body).toEqual({
      success: false,
      error: `The link expired at ${new Date(Math.floor(Date.parse(data.expires_at) / 1000) * 1000).toISOString()}`,
      code: 'link_expired',
    });
  });

  it('with cache_ttl an identical render is a HIT from storage without a new job (Age set); fresh, cache_key and an option change capture anew', async () => {
    const url = `${pages.url}/blue`;
    const before = (await renderJobs()).length;
    const first = await render({ url, cache_ttl: '600', viewport_width: '500' });
    expect(first.headers['x-cache']).toBe('MISS');
    t.clock.advance(5_000);
    const again = await render({ url, cache_ttl: '600', viewport_width: '500' });
    expect(again.status).toBe(200);
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.headers.age).toBe('5');
    expect(again.headers['x-render-id']).toBe(first.headers['x-render-id']);
    expect(Buffer.compare(again.body, first.body)).toBe(0);
    expect(again.headers['x-capture-title']).toBe(first.headers['x-capture-title']);
    expect((await renderJobs()).length).toBe(before + 1);

    const fresh = await render({ url, cache_ttl: '600', viewport_width: '500', fresh: 'true' });
    expect(fresh.headers['x-cache']).toBe('MISS');
    expect(fresh.headers['x-render-id']).not.toBe(first.headers['x-render-id']);
    // The fresh capture is now the entry.
    const afterFresh = await render({ url, cache_ttl: '600', viewport_width: '500' });
    expect(afterFresh.headers).toMatchObject({ 'x-cache': 'HIT', 'x-render-id': fresh.headers['x-render-id'] });

    const keyed = await render({ url, cache_ttl: '600', viewport_width: '500', cache_key: 'v2' });
    expect(keyed.headers['x-cache']).toBe('MISS');
    const otherOption = await render({ url, cache_ttl: '600', viewport_width: '501' });
    expect(otherOption.headers['x-cache']).toBe('MISS');
    // Without cache_ttl (0 with a token) nothing is read from the cache.
    const uncached = await render({ url, viewport_width: '500' });
    expect(uncached.headers['x-cache']).toBe('MISS');
    expect((await renderJobs()).length).toBe(before + 5);
  });

  it('a hit is answered without looking the URL’s host up; a capture looks it up first, and a host now refused is a 422 that retires nothing', async () => {
    const check = jest.spyOn(t.app.get(UrlPolicy), 'check');
    try {
      const query = { url: `${pages.url}/blue`, cache_ttl: '600', viewport_width: '640' };
      const first = await render(query);
      expect(first.headers['x-cache']).toBe('MISS');
      // Looked up at the door, and again by the worker before it fetches (embedded, the same policy).
      const lookups = check.mock.calls.length;
      expect(lookups).toBeGreaterThanOrEqual(1);
      expect(check).toHaveBeenCalledWith(`${pages.url}/blue`);
      const hit = await render(query);
      expect(hit.headers).toMatchObject({ 'x-cache': 'HIT', 'x-render-id': first.headers['x-render-id'] });
      expect(check).toHaveBeenCalledTimes(lookups);

      // The host's addresses are now refused (its DNS answers a private address, or the operator's policy changed).
      check.mockResolvedValue({ allowed: false, reason: 'url resolves to a private address' });
      const jobs = (await renderJobs()).length;
      const fresh = await render({ ...query, fresh: 'true' });
      expect(fresh.status).toBe(422);
      expect(JSON.parse(fresh.body.toString())).toEqual({
        success: false,
        error: 'The given data was invalid',
        code: 'validation_failed',
        details: [{ field: 'url', message: 'url resolves to a private address' }],
      });
      expect((await renderJobs()).length).toBe(jobs);
      // Nothing was retired: the entry made before still answers, from storage.
      expect((await render(query)).headers).toMatchObject({ 'x-cache': 'HIT', 'x-render-id': first.headers['x-render-id'] });
      // Beside another bad field, the host is looked up at once: one 422 names both.
      const both = await render({ ...query, quality: '50' });
      expect(both.status).toBe(422);
      expect(JSON.parse(both.body.toString()).details.map((d: { field: string }) => d.field)).toEqual(['url', 'quality']);
    } finally {
      check.mockRestore();
    }
  });

  it('a stored file of several chunks is answered whole: the first bytes, read before the answer begins, come once and first', async () => {
    const made = await render({ url: `${pages.url}/red`, viewport_width: '660' });
    const entry = (await t.app.get(RenderRepository).findById(made.headers['x-render-id']))!;
    const bytes = randomBytes(300 * 1024); // several reads of the file stream (64 KiB each)
    const fileKey = renderFileKey(account.id, randomUUID(), 'png');
    /** The chunks RendersService.open answers for `stored`, put under the entry's key. */
    const answered = async (stored: Buffer): Promise<Buffer[]> => {
      await t.app.get(ScreenshotStorage).put(fileKey, stored);
      const chunks: Buffer[] = [];
      for await (const chunk of await t.app.get(RendersService).open({ ...entry, fileKey })) chunks.push(chunk as Buffer);
      return chunks;
    };
    const chunks = await answered(bytes);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.compare(Buffer.concat(chunks), bytes)).toBe(0);
    expect(Buffer.concat(await answered(Buffer.alloc(0))).length).toBe(0);
  });

  it('a hit whose stored file is gone is a 404 (told by the file stream itself), and nothing is written to the client before it', async () => {
    const query = { url: `${pages.url}/red`, cache_ttl: '600', viewport_width: '670' };
    const made = await render(query);
    expect(made.headers['x-cache']).toBe('MISS');
    const entry = (await t.app.get(RenderRepository).findById(made.headers['x-render-id']))!;
    await t.app.get(ScreenshotStorage).delete(entry.fileKey!);
    const gone = await api().get('/render').query(query).set(account.auth);
    expect(gone.status).toBe(404);
    expect(gone.headers['content-type']).toMatch(/^application\/json/);
    expect(gone.body).toEqual({ success: false, error: 'Render file not found', code: 'not_found' });
  });

  it('another account never hits my entry', async () => {
    const url = `${pages.url}/blue`;
    const mine = await render({ url, cache_ttl: '600', viewport_width: '640' });
    expect(mine.status).toBe(200);
    const other = await t.createAccount({ plan: 'business' });
    const theirs = await render({ url, cache_ttl: '600', viewport_width: '640' }, other.auth);
    expect(theirs.status).toBe(200);
    expect(theirs.headers['x-cache']).toBe('MISS');
    expect(theirs.headers['x-render-id']).not.toBe(mine.headers['x-render-id']);
    expect(await renderJobs(other)).toHaveLength(1);
  });

  it('identical concurrent misses make exactly one render job; every request gets its bytes', async () => {
    const url = `${pages.url}/red`;
    const before = (await renderJobs()).length;
    const answers = await Promise.all(Array.from({ length: 6 }, () => render({ url, viewport_width: '700', cache_ttl: '60' })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.headers['x-render-id'])).size).toBe(1);
    for (const a of answers) expect((await decodeImage(a.body)).width).toBe(700);
    expect((await renderJobs()).length).toBe(before + 1);
  });

  it('identical concurrent misses sent to two API instances of one deployment still make one job (the database decides)', async () => {
    const second = await startTestApp({ database: t.database, redisKeyPrefix: t.config.redisKeyPrefix, env: { CAPTURE_TIMEOUT_MS: '8000' } });
    try {
      second.clock.set(t.clock.now());
      const url = `${pages.url}/red`;
      const before = (await renderJobs()).length;
      const query = { url, viewport_width: '720', cache_ttl: '60' };
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          request(i % 2 ? second.url : t.url)
            .get('/render')
            .query(query)
            .set(account.auth)
            .buffer(true)
            .parse(binary),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(new Set(answers.map((a) => a.headers['x-render-id'])).size).toBe(1);
      expect((await renderJobs()).length).toBe(before + 1);
    } finally {
      await second.close();
    }
  });

  it('an entry whose maker never queued its job (died between the two writes) is retired by the next identical render, which captures', async () => {
    const first = await render({ url: `${pages.url}/blue`, viewport_width: '610' });
    const repository = t.app.get(RenderRepository);
    const made = (await repository.findById(first.headers['x-render-id']))!;
    await repository.retire(made.id);
    // The live entry of that key, with no job behind it.
    const orphan = randomUUID();
    expect(
      await repository.insertLive({
        id: orphan,
        accountId: account.id,
        cacheKey: made.cacheKey,
        url: made.url,
        format: 'png',
        createdAt: t.clock.now(),
        keepUntil: new Date(minute + 3_600_000),
      }),
    ).toBe(true);
    const again = await render({ url: `${pages.url}/blue`, viewport_width: '610' });
    expect({ status: again.status, cache: again.headers['x-cache'] }).toEqual({ status: 200, cache: 'MISS' });
    expect(again.headers['x-render-id']).not.toBe(orphan);
    expect((await repository.findById(orphan))?.liveKey).toBeNull();
  });

  it('an abandoned entry whose job failed without recording it is not joined: the next identical render retires it and captures (no stale 502)', async () => {
    const query = { url: `${pages.url}/blue`, viewport_width: '614' };
    const abandoned = await abandonedEntry(query, 'running');
    // The job ended failed, but its worker died before marking the entry: the entry is still the pending live one.
    expect(await t.app.get(JobRepository).fail(abandoned, 'The worker died', t.clock.now())).toBe(true);
    const again = await render(query);
    expect({ status: again.status, cache: again.headers['x-cache'] }).toEqual({ status: 200, cache: 'MISS' });
    expect(again.headers['x-render-id']).not.toBe(abandoned);
    expect((await t.app.get(RenderRepository).findById(abandoned))?.liveKey).toBeNull();
  });

  it('an entry pending past its job’s run time + allowance (its worker died, the job never ends) is not joined: retired and captured anew (no stale 504)', async () => {
    const query = { url: `${pages.url}/blue`, viewport_width: '616' };
    const abandoned = await abandonedEntry(query, 'running');
    try {
      // CAPTURE_TIMEOUT_MS (8 s) + the 30 s a request waits past it for the queue; the job's lease (+60 s) still runs.
      t.clock.advance(38_001);
      const started = Date.now();
      const again = await render(query);
      expect({ status: again.status, cache: again.headers['x-cache'] }).toEqual({ status: 200, cache: 'MISS' });
      expect(again.headers['x-render-id']).not.toBe(abandoned);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect((await t.app.get(RenderRepository).findById(abandoned))?.liveKey).toBeNull();
    } finally {
      await t.app.get(JobRepository).fail(abandoned, 'test cleanup', t.clock.now());
    }
  });

  it('a row swept while pending leaves no object: the sweep removes what its dead job wrote, and a job ending after the sweep removes its own', async () => {
    const storage = t.app.get(ScreenshotStorage);
    const sweeper = t.app.get(RenderSweeper);
    const repository = t.app.get(RenderRepository);
    // A job that stored its object and died before marking its entry ready.
    const written = await abandonedEntry({ url: `${pages.url}/blue`, viewport_width: '618' }, 'none');
    await storage.put(renderFileKey(account.id, written, 'png'), Buffer.from('an object its row never recorded'));
    expect(renderFiles()).toContain(`${written}.png`);
    // A job still running when its pending row is swept (an hour on).
    const late = await abandonedEntry({ url: `${pages.url}/red`, viewport_width: '620' }, 'none');
    t.clock.advance(3_600_000 + SWEEP_GRACE_MS + 1000);
    await sweeper.sweep();
    expect(await repository.findById(written)).toBeNull();
    expect(await repository.findById(late)).toBeNull();
    expect(renderFiles()).not.toContain(`${written}.png`);

    const job = (await runningRenderJob(late, `${pages.url}/red`, 620))!;
    expect(await t.app.get(RenderJobRunner).handle(job)).toBe('failed');
    expect((await t.app.get(JobRepository).findById(late))?.error).toBe('The render was removed before its capture ended');
    expect(renderFiles().filter((name) => name.startsWith(late) || name.startsWith(written))).toEqual([]);
  });

  it('fail_on_status is part of the key: a cached picture of a 404 page does not answer a request that fails on 404', async () => {
    const shown = await render({ url: `${pages.url}/gone`, cache_ttl: '600' });
    expect({ status: shown.status, cache: shown.headers['x-cache'], http: shown.headers['x-capture-http-status'] }).toEqual({
      status: 200,
      cache: 'MISS',
      http: '404',
    });
    const refused = await api()
      .get('/render')
      .query({ url: `${pages.url}/gone`, cache_ttl: '600', fail_on_status: 'true' })
      .set(account.auth);
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual({ success: false, error: 'The page answered HTTP 404', code: 'capture_failed', error_code: 'http_status' });
  });

  it('the sweep deletes an entry and its object once it is kept no longer', async () => {
    const res = await render({ url: `${pages.url}/blue`, cache_ttl: '30', viewport_width: '800' });
    const id = res.headers['x-render-id'];
    const storage = t.app.get(ScreenshotStorage);
    const key = `renders/${account.id}/${id}.png`;
    expect(await storage.exists(key)).toBe(true);
    const sweeper = t.app.get(RenderSweeper);
    t.clock.advance(20_000);
    await sweeper.sweep();
    expect(await storage.exists(key)).toBe(true);
    // Kept for its TTL (30 s) or the 120 s an uncached render is kept, whichever is longer, plus the sweep's grace
    // (a hit decided at the last moment still finds its object).
    t.clock.advance(120_000);
    await sweeper.sweep();
    expect(await storage.exists(key)).toBe(true);
    t.clock.advance(SWEEP_GRACE_MS);
    await sweeper.sweep();
    expect(await storage.exists(key)).toBe(false);
    t.clock.set(new Date(minute + 260_000));
    const after = await render({ url: `${pages.url}/blue`, cache_ttl: '600', viewport_width: '800' });
    expect(after.headers['x-cache']).toBe('MISS');
  });

  it('a json answer’s link outlives the entry’s replacement: cache_ttl=0 and fresh retire it as the live entry only, the link works (and the sweep keeps it) until its keepUntil', async () => {
    const body = { url: `${pages.url}/red`, viewport_width: 404, viewport_height: 240 };
    const linked = await api()
      .post('/render')
      .set(account.auth)
      .send({ ...body, response_type: 'json' });
    expect(linked.status).toBe(200);
    const link = new URL(linked.body.data.url);
    const fetchLink = () => api().get(`${link.pathname}${link.search}`).buffer(true).parse(binary);
    const repository = t.app.get(RenderRepository);
    const first = (await repository.findById(linked.body.data.id))!;
    // A bearer render of the same key with cache_ttl 0 may not be answered by the entry: it replaces it.
    const uncached = await render({ url: body.url, viewport_width: '404', viewport_height: '240' });
    expect({ status: uncached.status, cache: uncached.headers['x-cache'] }).toEqual({ status: 200, cache: 'MISS' });
    expect(uncached.headers['x-render-id']).not.toBe(first.id);
    expect((await repository.findLive(account.id, first.cacheKey))?.id).toBe(uncached.headers['x-render-id']);
    // So does fresh=true.
    const fresh = await render({ url: body.url, viewport_width: '404', viewport_height: '240', cache_ttl: '600', fresh: 'true' });
    expect(fresh.headers['x-cache']).toBe('MISS');
    expect((await repository.findLive(account.id, first.cacheKey))?.id).toBe(fresh.headers['x-render-id']);

    const replaced = (await repository.findById(first.id))!;
    expect({ liveKey: replaced.liveKey, status: replaced.status, keepUntil: replaced.keepUntil }).toEqual({
      liveKey: null,
      status: 'ready',
      keepUntil: first.keepUntil,
    });
    const storage = t.app.get(ScreenshotStorage);
    const sweeper = t.app.get(RenderSweeper);
    // Past the replaced entry's own 120 s, before its link's hour: still there, still served.
    t.clock.advance(600_000);
    await sweeper.sweep();
    expect(await storage.exists(replaced.fileKey!)).toBe(true);
    const file = await fetchLink();
    expect(file.status).toBe(200);
    expect(file.headers['x-render-id']).toBe(first.id);
    expect((await decodeImage(file.body)).at(10, 10)).toEqual(RED);
    // At its keepUntil the link has expired, and the sweep (after its grace) removes the row and the object.
    t.clock.set(new Date(first.keepUntil.getTime() + SWEEP_GRACE_MS + 1000));
    expect((await fetchLink()).status).toBe(403);
    await sweeper.sweep();
    expect(await storage.exists(replaced.fileKey!)).toBe(false);
    expect(await repository.findById(first.id)).toBeNull();
  });

  it('a late attempt of a render job never shortens a ready entry’s keepUntil nor fails it: a link given out stays good', async () => {
    const linked = await api()
      .post('/render')
      .set(account.auth)
      .send({ url: `${pages.url}/blue`, viewport_width: 406, response_type: 'json' });
    expect(linked.status).toBe(200);
    const repository = t.app.get(RenderRepository);
    const ready = (await repository.findById(linked.body.data.id))!;
    expect(ready.keepUntil.getTime()).toBeGreaterThanOrEqual(minute + 3_600_000);
    const now = t.clock.now();
    // What a superseded attempt writes when it ends: ready again with cache_ttl 0's retention, or failed.
    await repository.markReady(ready.id, {
      ...ready,
      fileKey: ready.fileKey!,
      fileSize: ready.fileSize!,
      width: 406,
      height: 800,
      finishedAt: now,
      expiresAt: now,
      keepUntil: new Date(now.getTime() + 120_000),
    });
    await repository.markFailed(ready.id, now, new Date(now.getTime() + 120_000));
    const after = (await repository.findById(ready.id))!;
    expect({ status: after.status, keepUntil: after.keepUntil }).toEqual({ status: 'ready', keepUntil: ready.keepUntil });
    t.clock.advance(600_000);
    const link = new URL(linked.body.data.url);
    expect((await api().get(`${link.pathname}${link.search}`)).status).toBe(200);
  });

  it('422 for bad options, in Take Screenshot’s words; the URL policy refuses at the door', async () => {
    const bad = await api()
      .get('/render')
      .query({ url: `${pages.url}/red`, viewport_width: '10', full_page: 'maybe', nope: '1', cache_ttl: '2592001' })
      .set(account.auth);
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      success: false,
      error: 'The given data was invalid',
      code: 'validation_failed',
      details: expect.arrayContaining([
        { field: 'viewport_width', message: 'viewport_width must not be less than 320' },
        { field: 'full_page', message: 'full_page must be a boolean value' },
        { field: 'nope', message: 'nope is not allowed' },
        { field: 'cache_ttl', message: 'cache_ttl must not be greater than 2592000' },
      ]),
    });
    const quality = await api()
      .post('/render')
      .set(account.auth)
      .send({ url: `${pages.url}/red`, quality: 50 });
    expect(quality.status).toBe(422);
    expect(quality.body.details).toEqual([{ field: 'quality', message: expect.stringContaining('quality') }]);
    const missing = await api().get('/render').set(account.auth);
    expect(missing.status).toBe(422);
    expect(missing.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'url' })]));
    const scheme = await api().get('/render').query({ url: 'ftp://example.com/' }).set(account.auth);
    expect(scheme.status).toBe(422);
    expect(scheme.body).toEqual({
      success: false,
      error: 'The given data was invalid',
      code: 'validation_failed',
      details: [{ field: 'url', message: 'url scheme must be http or https' }],
    });
    expect(await renderJobs()).toEqual(expect.not.arrayContaining([expect.objectContaining({ status: 'queued' })]));
  });

  it('502 capture_failed with the page’s error; 504 capture_timeout when the page never loads', async () => {
    const closed: Server = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await api()
      .get('/render')
      .query({ url: `http://127.0.0.1:${port}/` })
      .set(account.auth);
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual({
      success: false,
      error: 'The site refused the connection. Check that the site is up and that the address and port are right.',
      code: 'capture_failed',
      error_code: 'net::ERR_CONNECTION_REFUSED',
    });
    const never = await api()
      .get('/render')
      .query({ url: `${pages.url}/never`, timeout_ms: '2000' })
      .set(account.auth);
    expect(never.status).toBe(504);
    expect(never.body).toEqual({ success: false, error: 'The page did not answer within 2 s', code: 'capture_timeout', error_code: 'capture_timeout' });
  });

  it('401 without a token; renders are not screenshots: absent from the screenshot list', async () => {
    expect(
      (
        await api()
          .get('/render')
          .query({ url: `${pages.url}/red` })
      ).status,
    ).toBe(401);
    const list = await api().get('/screenshots').set(account.auth);
    expect(list.status).toBe(200);
    expect(list.body.meta.total).toBe(0);
  });

  it('a signed link (render key, no Authorization) renders for the key’s account: a day’s cache, Cache-Control public; tampered → 403', async () => {
    const key = await api().post('/render-keys').set(account.auth).send({ name: 'img' });
    expect(key.status).toBe(201);
    const { access_key, secret } = key.body.data;
    const query = `url=${encodeURIComponent(`${pages.url}/red`)}&viewport_width=420&access_key=${access_key}`;
    const signature = createHmac('sha256', secret).update(query).digest('hex');
    const first = await api().get(`/render?${query}&signature=${signature}`).buffer(true).parse(binary);
    expect(first.status).toBe(200);
    expect(first.headers['x-cache']).toBe('MISS');
    expect(first.headers['cache-control']).toBe('public, max-age=86400');
    expect(first.headers['x-ratelimit-limit']).toBeDefined();
    expect((await decodeImage(first.body)).width).toBe(420);
    t.clock.advance(10_000);
    const again = await api().get(`/render?${query}&signature=${signature}`).buffer(true).parse(binary);
    expect(again.headers).toMatchObject({ 'x-cache': 'HIT', age: '10', 'cache-control': 'public, max-age=86390' });
    const tampered = await api().get(`/render?${query.replace('420', '421')}&signature=${signature}`);
    expect(tampered.status).toBe(403);
    expect(tampered.body.code).toBe('invalid_signature');
  });

  it('a signed link that expires before its cache entry is cached by CDNs only until the link expires (json answers too)', async () => {
    const key = await api().post('/render-keys').set(account.auth).send({ name: 'short-lived' });
    const { access_key, secret } = key.body.data;
    const expires = Math.floor(t.clock.now().getTime() / 1000) + 600;
    const sign = (query: string) => `/render?${query}&signature=${createHmac('sha256', secret).update(query).digest('hex')}`;
    const base = `url=${encodeURIComponent(`${pages.url}/red`)}&viewport_width=430`;
    const image = await api()
      .get(sign(`${base}&access_key=${access_key}&expires=${expires}`))
      .buffer(true)
      .parse(binary);
    expect({ status: image.status, cacheControl: image.headers['cache-control'] }).toEqual({ status: 200, cacheControl: 'public, max-age=600' });
    const json = await api().get(sign(`${base}&response_type=json&access_key=${access_key}&expires=${expires}`));
    expect({ status: json.status, cacheControl: json.headers['cache-control'] }).toEqual({ status: 200, cacheControl: 'public, max-age=600' });
  });
});
