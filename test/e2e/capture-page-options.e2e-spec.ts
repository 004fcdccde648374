import { IncomingHttpHeaders } from 'node:http';
import request from 'supertest';
import { binary, detailFields } from '../support/assertions';
import { decodeImage, GREEN, RED, Rgb } from '../support/images';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Page options (API.md, Capture options: `selector`, `clip`, `device`, `user_agent`, `locale`, `timezone`,
 * `block_resources`, `css`; README: Capture options) with real Chromium on pages served on 127.0.0.1: what the
 * capture shows, what the page server receives, what the page's own script sees, and the 422s.
 *
 * Rate limit: Business (60 requests per calendar minute); the clock is pinned and every test starts in a fresh
 * minute.
 */

const TIMEOUT_MS = 3_000;
const BLUE_BG = 'rgb(0,0,255)';

/** A 300×200 red box 1,500 px down a blue page: element capture must scroll to it and cut it exactly. */
const BOX_PAGE =
  `<!doctype html><html><head><style>html,body{margin:0;background:${BLUE_BG}}</style></head><body>` +
  '<div style="height:1500px"></div><div id="box" style="margin-left:123px;width:300px;height:200px;background:rgb(255,0,0)"></div>' +
  '<div style="height:1500px"></div></body></html>';

/** Reports what its script sees to /report (recorded by the server), and shows an image from /pixel.png. */
const REPORT_PAGE =
  '<!doctype html><html><head><style>html,body{margin:0;background:#fff}</style></head><body><img src="/pixel.png" width="10" height="10">' +
  '<script>fetch("/report?" + new URLSearchParams({ language: navigator.language, zone: Intl.DateTimeFormat().resolvedOptions().timeZone, ' +
  'offset: String(new Date(Date.UTC(2030, 0, 1)).getTimezoneOffset()), ua: navigator.userAgent, touch: String(navigator.maxTouchPoints) }))</script></body></html>';

/**
 * A OneTrust consent banner (its real element ids): a red bar over the bottom of a white page. Rejecting removes
 * it and tells the server, as OneTrust's own script would record the choice.
 */
const CONSENT_PAGE =
  '<!doctype html><html><head><style>html,body{margin:0;background:#fff;height:100%}' +
  '#onetrust-banner-sdk{position:fixed;left:0;right:0;bottom:0;height:200px;background:rgb(255,0,0)}</style></head><body>' +
  '<h1>News</h1><div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk" role="dialog"><p>We use cookies</p>' +
  '<button id="onetrust-accept-btn-handler">Accept all</button>' +
  '<button id="onetrust-reject-all-handler" onclick="document.getElementById(\'onetrust-consent-sdk\').remove(); fetch(\'/rejected\')">Reject all</button>' +
  '</div></div></body></html>';

const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

function expectColour(actual: Rgb, expected: Rgb): void {
  expect({ actual, close: actual.every((v, c) => Math.abs(v - expected[c]) <= 8) }).toEqual({ actual, close: true });
}

describe('Capture page options: element, clip, device, user agent, locale, time zone, blocking, css (real Chromium)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let minute = Date.parse('2034-06-01T08:00:00Z');
  const headers: IncomingHttpHeaders[] = [];
  const reports: URLSearchParams[] = [];
  const api = () => request(t.url);

  async function website(path: string, body: Record<string, unknown> = {}): Promise<number> {
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'options', url: `${pages.url}${path}`, ...body });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  async function job(websiteId: number, body: Record<string, unknown>) {
    const take = await api().post(`/websites/${websiteId}/screenshot`).set(account.auth).send(body);
    expect(take.status).toBe(200);
    return waitForJob(t.url, account.auth, take.body.job_id);
  }

  async function capture(websiteId: number, body: Record<string, unknown>) {
    const done = await job(websiteId, body);
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    const shot = (await api().get(`/screenshots/${done.screenshot_id}`).set(account.auth).expect(200)).body.data;
    const file = await api().get(`/screenshots/${shot.id}/download`).set(account.auth).buffer(true).parse(binary).expect(200);
    return { shot, image: await decodeImage(file.body as Buffer) };
  }

  async function expect422(websiteId: number, body: Record<string, unknown>, fields: string[]): Promise<void> {
    const res = await api().post(`/websites/${websiteId}/screenshot`).set(account.auth).send(body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, error: 'The given data was invalid', code: 'validation_failed' });
    expect(detailFields(res.body)).toEqual([...fields].sort());
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { CAPTURE_TIMEOUT_MS: String(TIMEOUT_MS) } });
    pages = await new PageServer({
      '/box': BOX_PAGE,
      '/consent': CONSENT_PAGE,
      '/rejected': (_req, res) => {
        res.writeHead(204).end();
      },
      '/report': (req, res) => {
        reports.push(new URL(req.url ?? '/', 'http://x').searchParams);
        res.writeHead(204).end();
      },
      '/pixel.png': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png' }).end(PNG_1PX);
      },
      '/page': (req, res) => {
        headers.push(req.headers);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(REPORT_PAGE);
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
    headers.length = 0;
    reports.length = 0;
    pages.requests.length = 0;
  });

  it('selector: exactly the element’s box, scrolled into view (300×200, ×2 at device_scale_factor 2), full_page ignored', async () => {
    const id = await website('/box');
    const one = await capture(id, { selector: '#box', full_page: true });
    expect([one.shot.width, one.shot.height]).toEqual([300, 200]);
    expectColour(one.image.at(0, 0), RED);
    expectColour(one.image.at(299, 199), RED);
    const two = await capture(id, { selector: '#box', device_scale_factor: 2 });
    expect([two.shot.width, two.shot.height]).toEqual([600, 400]);
    expectColour(two.image.at(599, 399), RED);
  });

  it('selector that never matches: the job fails naming the selector, within the capture timeout', async () => {
    const id = await website('/box');
    const started = Date.now();
    const failed = await job(id, { selector: '#nowhere' });
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('#nowhere');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 5_000);
  });

  it('clip: that rectangle of the page in CSS px', async () => {
    const id = await website('/box');
    const { shot, image } = await capture(id, { clip: { x: 100, y: 1450, width: 100, height: 100 } });
    expect([shot.width, shot.height]).toEqual([100, 100]);
    expectColour(image.at(5, 5), [0, 0, 255]); // above and left of the box
    expectColour(image.at(95, 95), RED); // inside it (x ≥ 123, y ≥ 1500)
  });

  it('device "iPhone 15 Pro": 1179 px wide (393 × 3), its user agent and touch reach the page', async () => {
    const id = await website('/page');
    const { shot } = await capture(id, { device: 'iPhone 15 Pro' });
    expect(shot.width).toBe(1179);
    expect(headers[0]['user-agent']).toMatch(/iPhone; CPU iPhone OS/);
    expect(reports[0].get('ua')).toMatch(/iPhone/);
    expect(Number(reports[0].get('touch'))).toBeGreaterThan(0);
  });

  it('user_agent, locale and timezone: the server receives the User-Agent and Accept-Language, the page’s script sees the language and zone', async () => {
    const id = await website('/page');
    await capture(id, { user_agent: 'AcmeBot/2.0 (+https://example.com/bot)', locale: 'de-DE', timezone: 'Asia/Tokyo' });
    expect(headers[0]['user-agent']).toBe('AcmeBot/2.0 (+https://example.com/bot)');
    expect(headers[0]['accept-language']).toBe('de-DE');
    expect(reports).toHaveLength(1);
    expect(reports[0].get('language')).toBe('de-DE');
    expect(reports[0].get('zone')).toBe('Asia/Tokyo');
    expect(reports[0].get('offset')).toBe('-540');
    expect(reports[0].get('ua')).toBe('AcmeBot/2.0 (+https://example.com/bot)');
  });

  it('block_resources ["image"]: the image is never requested; the page and its fetch still are', async () => {
    const id = await website('/page');
    await capture(id, { block_resources: ['image'] });
    expect(pages.requests.filter((url) => url === '/pixel.png')).toHaveLength(0);
    expect(reports).toHaveLength(1);
    const before = pages.requests.filter((url) => url === '/pixel.png').length;
    await capture(id, {});
    expect(pages.requests.filter((url) => url === '/pixel.png').length).toBe(before + 1);
  });

  it('block_cookie_banners: a OneTrust banner is answered “reject” and gone from the capture; without it, it shows', async () => {
    const id = await website('/consent');
    const plain = await capture(id, {});
    expectColour(plain.image.at(640, 750), RED);
    expect(pages.requests).not.toContain('/rejected');

    const blocked = await capture(id, { block_cookie_banners: true });
    expectColour(blocked.image.at(640, 750), [255, 255, 255]);
    expect(pages.requests).toContain('/rejected'); // rejected, not merely hidden
  });

  it('block_ads and block_trackers: saved on the website, shown by GET, used by its captures (blocking itself: ad-blocking.int-spec)', async () => {
    const id = await website('/page', { capture_options: { block_ads: true, block_trackers: true } });
    const got = await api().get(`/websites/${id}`).set(account.auth).expect(200);
    expect(got.body.data.capture_options).toMatchObject({ block_ads: true, block_trackers: true });
    const before = pages.requests.filter((url) => url === '/pixel.png').length;
    const { shot } = await capture(id, { block_trackers: false });
    expect(shot.width).toBe(1280);
    // The page's own image is first party and never matched by the lists.
    expect(pages.requests.filter((url) => url === '/pixel.png').length).toBe(before + 1);
  });

  it('css: a style sheet added before the capture', async () => {
    const id = await website('/box');
    const { image } = await capture(id, { css: 'body { background: rgb(0,200,0) !important }' });
    expectColour(image.at(640, 400), GREEN);
  });

  it('saved on the website as defaults (device, locale), used by a capture without a body', async () => {
    const id = await website('/page', { capture_options: { device: 'iPhone 15 Pro', locale: 'fr-FR' } });
    const got = await api().get(`/websites/${id}`).set(account.auth).expect(200);
    expect(got.body.data.capture_options).toMatchObject({ device: 'iPhone 15 Pro', locale: 'fr-FR' });
    const { shot } = await capture(id, {});
    expect(shot.width).toBe(1179);
    expect(headers[0]['accept-language']).toBe('fr-FR');
  });

  it('a scenario runs with its website’s saved options: device, user agent, locale, time zone', async () => {
    const id = await website('/page', { capture_options: { device: 'iPhone 15 Pro', locale: 'ja-JP', timezone: 'Asia/Tokyo' } });
    const scenario = await api()
      .post('/scenarios')
      .set(account.auth)
      .send({ name: 'phone run', website_id: id, steps: [{ type: 'wait', duration: 10 }] });
    expect(scenario.status).toBe(201);
    const run = await api().post(`/scenarios/${scenario.body.data.id}/run`).set(account.auth).expect(200);
    const execution = await api().get(`/executions/${run.body.execution_id}?wait=30`).set(account.auth).expect(200);
    expect(execution.body.data).toMatchObject({ status: 'succeeded' });
    const shot = await api().get(`/screenshots/${execution.body.data.screenshot_ids[0]}`).set(account.auth).expect(200);
    expect(shot.body.data.width).toBe(1179);
    expect(headers[0]['user-agent']).toMatch(/iPhone/);
    expect(headers[0]['accept-language']).toBe('ja-JP');
    expect(reports[0].get('zone')).toBe('Asia/Tokyo');
  });

  it('each bad field is a 422 naming it, and no job is queued', async () => {
    const id = await website('/box');
    await expect422(id, { device: 'Nokia 3310' }, ['device']);
    await expect422(id, { device: 'iPhone 15 Pro', viewport_width: 800 }, ['viewport_width']);
    await expect422(id, { clip: { x: 1200, y: 0, width: 200, height: 100 } }, ['clip']);
    await expect422(id, { clip: { x: 0, y: 0, width: 0, height: 100 } }, ['clip.width']);
    await expect422(id, { clip: [1, 2, 3, 4] }, ['clip']);
    await expect422(id, { selector: '#box', clip: { x: 0, y: 0, width: 10, height: 10 } }, ['clip']);
    await expect422(id, { selector: 'div[' }, ['selector']);
    await expect422(id, { format: 'pdf', selector: '#box' }, ['selector']);
    await expect422(id, { locale: 'not a locale!' }, ['locale']);
    await expect422(id, { timezone: 'Mars/Olympus' }, ['timezone']);
    await expect422(id, { block_resources: ['document'] }, ['block_resources']);
    await expect422(id, { css: 'a{}'.repeat(7_000) }, ['css']);
    await expect422(id, { block_ads: 'yes' }, ['block_ads']);
    await expect422(id, { block_trackers: 1 }, ['block_trackers']);
    const jobs = await api().get(`/jobs?website_id=${id}`).set(account.auth).expect(200);
    expect(jobs.body.meta.total).toBe(0);
  });

  it('GET /devices lists the presets with what they set', async () => {
    const res = await api().get('/devices').set(account.auth).expect(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toContainEqual({
      name: 'iPhone 15 Pro',
      width: 393,
      height: 659,
      device_scale_factor: 3,
      mobile: true,
      touch: true,
      user_agent: expect.stringContaining('iPhone'),
    });
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
    await api().get('/devices').expect(401);
  });
});
