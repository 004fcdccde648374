import request from 'supertest';
import { ScheduleTicker } from '../../src/modules/schedules/application/schedule-ticker';
import { binary } from '../support/assertions';
import { decodeImage, Rgb } from '../support/images';
import { waitForComparison } from '../support/changes';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Change history (API.md "Change history", README "Change history"): every image capture of a website is compared
 * with the previous capture taken with comparable settings, off the capture's path. Real Chromium renders pages
 * served on 127.0.0.1; the comparison's outcome is read back through the API. Runs on both stacks (CI runs the
 * suite on SQLite and on PostgreSQL + Redis).
 *
 * Rate limit: Business accounts (60 requests per calendar minute); every test pins the clock to a fresh minute.
 * Comparisons are awaited by reading the screenshots table, which costs no request.
 */

const NOT_FOUND = { success: false, error: expect.any(String), code: 'not_found' };

/** A white 1280×800 page with a 200×100 box at (100, 100) in `colour`, and the rest of the page still. */
function boxPage(colour: string, extra = ''): string {
  return (
    '<!doctype html><html><head><style>html,body{margin:0;background:#fff;font:16px sans-serif}' +
    '#box{position:absolute;left:100px;top:100px;width:200px;height:100px}' +
    `#clock{position:absolute;left:600px;top:300px;font-size:64px}</style></head><body><div id="box" style="background:${colour}"></div>${extra}</body></html>`
  );
}

interface ShotBody {
  id: number;
  taken_at: string;
  width: number;
  height: number;
  change: null | {
    previous_id: number;
    status?: 'pending';
    changed_ratio?: number;
    changed?: boolean;
    compared_at?: string;
    text_changed?: boolean;
    text_diff?: { added: number; removed: number } | null;
  };
}

describe('Change history (API.md: Change history)', () => {
  let t: TestApp;
  let other: TestAccount;
  let site: PageServer;
  const hits: Record<string, number> = {};
  /** What /flip shows on its n-th request (1-based): set per test. */
  let flipColour: (n: number) => string = () => 'rgb(0,0,255)';

  const count = (path: string) => (hits[path] = (hits[path] ?? 0) + 1);

  beforeAll(async () => {
    site = await new PageServer({
      '/still': boxPage('rgb(0,0,255)'),
      '/flip': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(boxPage(flipColour(count('/flip')))),
      '/clock': (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(boxPage('rgb(0,0,255)', `<div id="clock">${count('/clock')}:${Date.now()}</div>`)),
      '/grow': (_req, res) => {
        const height = count('/grow') === 1 ? 1000 : 1200;
        res.writeHead(200, { 'content-type': 'text/html' }).end(boxPage('rgb(0,0,255)', `<div style="height:${height}px"></div>`));
      },
    }).start();
    t = await startTestApp({ env: { SCHEDULE_TICK_MS: '3600000' } });
    other = await t.createAccount({ plan: 'business' });
  });

  afterAll(async () => {
    await t?.close();
    await site?.stop();
  });

  let minute = Date.parse('2026-12-01T08:00:00Z');
  const freshMinute = () => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  };

  async function website(account: TestAccount, path: string, extra: Record<string, unknown> = {}): Promise<number> {
    const res = await request(t.url)
      .post('/websites')
      .set(account.auth)
      .send({ name: `Site ${path}`, url: `${site.url}${path}`, ...extra });
    expect(res.status).toBe(201);
    return res.body.data.id as number;
  }

  async function capture(account: TestAccount, websiteId: number, body: Record<string, unknown> = {}): Promise<number> {
    const res = await request(t.url).post(`/websites/${websiteId}/screenshot`).set(account.auth).send(body);
    expect(res.status).toBe(200);
    const job = await waitForJob(t.url, account.auth, res.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded' });
    return job.screenshot_id as number;
  }

  const compared = (id: number) => waitForComparison(t.app, id);

  async function shot(account: TestAccount, id: number): Promise<ShotBody> {
    const res = await request(t.url).get(`/screenshots/${id}`).set(account.auth);
    expect(res.status).toBe(200);
    return res.body.data as ShotBody;
  }

  it('the same page captured twice: the first has change null, the second changed_ratio 0 and changed false; the diff is the newer image’s size', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    const id = await website(account, '/still');
    const first = await capture(account, id);
    const second = await capture(account, id);
    await compared(second);
    expect((await shot(account, first)).change).toBeNull();
    const second_ = await shot(account, second);
    expect(second_.change).toEqual({
      previous_id: first,
      changed_ratio: 0,
      changed: false,
      compared_at: expect.stringMatching(/Z$/),
      text_changed: false,
      text_diff: { added: 0, removed: 0 },
    });
    // Chromium encoded the same pixels to the same bytes: known equal in the inserting transaction, never pending.
    expect(second_.change?.compared_at).toBe(second_.taken_at);

    const diff = await request(t.url).get(`/screenshots/${second}/diff`).set(account.auth).buffer(true).parse(binary);
    expect({ status: diff.status, type: diff.headers['content-type'] }).toEqual({ status: 200, type: 'image/png' });
    const image = await decodeImage(diff.body as Buffer);
    expect({ width: image.width, height: image.height }).toEqual({ width: 1280, height: 800 });

    const none = await request(t.url).get(`/screenshots/${first}/diff`).set(account.auth);
    expect({ status: none.status, body: none.body }).toEqual({ status: 404, body: NOT_FOUND });
    expect(none.body.error).toMatch(/no previous capture/);
  });

  it('a 200×100 box that changes colour on a 1280×800 page: changed true, ratio within 10% of 20000/1024000; the diff highlights the box and dims the rest', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    hits['/flip'] = 0;
    flipColour = (n) => (n === 1 ? 'rgb(0,0,255)' : 'rgb(0,160,0)');
    const id = await website(account, '/flip');
    const first = await capture(account, id);
    const second = await capture(account, id);
    await compared(second);
    const change = (await shot(account, second)).change!;
    expect(change).toMatchObject({ previous_id: first, changed: true });
    const expected = 20000 / 1024000;
    expect(Math.abs(change.changed_ratio! - expected) / expected).toBeLessThan(0.1);

    const diff = await request(t.url).get(`/screenshots/${second}/diff`).set(account.auth).buffer(true).parse(binary);
    const image = await decodeImage(diff.body as Buffer);
    expect({ width: image.width, height: image.height }).toEqual({ width: 1280, height: 800 });
    const isHighlight = ([r, g, b]: Rgb) => r > 180 && g < 80 && b < 120;
    expect({ inBox: isHighlight(image.at(200, 150)), corner: isHighlight(image.at(105, 105)) }).toEqual({ inBox: true, corner: true });
    // Outside the box the page was white: dimmed white stays light, never highlighted.
    for (const [x, y] of [
      [50, 50],
      [700, 500],
      [350, 150],
    ]) {
      const pixel = image.at(x, y);
      expect({ x, y, highlighted: isHighlight(pixel), light: pixel.every((c) => c > 200) }).toEqual({ x, y, highlighted: false, light: true });
    }

    // GET /websites/{id}/changes: only the changed capture, in the list envelope.
    const changes = await request(t.url).get(`/websites/${id}/changes`).set(account.auth);
    expect(changes.status).toBe(200);
    expect(changes.body.data.map((s: ShotBody) => s.id)).toEqual([second]);
    expect(changes.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 15, total: 1 });
  });

  it('a changing clock inside an ignored selector is not a change; the same clock without the selector is', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    const ignoring = await website(account, '/clock', { change_ignore_selectors: ['#clock'] });
    const watching = await website(account, '/clock');
    const results: Record<string, unknown> = {};
    for (const [name, id] of [
      ['ignoring', ignoring],
      ['watching', watching],
    ] as const) {
      await capture(account, id);
      const second = await capture(account, id);
      await compared(second);
      results[name] = (await shot(account, second)).change?.changed;
    }
    expect(results).toEqual({ ignoring: false, watching: true });
    const saved = await request(t.url).get(`/websites/${ignoring}`).set(account.auth);
    expect(saved.body.data).toMatchObject({ change_threshold: 0.001, change_ignore_selectors: ['#clock'] });
  });

  it('full pages of different heights: the overlap is compared and the extra height counts as changed', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    hits['/grow'] = 0;
    const id = await website(account, '/grow', { full_page: true });
    const first = await capture(account, id);
    const second = await capture(account, id);
    await compared(second);
    const [a, b] = [await shot(account, first), await shot(account, second)];
    expect(b.height).toBeGreaterThan(a.height);
    expect(b.change).toMatchObject({ previous_id: first, changed: true, changed_ratio: Math.round(((b.height - a.height) / b.height) * 1e6) / 1e6 });
  });

  it('settings that are not comparable start a new history: another viewport is compared with nothing; a jpeg is compared with the png before it', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    const id = await website(account, '/still');
    const png = await capture(account, id);
    const narrow = await capture(account, id, { viewport_width: 800 });
    const jpeg = await capture(account, id, { format: 'jpeg', quality: 90 });
    await compared(jpeg);
    expect((await shot(account, narrow)).change).toBeNull();
    const change = (await shot(account, jpeg)).change!;
    expect(change).toMatchObject({ previous_id: png, changed: false });
  });

  it('deleting the previous screenshot leaves the later comparison readable: previous_id keeps the deleted id and a changed capture’s diff is still served', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    hits['/flip'] = 0;
    flipColour = (n) => (n % 2 === 1 ? 'rgb(0,0,255)' : 'rgb(200,120,0)');
    const id = await website(account, '/flip');
    const first = await capture(account, id);
    const second = await capture(account, id);
    await compared(second);
    expect((await request(t.url).delete(`/screenshots/${first}`).set(account.auth)).status).toBe(200);
    const after = await shot(account, second);
    expect(after.change).toMatchObject({ previous_id: first, changed: true });
    const diff = await request(t.url).get(`/screenshots/${second}/diff`).set(account.auth).buffer(true).parse(binary);
    expect({ status: diff.status, type: diff.headers['content-type'] }).toEqual({ status: 200, type: 'image/png' });
    // The next capture is compared with the newest capture that still exists.
    const third = await capture(account, id);
    await compared(third);
    expect((await shot(account, third)).change).toMatchObject({ previous_id: second, changed: true });
  });

  it('another account’s screenshot diff and website changes are 404; bad change settings are 422 naming the field', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    const id = await website(account, '/still');
    const first = await capture(account, id);
    for (const path of [`/screenshots/${first}/diff`, `/websites/${id}/changes`, '/screenshots/999999999/diff', '/websites/999999999/changes']) {
      const res = await request(t.url).get(path).set(other.auth);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: NOT_FOUND });
    }
    for (const [body, field] of [
      [{ change_threshold: 1.5 }, 'change_threshold'],
      [{ change_threshold: -0.1 }, 'change_threshold'],
      [{ change_threshold: '0.1' }, 'change_threshold'],
      [{ change_ignore_selectors: ['#ok', 'div[[['] }, 'change_ignore_selectors'],
      [{ change_ignore_selectors: Array.from({ length: 51 }, (_, i) => `#a${i}`) }, 'change_ignore_selectors'],
      [{ change_ignore_selectors: '#clock' }, 'change_ignore_selectors'],
    ] as const) {
      const res = await request(t.url).put(`/websites/${id}`).set(account.auth).send(body);
      expect({ status: res.status, code: res.body.code, fields: res.body.details?.map((d: { field: string }) => d.field) }).toEqual({
        status: 422,
        code: 'validation_failed',
        fields: [field],
      });
    }
  });

  it('a schedule firing 10 times on a page that changes on every 3rd occurrence flags exactly those captures', async () => {
    freshMinute();
    const account = await t.createAccount({ plan: 'business' });
    hits['/flip'] = 0;
    // Occurrences 3, 6 and 9 show a new colour (kept until the next change), so exactly they differ from the one before.
    flipColour = (n) => ['rgb(0,0,255)', 'rgb(0,160,0)', 'rgb(200,0,200)', 'rgb(240,200,0)'][Math.floor(n / 3)];
    const id = await website(account, '/flip');
    const start = Date.parse('2026-12-10T00:30:00Z');
    t.clock.set(new Date(start));
    const created = await request(t.url)
      .post('/schedules')
      .set(account.auth)
      .send({ name: 'Hourly', website_id: id, frequency: 'hourly', time: '00:00', timezone: 'UTC' });
    expect(created.status).toBe(201);
    const flagged: number[] = [];
    for (let occurrence = 1; occurrence <= 10; occurrence++) {
      t.clock.set(new Date(start + occurrence * 3_600_000));
      expect(await t.app.get(ScheduleTicker).tick()).toBe(1);
      const schedule = await request(t.url).get(`/schedules/${created.body.data.id}`).set(account.auth);
      const job = await waitForJob(t.url, account.auth, schedule.body.data.last_job_id);
      expect(job.status).toBe('succeeded');
      await compared(job.screenshot_id as number);
      // Each occurrence is an hour on: a new rate-limit window every time.
      if ((await shot(account, job.screenshot_id as number)).change?.changed) flagged.push(occurrence);
    }
    expect(flagged).toEqual([3, 6, 9]);
  });
});
