import AdmZip from 'adm-zip';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { ScheduleTicker } from '../../src/modules/schedules/application/schedule-ticker';
import { DashboardClient } from '../support/dashboard-session';
import request from 'supertest';
import { binary } from '../support/assertions';
import { BLUE, decodeImage, RED, Rgb } from '../support/images';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Output formats (API.md, Capture options: `format`, `quality`, `pdf_*`, `omit_background`; README: Capture
 * options) with real Chromium on pages served on 127.0.0.1: each format's bytes, the Screenshot's `format` and
 * `mime_type`, the download's Content-Type and file name, ZIP entry names, thumbnails, and a website's saved
 * defaults overridden field by field by a request.
 *
 * Rate limit: accounts are on Business (60 requests per calendar minute); the clock is pinned and every test
 * starts in a fresh minute.
 */

/** Left half red, right half blue, with noise-like stripes so JPEG quality changes the size measurably. */
const PAGE =
  '<!doctype html><html><head><style>html,body{margin:0;height:100%;background:rgb(0,0,255)}' +
  '.s{height:4px}.s:nth-child(odd){background:rgb(250,250,120)}</style></head><body>' +
  '<div style="position:absolute;left:0;top:0;width:50%;height:100%;background:rgb(255,0,0)"></div>' +
  '<div style="position:absolute;right:0;top:0;width:25%">' +
  Array.from({ length: 100 }, (_, i) => `<div class="s" style="margin-left:${(i * 37) % 200}px"></div>`).join('') +
  '</div><h1 style="position:relative;font:40px serif">Formats</h1></body></html>';

/** No background anywhere: with omit_background the capture is transparent outside the box. */
const TRANSPARENT_PAGE =
  '<!doctype html><html><head><style>html,body{margin:0;background:transparent}</style></head>' +
  '<body><div style="width:200px;height:100px;background:rgb(255,0,0)"></div></body></html>';

interface Shot {
  id: number;
  file_path: string;
  format: string;
  mime_type: string;
  file_size: number;
  width: number;
  height: number;
}

function expectColour(actual: Rgb, expected: Rgb): void {
  expect({ actual, close: actual.every((v, c) => Math.abs(v - expected[c]) <= 24) }).toEqual({ actual, close: true });
}

describe('Capture formats: png, jpeg, webp, pdf (real Chromium)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let siteId: number;
  let minute = Date.parse('2034-05-01T08:00:00Z');
  const api = () => request(t.url);

  async function capture(websiteId: number, body: Record<string, unknown>): Promise<Shot> {
    const take = await api().post(`/websites/${websiteId}/screenshot`).set(account.auth).send(body);
    expect(take.status).toBe(200);
    const job = await waitForJob(t.url, account.auth, take.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded', error: null });
    return (await api().get(`/screenshots/${job.screenshot_id}`).set(account.auth).expect(200)).body.data;
  }

  const download = (id: number) => api().get(`/screenshots/${id}/download`).set(account.auth).buffer(true).parse(binary);
  const thumbnail = (id: number) => api().get(`/screenshots/${id}/thumbnail`).set(account.auth).buffer(true).parse(binary);

  /** The download: 200 with the format's Content-Type and a file name with its extension. */
  async function expectDownload(shot: Shot, mimeType: string, extension: string): Promise<Buffer> {
    const res = await download(shot.id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(mimeType);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="formats-${shot.id}.${extension}"`);
    expect(Number(res.headers['content-length'])).toBe(shot.file_size);
    expect(shot.file_path).toBe(`screenshots/${account.id}/${siteId}/${shot.id}.${extension}`);
    expect(shot.mime_type).toBe(mimeType);
    return res.body as Buffer;
  }

  async function expectThumbnail(shot: Shot): Promise<Awaited<ReturnType<typeof decodeImage>>> {
    const res = await thumbnail(shot.id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    const thumb = await decodeImage(res.body as Buffer);
    expect(thumb.format).toBe('webp');
    return thumb;
  }

  beforeAll(async () => {
    t = await startTestApp();
    pages = await new PageServer({ '/page': PAGE, '/transparent': TRANSPARENT_PAGE }).start();
    account = await t.createAccount({ plan: 'business' });
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'formats', url: `${pages.url}/page` });
    expect(res.status).toBe(201);
    siteId = res.body.data.id;
  });
  afterAll(async () => {
    await pages?.stop();
    await t?.close();
  });
  beforeEach(() => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  });

  it('png stays the default: format "png", image/png, .png', async () => {
    const shot = await capture(siteId, {});
    expect(shot).toMatchObject({ format: 'png', width: 1280, height: 800 });
    const bytes = await expectDownload(shot, 'image/png', 'png');
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  });

  it('jpeg: FF D8 FF, image/jpeg, .jpg, its real pixels and a thumbnail; quality 10 is smaller than quality 90', async () => {
    const low = await capture(siteId, { format: 'jpeg', quality: 10 });
    const high = await capture(siteId, { format: 'jpeg', quality: 90 });
    for (const shot of [low, high]) expect(shot).toMatchObject({ format: 'jpeg', width: 1280, height: 800 });
    const lowBytes = await expectDownload(low, 'image/jpeg', 'jpg');
    const highBytes = await expectDownload(high, 'image/jpeg', 'jpg');
    expect(lowBytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expect(highBytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expect(lowBytes.length).toBeLessThan(highBytes.length * 0.7);
    const image = await decodeImage(highBytes);
    expect([image.format, image.width, image.height]).toEqual(['jpeg', 1280, 800]);
    expectColour(image.at(100, 400), RED);
    expectColour(image.at(800, 700), BLUE);
    const thumb = await expectThumbnail(high);
    expect([thumb.width, thumb.height]).toEqual([400, 250]);
    expectColour(thumb.at(50, 200), RED);
  });

  it('webp: RIFF…WEBP, image/webp, .webp, with a thumbnail', async () => {
    const shot = await capture(siteId, { format: 'webp', quality: 80, device_scale_factor: 2 });
    expect(shot).toMatchObject({ format: 'webp', width: 2560, height: 1600 });
    const bytes = await expectDownload(shot, 'image/webp', 'webp');
    expect(bytes.toString('latin1', 0, 4)).toBe('RIFF');
    expect(bytes.toString('latin1', 8, 12)).toBe('WEBP');
    const image = await decodeImage(bytes);
    expectColour(image.at(200, 800), RED);
    const thumb = await expectThumbnail(shot);
    expect([thumb.width, thumb.height]).toEqual([400, 250]);
  });

  it('pdf: %PDF-, application/pdf, .pdf, the paper size in CSS px, a thumbnail of the first viewport', async () => {
    const a4 = await capture(siteId, { format: 'pdf' });
    expect(a4).toMatchObject({ format: 'pdf', width: 794, height: 1123 });
    const bytes = await expectDownload(a4, 'application/pdf', 'pdf');
    expect(bytes.toString('latin1', 0, 5)).toBe('%PDF-');
    expect(bytes.toString('latin1')).toContain('/MediaBox [0 0 595'); // A4 in PostScript points
    const thumb = await expectThumbnail(a4);
    expect([thumb.width, thumb.height]).toEqual([400, 250]);
    expectColour(thumb.at(50, 200), RED);
    expectColour(thumb.at(300, 240), BLUE);

    const letter = await capture(siteId, { format: 'pdf', pdf_paper: 'letter', pdf_landscape: true, pdf_print_background: false });
    expect(letter).toMatchObject({ format: 'pdf', width: 1056, height: 816 });
    const letterBytes = await expectDownload(letter, 'application/pdf', 'pdf');
    expect(letterBytes.toString('latin1')).toContain('/MediaBox [0 0 792 612]');
  });

  it('omit_background: transparent where the page paints nothing (png and webp)', async () => {
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'transparent', url: `${pages.url}/transparent` });
    const id = res.body.data.id;
    for (const format of ['png', 'webp'] as const) {
      const shot = await capture(id, { format, omit_background: true });
      const file = (await download(shot.id)).body as Buffer;
      const { data, info } = await sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const alpha = (x: number, y: number) => data[(y * info.width + x) * info.channels + 3];
      expect({ format, inBox: alpha(100, 50), outside: alpha(600, 400) }).toEqual({ format, inBox: 255, outside: 0 });
    }
    const opaque = await capture(id, { format: 'png' });
    const { data, info } = await sharp((await download(opaque.id)).body as Buffer)
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(data[(400 * info.width + 600) * info.channels + 3]).toBe(255);
  });

  it('a website’s saved format is its default; a request overrides it field by field; GET shows what applies', async () => {
    const created = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'formats', url: `${pages.url}/page`, capture_options: { format: 'jpeg', quality: 30 } });
    expect(created.status).toBe(201);
    expect(created.body.data.capture_options).toEqual({ wait_until: 'stable', format: 'jpeg', quality: 30 });
    const id = created.body.data.id;
    const byDefault = await capture(id, {});
    expect(byDefault.format).toBe('jpeg');
    const better = await capture(id, { quality: 95 });
    expect(better.format).toBe('jpeg');
    expect(better.file_size).toBeGreaterThan(byDefault.file_size);
    // The website's quality does not apply to the png this request asks for: no conflict.
    const png = await capture(id, { format: 'png' });
    expect(png.format).toBe('png');
    // A request's pdf_paper without pdf (the website's format is jpeg): 422 naming it, no job.
    const bad = await api().post(`/websites/${id}/screenshot`).set(account.auth).send({ pdf_paper: 'a3' });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      success: false,
      error: 'The given data was invalid',
      code: 'validation_failed',
      details: [{ field: 'pdf_paper', message: 'pdf_paper applies only to pdf, not jpeg' }],
    });

    const pdf = await api()
      .put(`/websites/${id}`)
      .set(account.auth)
      .send({ capture_options: { format: 'pdf', pdf_paper: 'a3' } });
    expect(pdf.status).toBe(200);
    expect(pdf.body.data.capture_options).toEqual({ wait_until: 'stable', format: 'pdf', pdf_paper: 'a3', pdf_landscape: false, pdf_print_background: true });
    // What GET shows can be sent back as it is.
    const echoed = await api().put(`/websites/${id}`).set(account.auth).send({ capture_options: pdf.body.data.capture_options });
    expect(echoed.status).toBe(200);
    expect((await capture(id, {})).format).toBe('pdf');
  });

  it('a website’s saved options are used by its schedule’s captures and the dashboard’s "Take screenshot" button', async () => {
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'formats', url: `${pages.url}/page`, capture_options: { format: 'webp', device: 'iPhone 15 Pro' } });
    const id = res.body.data.id;
    const db = t.app.get(DataSource);
    const lastJob = async () => (await db.query(`SELECT id FROM jobs WHERE website_id = ${id} ORDER BY created_at DESC LIMIT 1`))[0].id as string;
    const shotOf = async (jobId: string) => {
      const job = await waitForJob(t.url, account.auth, jobId);
      expect(job.status).toBe('succeeded');
      return (await api().get(`/screenshots/${job.screenshot_id}`).set(account.auth).expect(200)).body.data as Shot;
    };

    // A schedule's occurrence, fired by one pass of the ticker at its time.
    const now = new Date(minute);
    const at = new Date(now.getTime() + 60_000);
    const hhmm = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
    await api().post('/schedules').set(account.auth).send({ name: 'daily', website_id: id, frequency: 'daily', time: hhmm, timezone: 'UTC' }).expect(201);
    t.clock.set(new Date(at.getTime() + 1_000));
    expect(await t.app.get(ScheduleTicker).tick()).toBe(1);
    const scheduled = await shotOf(await lastJob());
    expect(scheduled).toMatchObject({ format: 'webp', width: 1179 });

    // The dashboard's button posts no options: the website's apply.
    await t.app.get(AccountsService).setPassword(account.email, 'a long dashboard password');
    const dashboard = await new DashboardClient(t.url).signInOk(account.email, 'a long dashboard password');
    expect((await dashboard.submit(`/dashboard/websites/${id}/screenshot`)).status).toBe(303);
    const clicked = await shotOf(await lastJob());
    expect(clicked).toMatchObject({ format: 'webp', width: 1179 });
  });

  it('bulk download: each entry named with its format’s extension, byte-identical to the downloads', async () => {
    const shots = [await capture(siteId, { format: 'jpeg' }), await capture(siteId, { format: 'webp' }), await capture(siteId, { format: 'pdf' })];
    const res = await api()
      .post('/screenshots/download-bulk')
      .set(account.auth)
      .send({ screenshot_ids: shots.map((s) => s.id) })
      .buffer(true)
      .parse(binary);
    expect(res.status).toBe(200);
    const zip = new AdmZip(res.body as Buffer);
    expect(
      zip
        .getEntries()
        .map((e) => e.entryName)
        .sort(),
    ).toEqual([`${shots[0].id}-formats.jpg`, `${shots[1].id}-formats.webp`, `${shots[2].id}-formats.pdf`].sort());
    for (const [shot, ext] of [
      [shots[0], 'jpg'],
      [shots[2], 'pdf'],
    ] as const) {
      const fromZip = zip.getEntry(`${shot.id}-formats.${ext}`)!.getData();
      expect(fromZip.equals((await download(shot.id)).body as Buffer)).toBe(true);
    }
  });
});
