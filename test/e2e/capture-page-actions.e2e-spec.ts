import request from 'supertest';
import { binary, detailFields } from '../support/assertions';
import { decodeImage, GREEN, Rgb } from '../support/images';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The page options of the third round through the API (API.md, "Page options added": scripts, click,
 * remove_selectors, block_requests, block_chat_widgets, reduced_motion, media_type, output_width / output_height):
 * saved on a website they apply to its captures, a request overrides them, a failing script or click fails the
 * job in words, and every bound is a 422 naming the field. The page effects themselves are proven one by one in
 * src/adapters/capture/page-options.int-spec.ts.
 *
 * Rate limit: Business (60 requests per calendar minute); the clock is pinned and every test starts in a fresh
 * minute.
 */

/** A 100 px red header over a green page; a button that turns the page blue; the image /ads/x.png. */
const PAGE =
  '<!doctype html><html><head><style>html,body{margin:0;background:rgb(0,200,0)}#header{height:100px;background:red}</style></head><body>' +
  '<div id="header"></div><button id="blue" onclick="document.documentElement.style.background=\'blue\'">blue</button><img src="/ads/x.png" width="1" height="1">' +
  '</body></html>';

const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const BLUE: Rgb = [0, 0, 255];

describe('Page options of the third round through the API (real Chromium)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let minute = Date.parse('2034-07-01T08:00:00Z');
  const api = () => request(t.url);

  async function website(body: Record<string, unknown> = {}): Promise<number> {
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'actions', url: `${pages.url}/page`, viewport_width: 800, viewport_height: 600, ...body });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  async function job(websiteId: number, body: Record<string, unknown>) {
    const take = await api().post(`/websites/${websiteId}/screenshot`).set(account.auth).send(body);
    expect(take.status).toBe(200);
    return waitForJob(t.url, account.auth, take.body.job_id);
  }

  async function capture(websiteId: number, body: Record<string, unknown> = {}) {
    const done = await job(websiteId, body);
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    const shot = (await api().get(`/screenshots/${done.screenshot_id}`).set(account.auth).expect(200)).body.data;
    const file = await api().get(`/screenshots/${shot.id}/download`).set(account.auth).buffer(true).parse(binary).expect(200);
    return { shot, image: await decodeImage(file.body as Buffer) };
  }

  async function expect422(path: string, method: 'post' | 'put', body: Record<string, unknown>, fields: string[]): Promise<void> {
    const res = await api()[method](path).set(account.auth).send(body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, error: 'The given data was invalid', code: 'validation_failed' });
    expect(detailFields(res.body)).toEqual([...fields].sort());
  }

  beforeAll(async () => {
    t = await startTestApp();
    pages = await new PageServer({
      '/page': PAGE,
      '/ads/x.png': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png' }).end(PNG_1PX);
      },
    }).start();
    account = await t.createAccount({ plan: 'business' });
  });
  afterAll(async () => {
    await pages?.stop();
    await t?.close();
  });
  beforeEach(() => {
    minute += 60_000;
    t.clock.set(new Date(minute));
    pages.requests.length = 0;
  });

  it('options saved on a website apply to its captures; GET shows them; a request overrides them', async () => {
    const saved = { remove_selectors: ['#header'], output_width: 400, block_requests: ['*/ads/*'], reduced_motion: true, media_type: 'screen' };
    const id = await website({ capture_options: saved });
    const got = await api().get(`/websites/${id}`).set(account.auth).expect(200);
    expect(got.body.data.capture_options).toMatchObject(saved);

    const { shot, image } = await capture(id);
    // 800×600 resized to 400 wide (the height kept in proportion), the header removed: green from the top.
    expect([shot.width, shot.height, image.width, image.height]).toEqual([400, 300, 400, 300]);
    expect(image.at(200, 10)).toEqual(GREEN);
    expect(pages.requests).not.toContain('/ads/x.png');

    // The request's own choices over the saved ones: a script, a click, another size.
    const over = await capture(id, { output_width: 200, output_height: 100, click: ['#blue'], scripts: 'document.title = "scripted"' });
    expect([over.image.width, over.image.height]).toEqual([200, 100]);
    expect(over.image.at(100, 50)).toEqual(BLUE);
    expect(over.shot.capture).toMatchObject({ title: 'scripted' });
  });

  it('a script that throws or a click target that is missing fails the job, in words', async () => {
    const id = await website();
    const thrown = await job(id, { scripts: ['window.ok = 1', 'throw new TypeError("checkout closed")'] });
    expect(thrown).toMatchObject({ status: 'failed', error: 'scripts[1] failed: TypeError: checkout closed' });
    const missing = await job(id, { click: ['#blue', '#cookie-accept'] });
    expect(missing).toMatchObject({ status: 'failed', error: 'Click target not found: #cookie-accept' });
  });

  it('each bound is a 422 naming the field, on a capture request and on a website alike', async () => {
    const id = await website();
    const shot = `/websites/${id}/screenshot`;
    await expect422(shot, 'post', { scripts: 'x'.repeat(20 * 1024 + 1) }, ['scripts']);
    await expect422(shot, 'post', { scripts: Array.from({ length: 11 }, () => '1') }, ['scripts']);
    await expect422(shot, 'post', { scripts: ['   '] }, ['scripts']);
    await expect422(shot, 'post', { scripts: 42 }, ['scripts']);
    await expect422(shot, 'post', { click: Array.from({ length: 11 }, (_, i) => `#b${i}`) }, ['click']);
    await expect422(shot, 'post', { click: ['div['] }, ['click']);
    await expect422(shot, 'post', { remove_selectors: Array.from({ length: 51 }, (_, i) => `.r${i}`) }, ['remove_selectors']);
    await expect422(shot, 'post', { block_requests: Array.from({ length: 51 }, (_, i) => `*/x${i}/*`) }, ['block_requests']);
    await expect422(shot, 'post', { block_requests: ['has space'] }, ['block_requests']);
    await expect422(shot, 'post', { block_chat_widgets: 'yes', reduced_motion: 1 }, ['block_chat_widgets', 'reduced_motion']);
    await expect422(shot, 'post', { media_type: 'tv' }, ['media_type']);
    await expect422(shot, 'post', { output_width: 15, output_height: 8193 }, ['output_width', 'output_height']);
    await expect422(shot, 'post', { output_width: 400.5 }, ['output_width']);
    await expect422(shot, 'post', { format: 'pdf', output_width: 400 }, ['output_width']);
    await expect422(`/websites/${id}`, 'put', { capture_options: { format: 'pdf', output_height: 400 } }, ['capture_options.output_height']);
    const jobs = await api().get(`/jobs?website_id=${id}`).set(account.auth).expect(200);
    expect(jobs.body.meta.total).toBe(0);

    const res = await api().post(shot).set(account.auth).send({ output_width: 15 });
    expect(res.body.details).toEqual([{ field: 'output_width', message: 'output_width must not be less than 16' }]);
  });
});
