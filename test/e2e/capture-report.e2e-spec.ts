import request from 'supertest';
import { detailFields } from '../support/assertions';
import { waitForJob } from '../support/jobs';
import type { ServerResponse } from 'node:http';
import { PageServer, type Route } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';
import { DashboardClient } from '../support/dashboard-session';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';

/**
 * The capture report and its options (API.md "Capture report"; README: The capture report): `capture` on every
 * Screenshot (GET /screenshots/{id}, the list), `fail_on_status` failing the job with "The page answered HTTP 404"
 * (a page failure: one attempt), `timeout_ms` up to CAPTURE_TIMEOUT_MS (422 above), and the dashboard's screenshot
 * page with its "incomplete" badge. Real Chromium on pages served on 127.0.0.1.
 *
 * Rate limit: Business (60 requests per calendar minute); the clock is pinned and every test starts in a fresh minute.
 */

const TIMEOUT_MS = 8_000;
const PASSWORD = 'correct horse battery staple';

/** Requests held open, never answered: a tracking pixel on a dead ad server (ended at the close). */
const held: ServerResponse[] = [];

const PAGES: Record<string, Route | string> = {
  '/ok': '<!doctype html><title>All fine</title><style>html,body{margin:0;background:rgb(0,128,0)}</style><p>ok</p>',
  '/tall': '<!doctype html><title>Tall</title><style>html,body{margin:0}</style><div style="height:40000px;background:rgb(0,128,0)"></div>',
  '/article':
    '<!doctype html><title>Article</title><style>html,body{margin:0;background:rgb(0,128,0)}</style><p>news</p><img src="/pixel.gif" width="1" height="1">',
  '/pixel.gif': (_req, res) => {
    held.push(res);
  },
};

describe('Capture report (real Chromium)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let minute = Date.parse('2034-07-01T08:00:00Z');
  const api = () => request(t.url);

  async function website(path: string, body: Record<string, unknown> = {}): Promise<number> {
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'report', url: `${pages.url}${path}`, ...body });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  async function job(websiteId: number, body: Record<string, unknown> = {}) {
    const take = await api().post(`/websites/${websiteId}/screenshot`).set(account.auth).send(body);
    expect(take.status).toBe(200);
    return waitForJob(t.url, account.auth, take.body.job_id);
  }

  async function shot(websiteId: number, body: Record<string, unknown> = {}) {
    const done = await job(websiteId, body);
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    return (await api().get(`/screenshots/${done.screenshot_id}`).set(account.auth).expect(200)).body.data;
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { CAPTURE_TIMEOUT_MS: String(TIMEOUT_MS) } });
    pages = await new PageServer(PAGES).start();
    account = await t.createAccount({ plan: 'business' });
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await pages?.stop();
    await t?.close();
  });
  beforeEach(() => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  });

  it('every Screenshot has `capture`: status, final URL, title, page height, settled, waited ms, pending — also in the list', async () => {
    const id = await website('/ok');
    const data = await shot(id);
    expect(data.capture).toEqual({
      http_status: 200,
      final_url: `${pages.url}/ok`,
      title: 'All fine',
      page_height: 800,
      truncated: false,
      settled: true,
      waited_ms: expect.any(Number),
      pending: [],
      warnings: [],
      proxy: null,
      // No saved session was used (docs/sessions.md: {id, name, refreshed} when one was).
      session: null,
    });
    const list = await api().get(`/screenshots?website_id=${id}`).set(account.auth).expect(200);
    expect(list.body.data[0].capture).toEqual(data.capture);
  });

  it('a 404 page is captured with http_status 404; fail_on_status fails the job with "The page answered HTTP 404", once', async () => {
    const id = await website('/missing');
    expect((await shot(id)).capture).toMatchObject({ http_status: 404, final_url: `${pages.url}/missing` });

    const failed = await job(id, { fail_on_status: true });
    expect(failed).toMatchObject({ status: 'failed', error: 'The page answered HTTP 404', attempts: 1, screenshot_id: null });
    const listed = await job(id, { fail_on_status: [404, 410] });
    expect(listed).toMatchObject({ status: 'failed', error: 'The page answered HTTP 404' });
    expect((await job(id, { fail_on_status: [500] })).status).toBe('succeeded');
  });

  it('fail_on_status saved on the website applies; the request overrides it (false: capture the error page)', async () => {
    const id = await website('/missing', { capture_options: { fail_on_status: [404] } });
    const saved = await api().get(`/websites/${id}`).set(account.auth).expect(200);
    expect(saved.body.data.capture_options).toMatchObject({ fail_on_status: [404] });
    expect(await job(id)).toMatchObject({ status: 'failed', error: 'The page answered HTTP 404' });
    expect((await job(id, { fail_on_status: false })).status).toBe('succeeded');
  });

  it('a 40,000 px page as a full page: cut at 32,768 px, truncated with page_height 40000, and the warning says so', async () => {
    const data = await shot(await website('/tall'), { full_page: true });
    expect([data.width, data.height]).toEqual([1280, 32768]);
    expect(data.capture).toMatchObject({ page_height: 40000, truncated: true, title: 'Tall' });
    expect(data.capture.warnings).toEqual([{ code: 'truncated', detail: 'The page is 40000 px tall; the picture stops at 32768 px (the maximum height).' }]);
  });

  it('a tracking pixel that never answers does not fail the capture: succeeded, settled false, the pixel pending and warned of', async () => {
    // Succeeded within CAPTURE_TIMEOUT_MS (8 s), though the pixel never answers: the document had.
    const data = await shot(await website('/article'));
    const port = new URL(pages.url).port;
    expect(data.capture).toMatchObject({ title: 'Article', settled: false, pending: [`127.0.0.1:${port}/pixel.gif`] });
    expect(data.capture.warnings).toEqual([
      { code: 'hung_requests', detail: `1 request never answered and the picture was taken without it: 127.0.0.1:${port}/pixel.gif.` },
    ]);
    // The same page as a render: an image, with the warning's code in its header.
    const render = await api()
      .get('/render')
      .query({ url: `${pages.url}/article` })
      .set(account.auth);
    expect(render.status).toBe(200);
    expect(render.headers['x-capture-warnings']).toBe('hung_requests');
    expect(render.headers['x-capture-settled']).toBe('false');
  });

  it('full_page_scroll_selector: a selector, on the request and the website; one that does not parse is 422 naming it', async () => {
    const id = await website('/ok', { capture_options: { full_page_scroll_selector: 'main' } });
    const saved = await api().get(`/websites/${id}`).set(account.auth).expect(200);
    expect(saved.body.data.capture_options).toMatchObject({ full_page_scroll_selector: 'main' });
    const bad = await api().post(`/websites/${id}/screenshot`).set(account.auth).send({ full_page_scroll_selector: 'main[' });
    expect(bad.status).toBe(422);
    expect(detailFields(bad.body)).toEqual(['full_page_scroll_selector']);
    expect((await job(id, { full_page: true, full_page_scroll_selector: '#nothing' })).status).toBe('succeeded');
  });

  it('422 for a bad fail_on_status or a timeout_ms above CAPTURE_TIMEOUT_MS (request and website), timeout_ms below it is taken', async () => {
    const id = await website('/ok');
    for (const [body, fields] of [
      [{ fail_on_status: [200] }, ['fail_on_status']],
      [{ fail_on_status: 'yes' }, ['fail_on_status']],
      [{ fail_on_status: [404.5] }, ['fail_on_status']],
      [{ timeout_ms: TIMEOUT_MS + 1 }, ['timeout_ms']],
      [{ timeout_ms: 999 }, ['timeout_ms']],
      [{ timeout_ms: '5000' }, ['timeout_ms']],
    ] as const) {
      const res = await api().post(`/websites/${id}/screenshot`).set(account.auth).send(body);
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
      expect(res.body).toMatchObject({ success: false, error: 'The given data was invalid', code: 'validation_failed' });
      expect(detailFields(res.body)).toEqual(fields);
    }
    const above = await api()
      .post(`/websites/${id}/screenshot`)
      .set(account.auth)
      .send({ timeout_ms: TIMEOUT_MS + 1 });
    expect(above.body.details).toEqual([
      { field: 'timeout_ms', message: `timeout_ms must not be greater than ${TIMEOUT_MS} (the server's CAPTURE_TIMEOUT_MS)` },
    ]);
    const site = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'slow', url: `${pages.url}/ok`, capture_options: { timeout_ms: TIMEOUT_MS + 1 } });
    expect(site.status).toBe(422);
    expect(detailFields(site.body)).toEqual(['capture_options.timeout_ms']);
    expect((await job(id, { timeout_ms: 5000 })).status).toBe('succeeded');
  });

  it('the dashboard’s screenshot page shows the report, and an "incomplete" badge with the reason for a cut page', async () => {
    const tall = await shot(await website('/tall'), { full_page: true });
    const whole = await shot(await website('/ok'));
    await t.app.get(AccountsService).setPassword(account.email, PASSWORD);
    const dashboard = await new DashboardClient(t.url).signInOk(account.email, PASSWORD);

    const cut = await dashboard.get(`/dashboard/screenshots/${tall.id}`);
    expect(cut.status).toBe(200);
    expect(cut.text).toContain('<span class="badge badge-incomplete" title="The picture may not show the whole page">incomplete</span>');
    expect(cut.text).toContain('<li>The page is 40000 px tall; the picture stops at 32768 px (the maximum height).</li>');
    expect(cut.text).toContain('HTTP 200');

    const complete = await dashboard.get(`/dashboard/screenshots/${whole.id}`);
    expect(complete.status).toBe(200);
    expect(complete.text).not.toContain('badge-incomplete');
    expect(complete.text).toContain('“All fine”');
  });
});
