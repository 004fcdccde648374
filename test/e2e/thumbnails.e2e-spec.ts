import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { ThumbnailRenderer } from '../../src/modules/screenshots/application/ports';
import { binary } from '../support/assertions';
import { BLUE, decodeImage as decode, GREEN, RED, Rgb } from '../support/images';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Thumbnails (README: Websites, screenshots and jobs): made on a screenshot's first thumbnail request (never on
 * the capture's hot path), stored beside the PNG as `<id>.thumb.webp`, served by
 * GET /screenshots/{id}/thumbnail, removed with the screenshot. Real Chromium renders pages served on
 * 127.0.0.1; sharp reads the thumbnails' sizes and pixels.
 *
 * Rate limit: accounts are on Business (60 requests per calendar minute); the clock is pinned and every test
 * starts in a fresh minute. Jobs are awaited by reading the jobs table, which costs no request.
 */

const NOT_FOUND = { success: false, error: expect.any(String), code: 'not_found' };
const IMMUTABLE = 'private, max-age=31536000, immutable';

/** Left half red, right half blue: a thumbnail that is the page scaled shows both in place. */
const HALVES_PAGE =
  '<!doctype html><html><head><style>html,body{margin:0;height:100%;background:rgb(0,0,255)}</style></head>' +
  '<body><div style="position:absolute;left:0;top:0;width:50%;height:100%;background:rgb(255,0,0)"></div></body></html>';

/**
 * 20,000 px tall (the capture is cut at CAPTURE_MAX_HEIGHT, 16,384): a 600 px green header, red below. Cut from
 * the top, the 400 px wide thumbnail shows the header as its top 187 rows; squashed into 300 rows it would be 11.
 */
const TALL_PAGE =
  '<!doctype html><html><head><style>html,body{margin:0;background:rgb(255,0,0)}</style></head>' +
  '<body><div style="height:600px;background:rgb(0,200,0)"></div><div style="height:19400px"></div></body></html>';

interface Shot {
  id: number;
  website_id: number;
  file_path: string;
  width: number;
  height: number;
}

/** Lossy WebP moves flat colours a little. */
function expectColour(actual: Rgb, expected: Rgb, where: string): void {
  const off = actual.map((v, c) => Math.abs(v - expected[c]));
  expect({ where, actual, close: off.every((d) => d <= 16) }).toEqual({ where, actual, close: true });
}

describe('Screenshot thumbnails with real Chromium captures', () => {
  let t: TestApp;
  let pages: PageServer;
  let minute = Date.parse('2034-03-01T08:00:00Z');

  function freshMinute(): void {
    minute += 60_000;
    t.clock.set(new Date(minute));
  }

  const api = () => request(t.url);

  async function createWebsite(account: TestAccount, body: Record<string, unknown>): Promise<{ id: number }> {
    const res = await api().post('/websites').set(account.auth).send(body);
    expect(res.status).toBe(201);
    return res.body.data;
  }

  async function capture(account: TestAccount, websiteId: number, body: Record<string, unknown> = {}): Promise<Shot> {
    const take = await api().post(`/websites/${websiteId}/screenshot`).set(account.auth).send(body);
    expect(take.status).toBe(200);
    const job = await waitForJob(t.url, account.auth, take.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded', error: null });
    const res = await api().get(`/screenshots/${job.screenshot_id}`).set(account.auth).expect(200);
    return res.body.data;
  }

  function thumbnail(account: TestAccount, id: number, ifNoneMatch?: string) {
    const req = api().get(`/screenshots/${id}/thumbnail`).set(account.auth);
    if (ifNoneMatch !== undefined) req.set('If-None-Match', ifNoneMatch);
    return req.buffer(true).parse(binary);
  }

  const onDisk = (key: string) => join(t.config.storageDir, key.replace(/^screenshots\//, ''));
  const pngPath = (shot: Shot) => onDisk(shot.file_path);
  const thumbPath = (shot: Shot) => onDisk(shot.file_path.replace(/\.png$/, '.thumb.webp'));
  const stagedFiles = () => readdirSync(join(t.config.storageDir, '.tmp'));

  beforeAll(async () => {
    t = await startTestApp();
    pages = await new PageServer({
      '/halves': HALVES_PAGE,
      '/tall': TALL_PAGE,
      '/green': solidPage('rgb(0,200,0)'),
    }).start();
  });
  afterAll(async () => {
    await pages?.stop();
    await t?.close();
  });
  beforeEach(() => freshMinute());
  afterEach(() => jest.restoreAllMocks());

  it('a 1280×800 capture stores no thumbnail on the capture path; the first GET makes it beside the PNG and serves it: 200 image/webp 400×250 of the page, ETag, immutable caching, Content-Length', async () => {
    const account = await t.createAccount({ plan: 'business' });
    const site = await createWebsite(account, { name: 'halves', url: `${pages.url}/halves` });
    const shot = await capture(account, site.id);
    expect([shot.width, shot.height]).toEqual([1280, 800]);
    expect(shot.file_path).toBe(`screenshots/${account.id}/${site.id}/${shot.id}.png`);
    expect(existsSync(pngPath(shot))).toBe(true);
    expect(existsSync(thumbPath(shot))).toBe(false); // not on the capture's hot path (README: Thumbnails)
    expect(stagedFiles()).toEqual([]);

    const render = jest.spyOn(t.app.get(ThumbnailRenderer), 'render');
    const res = await thumbnail(account, shot.id);
    expect(render).toHaveBeenCalledTimes(1);
    expect(existsSync(thumbPath(shot))).toBe(true);
    expect(thumbPath(shot)).toBe(join(t.config.storageDir, String(account.id), String(site.id), `${shot.id}.thumb.webp`));
    expect(stagedFiles()).toEqual([]);
    render.mockClear();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expect(res.headers.etag).toMatch(/^"[^"]+"$/); // strong: no W/ prefix
    expect(res.headers['content-length']).toBe(String((res.body as Buffer).length));
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    expect(res.headers['content-disposition']).toBeUndefined();
    // The bytes stored beside the PNG.
    expect((res.body as Buffer).equals(readFileSync(thumbPath(shot)))).toBe(true);

    const thumb = await decode(res.body as Buffer);
    expect(thumb).toMatchObject({ format: 'webp', width: 400, height: 250 });
    expectColour(thumb.at(50, 125), RED, 'left half');
    expectColour(thumb.at(350, 125), BLUE, 'right half');
    expect((res.body as Buffer).length).toBeLessThan(20_000);

    // The same ETag every time; If-None-Match with it (also in weak form, or in a list) → 304 without a body.
    const again = await thumbnail(account, shot.id);
    expect(again.headers.etag).toBe(res.headers.etag);
    for (const tag of [res.headers.etag, `W/${res.headers.etag}`, `"other", ${res.headers.etag}`, '*']) {
      const cached = await thumbnail(account, shot.id, tag);
      expect({ tag, status: cached.status }).toEqual({ tag, status: 304 });
      expect((cached.body as Buffer).length).toBe(0);
      expect(cached.headers.etag).toBe(res.headers.etag);
      expect(cached.headers['cache-control']).toBe(IMMUTABLE);
    }
    const stale = await thumbnail(account, shot.id, '"th-0-stale"');
    expect(stale.status).toBe(200);
    expect((stale.body as Buffer).equals(res.body as Buffer)).toBe(true);
  });

  it('a 20,000 px full-page capture (whole: under CAPTURE_MAX_HEIGHT) → 400×300 from the TOP of the page, not squashed (the green header fills the top rows)', async () => {
    const account = await t.createAccount({ plan: 'business' });
    const site = await createWebsite(account, { name: 'tall', url: `${pages.url}/tall`, full_page: true });
    const shot = await capture(account, site.id);
    expect([shot.width, shot.height]).toEqual([1280, 20000]);
    const res = await thumbnail(account, shot.id);
    expect(res.status).toBe(200);
    const thumb = await decode(res.body as Buffer);
    expect(thumb).toMatchObject({ format: 'webp', width: 400, height: 300 });
    // 600 CSS px of header at 400/1280 → rows 0..187.
    for (const y of [5, 100, 180]) expectColour(thumb.at(200, y), GREEN, `row ${y}`);
    for (const y of [195, 250, 299]) expectColour(thumb.at(200, y), RED, `row ${y}`);
    expect((await decode(readFileSync(thumbPath(shot)))).height).toBe(300);
  });

  it('a 320 px wide capture keeps 320 px (never upscaled); 320×480 is cut at 300', async () => {
    const account = await t.createAccount({ plan: 'business' });
    const site = await createWebsite(account, { name: 'phone', url: `${pages.url}/green`, viewport_width: 320, viewport_height: 480 });
    const shot = await capture(account, site.id);
    expect([shot.width, shot.height]).toEqual([320, 480]);
    const thumb = await decode((await thumbnail(account, shot.id).expect(200)).body as Buffer);
    expect(thumb).toMatchObject({ width: 320, height: 300 });
    expectColour(thumb.at(160, 150), GREEN, 'middle');
  });

  it("another account's screenshot and an unknown id → 404 not_found like GET /screenshots/{id}; no token → 401", async () => {
    const owner = await t.createAccount({ plan: 'business' });
    const stranger = await t.createAccount({ plan: 'business' });
    const site = await createWebsite(owner, { name: 'private', url: `${pages.url}/green` });
    const shot = await capture(owner, site.id);

    // Each answers exactly what GET /screenshots/{same id} answers.
    for (const id of [String(shot.id), '987654', 'abc']) {
      const plain = await api().get(`/screenshots/${id}`).set(stranger.auth);
      expect({ status: plain.status, body: plain.body }).toEqual({ status: 404, body: NOT_FOUND });
      const res = await api().get(`/screenshots/${id}/thumbnail`).set(stranger.auth);
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 404, body: plain.body });
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.headers.etag).toBeUndefined();
    }
    const anonymous = await api().get(`/screenshots/${shot.id}/thumbnail`);
    expect({ status: anonymous.status, body: anonymous.body }).toEqual({ status: 401, body: { success: false, error: 'Unauthorized', code: 'unauthorized' } });

    // The owner still gets it.
    expect((await thumbnail(owner, shot.id)).status).toBe(200);
  });

  it('a screenshot without a thumbnail file gets one made from its PNG on first request, stored, then served from storage', async () => {
    const account = await t.createAccount({ plan: 'business' });
    const site = await createWebsite(account, { name: 'lazy', url: `${pages.url}/halves` });
    const shot = await capture(account, site.id);
    expect(existsSync(thumbPath(shot))).toBe(false);

    const render = jest.spyOn(t.app.get(ThumbnailRenderer), 'render');
    const first = await thumbnail(account, shot.id);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('image/webp');
    expect(render).toHaveBeenCalledTimes(1);
    expect(existsSync(thumbPath(shot))).toBe(true);
    expect(readFileSync(thumbPath(shot)).equals(first.body as Buffer)).toBe(true);
    const thumb = await decode(first.body as Buffer);
    expect(thumb).toMatchObject({ width: 400, height: 250 });
    expectColour(thumb.at(50, 125), RED, 'left half');

    const second = await thumbnail(account, shot.id);
    expect(second.status).toBe(200);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(render).toHaveBeenCalledTimes(1);
    const original = first.body as Buffer;

    // Simultaneous first requests: every answer is the whole thumbnail, one file results, nothing stays staged.
    unlinkSync(thumbPath(shot));
    const answers = await Promise.all(Array.from({ length: 6 }, () => thumbnail(account, shot.id)));
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect((res.body as Buffer).equals(original)).toBe(true);
    }
    expect(readFileSync(thumbPath(shot)).equals(original)).toBe(true);
    expect(stagedFiles()).toEqual([]);
  });

  it('a thumbnail that cannot be made → 503 unavailable; the PNG is unaffected, nothing is left staged, the next request makes it', async () => {
    const account = await t.createAccount({ plan: 'business' });
    const site = await createWebsite(account, { name: 'unlucky', url: `${pages.url}/green` });
    const shot = await capture(account, site.id);
    jest.spyOn(t.app.get(ThumbnailRenderer), 'render').mockRejectedValueOnce(new Error('libvips: out of memory'));
    const failed = await api().get(`/screenshots/${shot.id}/thumbnail`).set(account.auth);
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({ success: false, error: 'The thumbnail could not be made; try again', code: 'unavailable' });
    expect(existsSync(pngPath(shot))).toBe(true);
    expect(existsSync(thumbPath(shot))).toBe(false);
    expect(stagedFiles()).toEqual([]);

    const res = await thumbnail(account, shot.id);
    expect(res.status).toBe(200);
    expect(await decode(res.body as Buffer)).toMatchObject({ format: 'webp', width: 400, height: 250 });
    expect(existsSync(thumbPath(shot))).toBe(true);
  });

  it('a screenshot whose PNG is gone → 404 not_found, and no thumbnail is made', async () => {
    const account = await t.createAccount({ plan: 'business' });
    const site = await createWebsite(account, { name: 'lost', url: `${pages.url}/green` });
    const shot = await capture(account, site.id);
    unlinkSync(pngPath(shot));
    const res = await api().get(`/screenshots/${shot.id}/thumbnail`).set(account.auth);
    expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: NOT_FOUND });
    expect(existsSync(thumbPath(shot))).toBe(false);
  });

  it('DELETE /screenshots/{id} removes the PNG and the thumbnail; the thumbnail is then 404', async () => {
    const account = await t.createAccount({ plan: 'business' });
    const site = await createWebsite(account, { name: 'doomed', url: `${pages.url}/green` });
    const doomed = await capture(account, site.id);
    const kept = await capture(account, site.id);
    for (const shot of [doomed, kept]) expect((await thumbnail(account, shot.id)).status).toBe(200);
    for (const p of [pngPath(doomed), thumbPath(doomed)]) expect(existsSync(p)).toBe(true);

    await api().delete(`/screenshots/${doomed.id}`).set(account.auth).expect(200);
    expect(existsSync(pngPath(doomed))).toBe(false);
    expect(existsSync(thumbPath(doomed))).toBe(false);
    const gone = await api().get(`/screenshots/${doomed.id}/thumbnail`).set(account.auth);
    expect({ status: gone.status, body: gone.body }).toEqual({ status: 404, body: NOT_FOUND });
    expect(existsSync(thumbPath(doomed))).toBe(false);
    expect(existsSync(thumbPath(kept))).toBe(true);
  });

  it("deleting a website removes its screenshots' thumbnails too; other websites keep theirs", async () => {
    const account = await t.createAccount({ plan: 'business' });
    const site = await createWebsite(account, { name: 'cascade', url: `${pages.url}/green` });
    const other = await createWebsite(account, { name: 'survivor', url: `${pages.url}/green` });
    const shots = [await capture(account, site.id), await capture(account, site.id)];
    const survivor = await capture(account, other.id);
    for (const shot of [...shots, survivor]) expect((await thumbnail(account, shot.id)).status).toBe(200);

    await api().delete(`/websites/${site.id}`).set(account.auth).expect(200);
    for (const s of shots) {
      expect(existsSync(pngPath(s))).toBe(false);
      expect(existsSync(thumbPath(s))).toBe(false);
    }
    // Nothing of the website is left: its whole folder goes with it.
    expect(existsSync(join(t.config.storageDir, String(account.id), String(site.id)))).toBe(false);
    expect(existsSync(thumbPath(survivor))).toBe(true);
  });

  it("scenario runs' screenshots (the screenshot step and the final one) get their thumbnails like any other", async () => {
    const account = await t.createAccount({ plan: 'business' });
    const site = await createWebsite(account, { name: 'scripted', url: `${pages.url}/halves`, viewport_width: 800, viewport_height: 600 });
    const created = await api()
      .post('/scenarios')
      .set(account.auth)
      // A step after the screenshot step, so the run takes a final shot of its own (a last screenshot step IS the final shot).
      .send({ name: 'two shots', website_id: site.id, steps: [{ type: 'screenshot' }, { type: 'wait', duration: 0 }] });
    expect(created.status).toBe(201);
    const run = await api().post(`/scenarios/${created.body.data.id}/run`).set(account.auth);
    expect(run.status).toBe(200);
    const execution = await waitForJob(t.url, account.auth, run.body.execution_id);
    expect(execution.status).toBe('succeeded');
    const ids = (await api().get(`/executions/${run.body.execution_id}`).set(account.auth).expect(200)).body.data.screenshot_ids as number[];
    expect(ids).toHaveLength(2);

    for (const id of ids) {
      const shot: Shot = (await api().get(`/screenshots/${id}`).set(account.auth).expect(200)).body.data;
      const res = await thumbnail(account, id);
      expect(res.status).toBe(200);
      expect((res.body as Buffer).equals(readFileSync(thumbPath(shot)))).toBe(true);
      const thumb = await decode(res.body as Buffer);
      expect(thumb).toMatchObject({ format: 'webp', width: 400, height: 300 });
      expectColour(thumb.at(50, 150), RED, `screenshot ${id} left half`);
      expectColour(thumb.at(350, 150), BLUE, `screenshot ${id} right half`);
    }
    expect(stagedFiles()).toEqual([]);
  });
});
