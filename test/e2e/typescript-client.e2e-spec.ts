import request from 'supertest';
import { buildOpenApiDocument } from '../../clients/typescript/scripts/openapi-document';
import { ApiError, createClient, render, ScreenshotClient, signRenderUrl, waitForExecution, waitForJob, WaitTimeoutError } from '../../clients/typescript/src';
import { decodeImage, RED } from '../support/images';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The package in clients/typescript spoken to the running service, the way its README tells a user to: typed
 * requests through openapi-fetch, long-polled jobs, bytes that decode, and errors that come back in their types.
 */

describe('TypeScript client (clients/typescript) against the running service', () => {
  let t: TestApp;
  let pages: PageServer;
  let alice: TestAccount;
  let client: ScreenshotClient;

  beforeAll(async () => {
    pages = await new PageServer({ '/red': solidPage('rgb(255,0,0)'), '/held': () => undefined }).start();
    t = await startTestApp();
    alice = await t.createAccount({ plan: 'business' });
    client = createClient({ baseUrl: `${t.url}/`, token: alice.token });
  });
  afterAll(async () => {
    await t?.close();
    await pages?.stop();
  });

  async function createWebsite(name: string, url = `${pages.url}/red`): Promise<number> {
    const { data, error, response } = await client.POST('/websites', { body: { name, url } });
    expect({ status: response.status, error }).toEqual({ status: 201, error: undefined });
    return data!.data.id;
  }

  it('the generator reads the very document the service serves (npm run generate:client builds it without listening)', async () => {
    const served = (await request(t.url).get('/openapi.json').expect(200)).body;
    expect(JSON.parse(JSON.stringify(await buildOpenApiDocument()))).toEqual(served);
  });

  it('creates a website, takes a screenshot, long-polls the job to success and downloads a PNG that decodes', async () => {
    const websiteId = await createWebsite('Red page');
    const taken = await client.POST('/websites/{id}/screenshot', {
      params: { path: { id: websiteId } },
      body: { viewport_width: 320, viewport_height: 240, format: 'png' },
    });
    expect(taken.response.status).toBe(200);
    const job = await waitForJob(client, taken.data!.job_id, { timeoutMs: 60_000 });
    expect(job).toMatchObject({ id: taken.data!.job_id, type: 'screenshot', status: 'succeeded', error: null, website_id: websiteId });

    const screenshot = await client.GET('/screenshots/{id}', { params: { path: { id: job.screenshot_id! } } });
    expect(screenshot.data!.data).toMatchObject({ id: job.screenshot_id, website_id: websiteId, width: 320, height: 240, format: 'png' });

    const file = await client.GET('/screenshots/{id}/download', { params: { path: { id: job.screenshot_id! } }, parseAs: 'arrayBuffer' });
    expect(file.response.headers.get('content-type')).toBe('image/png');
    const image = await decodeImage(Buffer.from(file.data!));
    expect({ format: image.format, width: image.width, height: image.height, centre: image.at(160, 120) }).toEqual({
      format: 'png',
      width: 320,
      height: 240,
      centre: RED,
    });
  });

  it('lists page by page with the pagination envelope typed', async () => {
    const bob = await t.createAccount({ plan: 'business' });
    const bobs = createClient({ baseUrl: t.url, token: bob.token });
    for (const name of ['One', 'Two', 'Three']) {
      expect((await bobs.POST('/websites', { body: { name, url: `${pages.url}/red` } })).response.status).toBe(201);
    }
    const first = await bobs.GET('/websites', { params: { query: { page: 1, per_page: 2 } } });
    const second = await bobs.GET('/websites', { params: { query: { page: 2, per_page: 2 } } });
    expect(first.data!.meta).toEqual({ current_page: 1, last_page: 2, per_page: 2, total: 3 });
    expect(second.data!.meta).toEqual({ current_page: 2, last_page: 2, per_page: 2, total: 3 });
    // Newest first, each website once.
    expect([...first.data!.data, ...second.data!.data].map((w) => w.name)).toEqual(['Three', 'Two', 'One']);
    expect(first.data!.links.next).toEqual(expect.stringContaining('page=2'));
    expect(second.data!.links.next).toBeNull();
  });

  it('answers a 404 and a 422 as typed error bodies, not exceptions', async () => {
    const missing = await client.GET('/websites/{id}', { params: { path: { id: 2147483647 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    // `code` is a union of the documented codes: comparing it with one the document lacks would not compile.
    expect(missing.error?.code === 'not_found').toBe(true);
    expect(missing.error).toEqual({ success: false, error: expect.any(String), code: 'not_found' });

    const invalid = await client.POST('/websites', { body: { name: '', url: 'not a url' } });
    expect(invalid.response.status).toBe(422);
    const body = invalid.error!;
    expect(body.code === 'validation_failed' && 'details' in body ? body.details.map((d) => d.field).sort() : body).toEqual(['name', 'url']);
  });

  it('waitForJob gives up at its timeout with the last state it saw', async () => {
    const websiteId = await createWebsite('Never answers', `${pages.url}/held`);
    const taken = await client.POST('/websites/{id}/screenshot', { params: { path: { id: websiteId } } });
    const started = Date.now();
    const outcome = await waitForJob(client, taken.data!.job_id, { timeoutMs: 1500 }).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(WaitTimeoutError);
    expect((outcome as WaitTimeoutError<{ status: string }>).last.status).toMatch(/^(queued|running)$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    // One long-poll of 2 s (the timeout rounded up to whole seconds), then the answer; generous under load.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('waitForJob and waitForExecution throw an ApiError with the code for an unknown id', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    await expect(waitForJob(client, id)).rejects.toMatchObject({ name: 'ApiError', status: 404, code: 'not_found' });
    await expect(waitForExecution(client, id)).rejects.toBeInstanceOf(ApiError);
  });

  it('waitForExecution long-polls a scenario run to its end', async () => {
    const websiteId = await createWebsite('Scenario page');
    const scenario = await client.POST('/scenarios', {
      body: { name: 'Wait then shoot', website_id: websiteId, steps: [{ type: 'wait', duration: 100 }] },
    });
    expect(scenario.response.status).toBe(201);
    const run = await client.POST('/scenarios/{id}/run', { params: { path: { id: scenario.data!.data.id } } });
    const execution = await waitForExecution(client, run.data!.execution_id, { timeoutMs: 60_000 });
    expect(execution).toMatchObject({ id: run.data!.execution_id, status: 'succeeded' });
  });

  describe('GET /render and signed links (API.md, third round)', () => {
    let key: { id: string | number; access_key: string; secret: string };
    const params = () => ({ url: `${pages.url}/red`, viewport_width: 320, viewport_height: 240 });

    beforeAll(async () => {
      const created = await client.POST('/render-keys', { body: {} });
      expect(created.response.status).toBe(201);
      key = created.data!.data;
    });

    it('render() answers the image bytes with the bearer token, then from the cache', async () => {
      const miss = await render(client, { ...params(), cache_ttl: 60 });
      expect({ type: miss.contentType, cache: miss.cache }).toEqual({ type: 'image/png', cache: 'MISS' });
      const image = await decodeImage(Buffer.from(miss.bytes));
      expect({ width: image.width, height: image.height, centre: image.at(160, 120) }).toEqual({ width: 320, height: 240, centre: RED });
      expect((await render(client, { ...params(), cache_ttl: 60 })).cache).toBe('HIT');
    });

    it('a signed link opens without a token; a changed query, a past expiry or a deleted key is 403', async () => {
      const link = signRenderUrl({
        baseUrl: t.url,
        accessKey: key.access_key,
        secret: key.secret,
        params: params(),
        expires: Math.floor(Date.now() / 1000) + 3600,
      });
      const ok = await fetch(link);
      expect({ status: ok.status, type: ok.headers.get('content-type') }).toEqual({ status: 200, type: 'image/png' });
      expect(ok.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
      expect((await decodeImage(Buffer.from(await ok.arrayBuffer()))).at(160, 120)).toEqual(RED);

      const tampered = await fetch(link.replace('viewport_width=320', 'viewport_width=321'));
      expect({ status: tampered.status, code: ((await tampered.json()) as { code: string }).code }).toEqual({ status: 403, code: 'invalid_signature' });
      const expired = await fetch(signRenderUrl({ baseUrl: t.url, accessKey: key.access_key, secret: key.secret, params: params(), expires: 1 }));
      expect({ status: expired.status, code: ((await expired.json()) as { code: string }).code }).toEqual({ status: 403, code: 'link_expired' });

      expect((await client.DELETE('/render-keys/{id}', { params: { path: { id: Number(key.id) } } })).response.status).toBe(200);
      const revoked = await fetch(link);
      expect({ status: revoked.status, code: ((await revoked.json()) as { code: string }).code }).toEqual({ status: 403, code: 'invalid_signature' });
    });
  });
});
