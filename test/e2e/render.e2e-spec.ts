import request from 'supertest';
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
};

describe('Render in one call (real Chromium)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let minute = Date.parse('2034-08-01T08:00:00Z');
  const api = () => request(t.url);
  const render = (query: Record<string, string>, auth = account.auth) => api().get('/render').query(query).set(auth).buffer(true).parse(binary);

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
});
