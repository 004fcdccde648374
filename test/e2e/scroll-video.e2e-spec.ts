import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { findFfmpeg } from '../../src/adapters/capture/scroll-video';
import { binary } from '../support/assertions';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Scrolling video (issue 47 item 5; docs/outputs.md, "Scrolling video"): format webm and gif record a smooth scroll
 * through a real page in real Chromium, encoded by Debian's ffmpeg. The page is six full-width bands of known
 * colours, so the video's first frame must show the first band and its last frame the last band: read back from the
 * files (ffmpeg decodes the WebM, sharp the GIF's frames), not trusted.
 */
const BANDS = ['rgb(220,40,40)', 'rgb(240,160,20)', 'rgb(230,220,40)', 'rgb(40,170,60)', 'rgb(40,90,220)', 'rgb(140,50,200)'];
const BAND_PAGE = `<!doctype html><html><head><style>body{margin:0}div{height:600px}</style></head><body>${BANDS.map(
  (c) => `<div style="background:${c}"></div>`,
).join('')}</body></html>`;

const rgbOf = (css: string) => css.match(/\d+/g)!.map(Number);
function expectNear(actual: number[], css: string, tolerance = 24): void {
  const want = rgbOf(css);
  const off = Math.max(...want.map((v, i) => Math.abs(v - actual[i])));
  if (off > tolerance) throw new Error(`pixel ${actual.join(',')} is not near ${css} (off by ${off})`);
}
/** The colour at the centre of an image. */
async function centre(image: Buffer | ReturnType<typeof sharp>): Promise<number[]> {
  const img = Buffer.isBuffer(image) ? sharp(image) : image;
  const { data, info } = await img.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * info.channels;
  return [data[at], data[at + 1], data[at + 2]];
}

describe('Scrolling video: format webm and gif (real Chromium, ffmpeg)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let siteId: number;
  let minute = Date.parse('2034-11-01T08:00:00Z');
  const work = mkdtempSync(join(tmpdir(), 'scroll-video-spec-'));
  const ffmpeg = findFfmpeg(null);
  const api = () => request(t.url);

  async function capture(body: Record<string, unknown>) {
    const take = await api().post(`/websites/${siteId}/screenshot`).set(account.auth).send(body);
    expect(take.status).toBe(200);
    const job = await waitForJob(t.url, account.auth, take.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded', error: null });
    return (await api().get(`/screenshots/${job.screenshot_id}`).set(account.auth).expect(200)).body.data;
  }
  const download = (id: number) => api().get(`/screenshots/${id}/download`).set(account.auth).buffer(true).parse(binary);

  beforeAll(async () => {
    t = await startTestApp();
    pages = await new PageServer({ '/bands': BAND_PAGE }).start();
    account = await t.createAccount({ plan: 'business' });
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'bands', url: `${pages.url}/bands`, viewport_width: 800, viewport_height: 600 });
    expect(res.status).toBe(201);
    siteId = res.body.data.id;
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await pages?.stop();
    await t?.close();
  });
  beforeEach(() => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  });

  it('webm: a video/webm file whose first frame shows the top of the page and whose last shows its bottom', async () => {
    const shot = await capture({ format: 'webm', scroll_duration_ms: 1500 });
    expect(shot).toMatchObject({ format: 'webm', mime_type: 'video/webm', width: 800, height: 600 });
    expect(shot.file_path).toBe(`screenshots/${account.id}/${siteId}/${shot.id}.webm`);
    const file = await download(shot.id).expect(200);
    expect(file.headers['content-type']).toBe('video/webm');
    expect(file.headers['content-disposition']).toBe(`attachment; filename="bands-${shot.id}.webm"`);
    const video = join(work, 'scroll.webm');
    writeFileSync(video, file.body as Buffer);
    // Every frame as a PNG: the first shows the first band, the last the last band, and there are enough to be smooth.
    execFileSync(ffmpeg, ['-v', 'error', '-i', video, '-vsync', '0', join(work, 'webm-%04d.png')]);
    const frames = execFileSync('ls', [work])
      .toString()
      .split('\n')
      .filter((f) => /^webm-\d+\.png$/.test(f))
      .sort();
    expect(frames.length).toBeGreaterThanOrEqual(15);
    expectNear(await centre(readFileSync(join(work, frames[0]))), BANDS[0]);
    expectNear(await centre(readFileSync(join(work, frames[frames.length - 1]))), BANDS[BANDS.length - 1]);
    // A thumbnail of the first screen, as for a PDF.
    const thumb = await api().get(`/screenshots/${shot.id}/thumbnail`).set(account.auth).buffer(true).parse(binary);
    expect(thumb.status).toBe(200);
    expectNear(await centre(thumb.body as Buffer), BANDS[0]);
  });

  it('gif: an animated image/gif, first frame the top, last frame the bottom; /render answers it too', async () => {
    const res = await api()
      .get('/render')
      .query({ url: `${pages.url}/bands`, format: 'gif', scroll_duration_ms: 1200, viewport_width: 800, viewport_height: 600 })
      .set(account.auth)
      .buffer(true)
      .parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/gif');
    const gif = res.body as Buffer;
    const meta = await sharp(gif, { pages: -1 }).metadata();
    expect(meta.format).toBe('gif');
    expect(meta.width).toBe(800);
    expect(meta.pages).toBeGreaterThanOrEqual(10);
    expect(meta.loop).toBe(0);
    // Frames decoded by ffmpeg, which composes each on the ones before (a GIF frame holds only what changed).
    const file = join(work, 'scroll.gif');
    writeFileSync(file, gif);
    execFileSync(ffmpeg, ['-v', 'error', '-i', file, '-vsync', '0', join(work, 'gif-%04d.png')]);
    const frames = execFileSync('ls', [work])
      .toString()
      .split('\n')
      .filter((f) => /^gif-\d+\.png$/.test(f))
      .sort();
    expect(frames.length).toBe(meta.pages);
    expectNear(await centre(readFileSync(join(work, frames[0]))), BANDS[0], 40);
    expectNear(await centre(readFileSync(join(work, frames[frames.length - 1]))), BANDS[BANDS.length - 1], 40);
  });

  it('options that do not apply to a video are 422s naming the field; scroll_duration_ms is bounded', async () => {
    for (const [body, field, message] of [
      [{ format: 'png', scroll_duration_ms: 2000 }, 'scroll_duration_ms', 'scroll_duration_ms applies only to webm and gif, not png'],
      [{ format: 'webm', selector: 'div' }, 'selector', 'selector applies only to images (png, jpeg and webp), not webm'],
      [{ format: 'gif', quality: 50 }, 'quality', 'quality applies only to jpeg and webp, not gif'],
      [{ format: 'webm', scroll_duration_ms: 999 }, 'scroll_duration_ms', 'scroll_duration_ms must not be less than 1000'],
      [{ format: 'webm', scroll_duration_ms: 20_001 }, 'scroll_duration_ms', 'scroll_duration_ms must not be greater than 20000'],
    ] as const) {
      const res = await api().post(`/websites/${siteId}/screenshot`).set(account.auth).send(body);
      expect({ status: res.status, details: res.body.details }).toEqual({ status: 422, details: [{ field, message }] });
    }
  });

  it('a server without ffmpeg fails the video in words and still takes pictures', async () => {
    const bare = await startTestApp({ env: { FFMPEG_PATH: join(work, 'no-ffmpeg-here') } });
    try {
      const other = await bare.createAccount({ plan: 'business' });
      const site = await request(bare.url)
        .post('/websites')
        .set(other.auth)
        .send({ name: 'bands', url: `${pages.url}/bands`, viewport_width: 800, viewport_height: 600 })
        .expect(201);
      const take = await request(bare.url).post(`/websites/${site.body.data.id}/screenshot`).set(other.auth).send({ format: 'webm' }).expect(200);
      const job = await waitForJob(bare.url, other.auth, take.body.job_id);
      expect(job.status).toBe('failed');
      expect(job.error).toContain(`Videos need ffmpeg, and FFMPEG_PATH=${join(work, 'no-ffmpeg-here')} is not an executable file`);
      const png = await request(bare.url).post(`/websites/${site.body.data.id}/screenshot`).set(other.auth).send({}).expect(200);
      expect((await waitForJob(bare.url, other.auth, png.body.job_id)).status).toBe('succeeded');
    } finally {
      await bare.close();
    }
  });
});
