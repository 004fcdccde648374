import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { ServerResponse } from 'node:http';
import { dirname, isAbsolute, join } from 'node:path';
import AdmZip from 'adm-zip';
import { PNG } from 'pngjs';
import request from 'supertest';
import { PageServer, solidPage } from '../support/page-server';
import { ScreenshotStorage } from '../../src/modules/screenshots/application/ports';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';
import { binary, closedPort, pixel } from '../support/assertions';

/**
 * Take Screenshot, jobs, screenshots, downloads and bulk ZIPs against real Chromium rendering pages served on
 * 127.0.0.1 (spec: Endpoints/Websites Take Screenshot, Endpoints/Screenshots; API.md: Websites, Jobs,
 * Screenshots). The suite runs with ALLOW_PRIVATE_NETWORKS=true (startTestApp's default).
 *
 * Rate limit: accounts are on Pro (20 requests per calendar minute). The clock is pinned; every test starts in
 * a fresh minute, and the job poller moves to a fresh minute before each poll, so polling never eats into a
 * test's budget of 20 and no test ever sees a 429 by accident.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const FILE_PATH = /^screenshots\/\d+\/\d+\/\d+\.png$/;
const SCREENSHOT_FIELDS = ['id', 'website_id', 'file_path', 'file_size', 'width', 'height', 'status', 'taken_at'];
const NOT_FOUND = { success: false, error: expect.any(String), code: 'not_found' };

interface Shot {
  id: number;
  website_id: number;
  file_path: string;
  file_size: number;
  width: number;
  height: number;
  status: string;
  taken_at: string;
}

interface Job {
  id: string;
  status: string;
  website_id: number;
  screenshot_id: number | null;
  error: string | null;
  error_code: string | null;
}

/** Collects a binary response body into a Buffer (supertest's default parsers would not). */

/** A port nothing listens on: bound once by the OS, then released. */

const CORNER_BOX_PAGE =
  '<!doctype html><html><head><style>html,body{margin:0;background:#fff}</style></head>' +
  '<body><div style="position:absolute;left:0;top:0;width:20px;height:20px;background:rgb(0,0,0)"></div></body></html>';

describe('Screenshots API with real Chromium captures', () => {
  let t: TestApp;
  let pages: PageServer;
  let minute = Date.parse('2032-05-10T06:00:00Z');
  const held: ServerResponse[] = [];

  function releaseHeld(): void {
    for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage('rgb(255,0,0)'));
  }

  /** Pins the shared clock to a new calendar minute: every account starts a fresh 20-request window. */
  function freshMinute(): void {
    minute += 60_000;
    t.clock.set(new Date(minute));
  }

  const api = () => request(t.url);

  async function createWebsite(account: TestAccount, body: Record<string, unknown>): Promise<{ id: number; name: string }> {
    const res = await api().post('/websites').set(account.auth).send(body);
    expect(res.status).toBe(201);
    return res.body.data;
  }

  /** Polls GET /jobs/{id} (each poll in a fresh minute) until the job has finished. */
  async function settle(account: TestAccount, jobId: string, timeoutMs = 45_000): Promise<Job> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      freshMinute();
      const res = await api().get(`/jobs/${jobId}`).set(account.auth);
      expect(res.status).toBe(200);
      const job = res.body.data as Job;
      expect(['queued', 'running', 'succeeded', 'failed']).toContain(job.status);
      if (job.status === 'succeeded' || job.status === 'failed') {
        freshMinute();
        return job;
      }
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function requestCapture(account: TestAccount, websiteId: number, body?: Record<string, unknown>): Promise<string> {
    const req = api().post(`/websites/${websiteId}/screenshot`).set(account.auth);
    const res = body === undefined ? await req : await req.send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String), job_id: expect.stringMatching(UUID) });
    return res.body.job_id;
  }

  /** Take Screenshot, wait for the job to succeed, and return the screenshot as the API shows it. */
  async function capture(account: TestAccount, websiteId: number, body?: Record<string, unknown>): Promise<Shot> {
    const jobId = await requestCapture(account, websiteId, body);
    const job = await settle(account, jobId);
    expect(job).toMatchObject({ id: jobId, status: 'succeeded', website_id: websiteId, error: null });
    expect(job.screenshot_id).toEqual(expect.any(Number));
    const res = await api().get(`/screenshots/${job.screenshot_id}`).set(account.auth).expect(200);
    return res.body.data;
  }

  async function download(account: TestAccount, id: number): Promise<{ bytes: Buffer; headers: Record<string, string> }> {
    const res = await api().get(`/screenshots/${id}/download`).set(account.auth).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    return { bytes: res.body as Buffer, headers: res.headers };
  }

  function diskPath(shot: Shot): string {
    expect(shot.file_path).toMatch(FILE_PATH);
    return join(t.config.storageDir, shot.file_path.replace(/^screenshots\//, ''));
  }

  beforeAll(async () => {
    t = await startTestApp();
    pages = await new PageServer({
      '/red': solidPage('rgb(255,0,0)'),
      '/green': solidPage('rgb(0,255,0)'),
      '/blue': solidPage('rgb(0,0,255)'),
      '/tall': solidPage('rgb(0,0,255)', 3000),
      '/box': CORNER_BOX_PAGE,
      // Holds its response until the test releases it: a capture that is "running" for as long as needed.
      '/hold': (_req, res) => {
        held.push(res);
      },
      // White at load; 300 ms later a fetch turns it green: what wait_until decides.
      '/late-content':
        '<!doctype html><html><head><style>html,body{margin:0;background:rgb(255,255,255)}</style></head><body><script>' +
        "addEventListener('load', () => setTimeout(async () => { document.documentElement.style.background = await (await fetch('/colour')).text(); }, 300));" +
        '</script></body></html>',
      '/colour': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('rgb(0,255,0)');
      },
    }).start();
  });
  afterAll(async () => {
    releaseHeld();
    await pages?.stop();
    await t?.close();
  });
  beforeEach(() => freshMinute());

  describe('Take Screenshot and its job', () => {
    it('200 {success, message, job_id}; the job succeeds; the PNG has the viewport size and the page colour; last_screenshot_at is set', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(account, { name: 'red-page', url: `${pages.url}/red`, viewport_width: 1024, viewport_height: 700 });

      const take = await api().post(`/websites/${site.id}/screenshot`).set(account.auth);
      expect(take.status).toBe(200);
      expect(take.body).toEqual({ success: true, message: expect.any(String), job_id: expect.stringMatching(UUID) });
      expect(take.headers['x-ratelimit-limit']).toBe('20');
      const jobId: string = take.body.job_id;

      // The job is visible at once (queued before the answer) and belongs to the website.
      const early = await api().get(`/jobs/${jobId}`).set(account.auth).expect(200);
      expect(early.body.data).toMatchObject({ id: jobId, type: 'screenshot', website_id: site.id });
      expect(['queued', 'running', 'succeeded']).toContain(early.body.data.status);

      const job = await settle(account, jobId);
      expect(job).toMatchObject({ id: jobId, type: 'screenshot', status: 'succeeded', website_id: site.id, error: null });
      expect(Number.isInteger(job.screenshot_id)).toBe(true);

      const got = await api().get(`/screenshots/${job.screenshot_id}`).set(account.auth);
      expect(got.status).toBe(200);
      expect(Object.keys(got.body.data)).toEqual(expect.arrayContaining(SCREENSHOT_FIELDS));
      const shot: Shot = got.body.data;
      expect(shot).toMatchObject({ id: job.screenshot_id, website_id: site.id, width: 1024, height: 700, status: 'success' });
      expect(shot.taken_at).toMatch(ISO_UTC);
      expect(shot.file_path).toMatch(FILE_PATH);
      expect(shot.file_path).toBe(`screenshots/${account.id}/${site.id}/${shot.id}.png`);
      expect(isAbsolute(shot.file_path)).toBe(false);

      const { bytes } = await download(account, shot.id);
      expect(shot.file_size).toBe(bytes.length);
      const png = PNG.sync.read(bytes);
      expect([png.width, png.height]).toEqual([1024, 700]);
      expect(pixel(png, 10, 10)).toEqual([255, 0, 0, 255]);
      expect(pixel(png, 1000, 690)).toEqual([255, 0, 0, 255]);

      const website = await api().get(`/websites/${site.id}`).set(account.auth).expect(200);
      expect(website.body.data.last_screenshot_at).toMatch(ISO_UTC);
      expect(website.body.data.last_screenshot_at).toBe(shot.taken_at);
    });

    it("a website with the defaults is captured at 1280x800; another page's colour is its own", async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(account, { name: 'green-page', url: `${pages.url}/green` });
      const shot = await capture(account, site.id);
      expect([shot.width, shot.height]).toEqual([1280, 800]);
      const png = PNG.sync.read((await download(account, shot.id)).bytes);
      expect([png.width, png.height]).toEqual([1280, 800]);
      expect(pixel(png, 10, 10)).toEqual([0, 255, 0, 255]);
    });

    it('a full_page website on a 3000 px tall page → height 3000 (bottom rendered too); full_page false in the body → viewport height', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(account, { name: 'tall-page', url: `${pages.url}/tall`, viewport_width: 800, viewport_height: 600, full_page: true });
      const full = await capture(account, site.id);
      expect([full.width, full.height]).toEqual([800, 3000]);
      const png = PNG.sync.read((await download(account, full.id)).bytes);
      expect([png.width, png.height]).toEqual([800, 3000]);
      expect(pixel(png, 10, 10)).toEqual([0, 0, 255, 255]);
      expect(pixel(png, 10, 2990)).toEqual([0, 0, 255, 255]);

      const clipped = await capture(account, site.id, { full_page: false });
      expect([clipped.width, clipped.height]).toEqual([800, 600]);
      const png2 = PNG.sync.read((await download(account, clipped.id)).bytes);
      expect([png2.width, png2.height]).toEqual([800, 600]);
    });

    it('capture options override the website for that capture only: 800x600, then device_scale_factor 2 doubles the pixels', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(account, { name: 'box-page', url: `${pages.url}/box` });

      const small = await capture(account, site.id, { viewport_width: 800, viewport_height: 600 });
      expect([small.width, small.height]).toEqual([800, 600]);
      const png1 = PNG.sync.read((await download(account, small.id)).bytes);
      expect([png1.width, png1.height]).toEqual([800, 600]);
      expect(pixel(png1, 10, 10)).toEqual([0, 0, 0, 255]); // inside the 20x20 css-px box
      expect(pixel(png1, 30, 30)).toEqual([255, 255, 255, 255]); // outside it

      const retina = await capture(account, site.id, { viewport_width: 800, viewport_height: 600, device_scale_factor: 2 });
      expect([retina.width, retina.height]).toEqual([1600, 1200]);
      const png2 = PNG.sync.read((await download(account, retina.id)).bytes);
      expect([png2.width, png2.height]).toEqual([1600, 1200]);
      expect(pixel(png2, 30, 30)).toEqual([0, 0, 0, 255]); // the box now spans 40x40 device pixels
      expect(pixel(png2, 50, 50)).toEqual([255, 255, 255, 255]);

      // The website itself is unchanged by the overrides.
      const website = await api().get(`/websites/${site.id}`).set(account.auth).expect(200);
      expect(website.body.data).toMatchObject({ viewport_width: 1280, viewport_height: 800, full_page: false });
    });

    it('the body is optional: no body, an empty JSON body with Content-Type: application/json, and {} all queue a capture (200)', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(account, { name: 'optional-body', url: `${pages.url}/red` });
      const none = await api().post(`/websites/${site.id}/screenshot`).set(account.auth);
      expect(none.status).toBe(200);
      expect(none.body).toEqual({ success: true, message: expect.any(String), job_id: expect.stringMatching(UUID) });
      // What `curl -X POST -H 'Content-Type: application/json'` sends (the spec: bodies are sent as application/json).
      const emptyJson = await api().post(`/websites/${site.id}/screenshot`).set(account.auth).set('Content-Type', 'application/json').send('');
      expect({ status: emptyJson.status, body: emptyJson.body }).toEqual({
        status: 200,
        body: { success: true, message: expect.any(String), job_id: expect.stringMatching(UUID) },
      });
      const emptyObject = await api().post(`/websites/${site.id}/screenshot`).set(account.auth).send({});
      expect(emptyObject.status).toBe(200);
      expect(emptyObject.body.job_id).toMatch(UUID);
      const ids = [none.body.job_id, emptyJson.body.job_id, emptyObject.body.job_id];
      expect(new Set(ids).size).toBe(3);
      for (const id of ids) expect((await settle(account, id)).status).toBe('succeeded');
    });

    describe('invalid capture options', () => {
      let account: TestAccount;
      let siteId: number;

      beforeAll(async () => {
        account = await t.createAccount({ plan: 'pro' });
        freshMinute();
        siteId = (await createWebsite(account, { name: 'options', url: `${pages.url}/red` })).id;
      });

      it.each([
        ['delay_ms 20000', { delay_ms: 20000 }, 'delay_ms'],
        ['delay_ms -1', { delay_ms: -1 }, 'delay_ms'],
        ['device_scale_factor 5', { device_scale_factor: 5 }, 'device_scale_factor'],
        ['device_scale_factor 0.5', { device_scale_factor: 0.5 }, 'device_scale_factor'],
        ['viewport_width 100', { viewport_width: 100 }, 'viewport_width'],
        ['viewport_height 3000', { viewport_height: 3000 }, 'viewport_height'],
        ['viewport_width "800"', { viewport_width: '800' }, 'viewport_width'],
        ['full_page "yes"', { full_page: 'yes' }, 'full_page'],
        ['format "bmp"', { format: 'bmp' }, 'format'],
        ['an unknown field', { thumbnail: true }, 'thumbnail'],
        ['quality with png (the default)', { quality: 80 }, 'quality'],
        ['quality with pdf', { format: 'pdf', quality: 50 }, 'quality'],
        ['quality 0', { format: 'jpeg', quality: 0 }, 'quality'],
        ['quality 101', { format: 'webp', quality: 101 }, 'quality'],
        ['quality 50.5', { format: 'jpeg', quality: 50.5 }, 'quality'],
        ['pdf_paper with png', { pdf_paper: 'a4' }, 'pdf_paper'],
        ['pdf_paper "a5"', { format: 'pdf', pdf_paper: 'a5' }, 'pdf_paper'],
        ['pdf_landscape "yes"', { format: 'pdf', pdf_landscape: 'yes' }, 'pdf_landscape'],
        ['pdf_print_background with jpeg', { format: 'jpeg', pdf_print_background: false }, 'pdf_print_background'],
        ['omit_background with jpeg', { format: 'jpeg', omit_background: true }, 'omit_background'],
        ['wait_for_selector "div["', { wait_for_selector: 'div[' }, 'wait_for_selector'],
        ['hide_selectors with "..x"', { hide_selectors: ['.ok', '..x'] }, 'hide_selectors'],
        ['wait_until "soon"', { wait_until: 'soon' }, 'wait_until'],
        ['wait_until "networkidle0"', { wait_until: 'networkidle0' }, 'wait_until'],
        ['wait_until null', { wait_until: null }, 'wait_until'],
      ])('%s → 422 validation_failed on that field, and no job is queued', async (_, body, field) => {
        const res = await api().post(`/websites/${siteId}/screenshot`).set(account.auth).send(body);
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          success: false,
          error: expect.any(String),
          code: 'validation_failed',
          details: expect.arrayContaining([{ field, message: expect.any(String) }]),
        });
        expect(new Set(res.body.details.map((d: { field: string }) => d.field))).toEqual(new Set([field]));
        const jobs = await api().get(`/jobs?website_id=${siteId}`).set(account.auth).expect(200);
        expect(jobs.body.meta.total).toBe(0);
      });
    });

    it("wait_until: the website's saved default applies, and a request's value overrides it", async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(account, { name: 'late', url: `${pages.url}/late-content`, capture_options: { wait_until: 'load' } });
      const colour = async (shot: Shot) => pixel(PNG.sync.read((await download(account, shot.id)).bytes), 640, 400);

      // The website says load: captured before the late content; the request's stable waits for it.
      expect(await colour(await capture(account, site.id))).toEqual([255, 255, 255, 255]);
      expect(await colour(await capture(account, site.id, { wait_until: 'stable' }))).toEqual([0, 255, 0, 255]);
    });

    it('an unreachable URL ends the job failed with net::ERR_CONNECTION_REFUSED, no screenshot; the next capture still succeeds', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const port = await closedPort();
      const dead = await createWebsite(account, { name: 'dead', url: `http://127.0.0.1:${port}/` });
      const jobId = await requestCapture(account, dead.id);
      const job = await settle(account, jobId);
      expect(job.status).toBe('failed');
      expect(job.screenshot_id).toBeNull();
      // In words (issue 46): the raw code beside them.
      expect(job.error).toBe('The site refused the connection. Check that the site is up and that the address and port are right.');
      expect(job.error_code).toBe('net::ERR_CONNECTION_REFUSED');
      const shots = await api().get(`/screenshots?website_id=${dead.id}`).set(account.auth).expect(200);
      expect(shots.body.meta.total).toBe(0);
      const website = await api().get(`/websites/${dead.id}`).set(account.auth).expect(200);
      expect(website.body.data.last_screenshot_at).toBeNull();

      const alive = await createWebsite(account, { name: 'alive', url: `${pages.url}/blue` });
      const shot = await capture(account, alive.id);
      const png = PNG.sync.read((await download(account, shot.id)).bytes);
      expect(pixel(png, 10, 10)).toEqual([0, 0, 255, 255]);
    });

    it('Idempotency-Key: the same key returns the same job_id and yields one screenshot; another key is another job', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(account, { name: 'idem', url: `${pages.url}/red` });
      const first = await api().post(`/websites/${site.id}/screenshot`).set(account.auth).set('Idempotency-Key', 'order-42');
      const second = await api().post(`/websites/${site.id}/screenshot`).set(account.auth).set('Idempotency-Key', 'order-42');
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(first.body.job_id).toMatch(UUID);
      expect(second.body).toEqual({ success: true, message: expect.any(String), job_id: first.body.job_id });
      const job = await settle(account, first.body.job_id);
      expect(job.status).toBe('succeeded');

      // A retry after the job finished still answers with the same job and does not capture again.
      const third = await api().post(`/websites/${site.id}/screenshot`).set(account.auth).set('Idempotency-Key', 'order-42');
      expect(third.status).toBe(200);
      expect(third.body.job_id).toBe(first.body.job_id);

      const jobs = await api().get(`/jobs?website_id=${site.id}`).set(account.auth).expect(200);
      expect(jobs.body.meta.total).toBe(1);
      const shots = await api().get(`/screenshots?website_id=${site.id}`).set(account.auth).expect(200);
      expect(shots.body.meta.total).toBe(1);
      expect(shots.body.data[0].id).toBe(job.screenshot_id);

      const other = await api().post(`/websites/${site.id}/screenshot`).set(account.auth).set('Idempotency-Key', 'order-43');
      expect(other.status).toBe(200);
      expect(other.body.job_id).not.toBe(first.body.job_id);
      expect((await settle(account, other.body.job_id)).status).toBe('succeeded');

      // Keys belong to an account: another account using the same key gets its own job.
      const stranger = await t.createAccount({ plan: 'pro' });
      const theirs = await createWebsite(stranger, { name: 'theirs', url: `${pages.url}/green` });
      const foreign = await api().post(`/websites/${theirs.id}/screenshot`).set(stranger.auth).set('Idempotency-Key', 'order-42');
      expect(foreign.status).toBe(200);
      expect(foreign.body.job_id).not.toBe(first.body.job_id);
      expect((await settle(stranger, foreign.body.job_id)).status).toBe('succeeded');
    });

    it('Idempotency-Key reused for a different request (other website, other options, a scenario run) is 409 conflict, never an unrelated job', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const one = await createWebsite(account, { name: 'one', url: `${pages.url}/red` });
      const two = await createWebsite(account, { name: 'two', url: `${pages.url}/blue` });
      const first = await api()
        .post(`/websites/${one.id}/screenshot`)
        .set(account.auth)
        .set('Idempotency-Key', 'k-1')
        .send({ full_page: true, hide_selectors: ['#a', '#b'] });
      expect(first.status).toBe(200);

      const CONFLICT = { success: false, error: expect.stringContaining('Idempotency-Key'), code: 'conflict' };
      const otherSite = await api()
        .post(`/websites/${two.id}/screenshot`)
        .set(account.auth)
        .set('Idempotency-Key', 'k-1')
        .send({ full_page: true, hide_selectors: ['#a', '#b'] });
      expect(otherSite.status).toBe(409);
      expect(otherSite.body).toEqual(CONFLICT);
      expect(otherSite.headers['x-ratelimit-limit']).toBe('20');
      const otherOptions = await api().post(`/websites/${one.id}/screenshot`).set(account.auth).set('Idempotency-Key', 'k-1').send({ full_page: false });
      expect(otherOptions.status).toBe(409);
      expect(otherOptions.body).toEqual(CONFLICT);

      freshMinute();
      const scenario = await api()
        .post('/scenarios')
        .set(account.auth)
        .send({ name: 'run', website_id: one.id, steps: [{ type: 'wait', duration: 0 }] })
        .expect(201);
      const run = await api().post(`/scenarios/${scenario.body.data.id}/run`).set(account.auth).set('Idempotency-Key', 'k-1');
      expect(run.status).toBe(409);
      expect(run.body).toEqual(CONFLICT);

      // The very same request again (options in another key order) is a retry: the first job, no new one.
      const retry = await api()
        .post(`/websites/${one.id}/screenshot`)
        .set(account.auth)
        .set('Idempotency-Key', 'k-1')
        .send({ hide_selectors: ['#a', '#b'], full_page: true });
      expect(retry.status).toBe(200);
      expect(retry.body.job_id).toBe(first.body.job_id);
      // A run with its own key is an execution, and retrying it answers with the same execution.
      const runOnce = await api().post(`/scenarios/${scenario.body.data.id}/run`).set(account.auth).set('Idempotency-Key', 'run-1').expect(200);
      const runAgain = await api().post(`/scenarios/${scenario.body.data.id}/run`).set(account.auth).set('Idempotency-Key', 'run-1').expect(200);
      expect(runAgain.body.execution_id).toBe(runOnce.body.execution_id);
      freshMinute();
      await api().get(`/executions/${runOnce.body.execution_id}`).set(account.auth).expect(200);
      const jobs = await api().get(`/jobs?website_id=${two.id}`).set(account.auth).expect(200);
      expect(jobs.body.meta.total).toBe(0);
      expect((await settle(account, first.body.job_id)).status).toBe('succeeded');
    });

    it('GET /jobs/{id} for an unknown UUID or a non-UUID is 404 not_found', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-job', '123']) {
        const res = await api().get(`/jobs/${id}`).set(account.auth);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
    });
  });

  describe('with captured screenshots (two websites, three screenshots)', () => {
    let owner: TestAccount;
    let stranger: TestAccount;
    let alpha: { id: number; name: string };
    let beta: { id: number; name: string };
    let a1: Shot;
    let a2: Shot;
    let b1: Shot;
    let jobA1: string;

    beforeAll(async () => {
      owner = await t.createAccount({ plan: 'pro' });
      stranger = await t.createAccount({ plan: 'pro' });
      freshMinute();
      alpha = await createWebsite(owner, { name: 'alpha', url: `${pages.url}/red`, viewport_width: 640, viewport_height: 480 });
      beta = await createWebsite(owner, { name: 'beta', url: `${pages.url}/green`, viewport_width: 700, viewport_height: 500 });
      jobA1 = await requestCapture(owner, alpha.id);
      const jobA1Done = await settle(owner, jobA1);
      a1 = (await api().get(`/screenshots/${jobA1Done.screenshot_id}`).set(owner.auth).expect(200)).body.data;
      a2 = await capture(owner, alpha.id);
      b1 = await capture(owner, beta.id);
    });

    function link(href: string | null): { origin: string; path: string; params: Record<string, string> } | null {
      if (href === null) return null;
      const u = new URL(href);
      return { origin: u.origin, path: u.pathname, params: Object.fromEntries(u.searchParams) };
    }

    it('GET /screenshots: the full envelope, newest first, spec fields on each item', async () => {
      const res = await api().get('/screenshots').set(owner.auth).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'links', 'meta']);
      expect(res.body.meta).toEqual({ current_page: 1, last_page: 1, per_page: 15, total: 3 });
      expect(res.body.data.map((s: Shot) => s.id)).toEqual([b1.id, a2.id, a1.id]);
      for (const s of res.body.data) {
        expect(Object.keys(s)).toEqual(expect.arrayContaining(SCREENSHOT_FIELDS));
        expect(s.status).toBe('success');
      }
      expect(res.body.data[2]).toMatchObject(a1);
      expect(link(res.body.links.first)).toEqual({ origin: t.url, path: '/screenshots', params: { page: '1' } });
      expect(link(res.body.links.last)).toEqual({ origin: t.url, path: '/screenshots', params: { page: '1' } });
      expect(res.body.links.prev).toBeNull();
      expect(res.body.links.next).toBeNull();

      const paged = await api().get('/screenshots?per_page=2&page=2').set(owner.auth).expect(200);
      expect(paged.body.meta).toEqual({ current_page: 2, last_page: 2, per_page: 2, total: 3 });
      expect(paged.body.data.map((s: Shot) => s.id)).toEqual([a1.id]);
    });

    it('GET /screenshots?website_id= filters to that website (and keeps the filter in the links)', async () => {
      const res = await api().get(`/screenshots?website_id=${alpha.id}`).set(owner.auth).expect(200);
      expect(res.body.meta.total).toBe(2);
      expect(res.body.data.map((s: Shot) => s.id)).toEqual([a2.id, a1.id]);
      for (const s of res.body.data) expect(s.website_id).toBe(alpha.id);
      expect(link(res.body.links.first)).toEqual({ origin: t.url, path: '/screenshots', params: { page: '1', website_id: String(alpha.id) } });

      const onlyBeta = await api().get(`/screenshots?website_id=${beta.id}`).set(owner.auth).expect(200);
      expect(onlyBeta.body.data.map((s: Shot) => s.id)).toEqual([b1.id]);

      const unknown = await api().get('/screenshots?website_id=987654').set(owner.auth).expect(200);
      expect(unknown.body.data).toEqual([]);
      expect(unknown.body.meta.total).toBe(0);

      const bad = await api().get('/screenshots?website_id=abc').set(owner.auth);
      expect(bad.status).toBe(422);
      expect(bad.body).toEqual({
        success: false,
        error: expect.any(String),
        code: 'validation_failed',
        details: expect.arrayContaining([{ field: 'website_id', message: expect.any(String) }]),
      });
      expect(new Set(bad.body.details.map((d: { field: string }) => d.field))).toEqual(new Set(['website_id']));
    });

    it('GET /screenshots/{id} → {data: Screenshot} with the spec fields', async () => {
      const res = await api().get(`/screenshots/${b1.id}`).set(owner.auth).expect(200);
      expect(res.body.data).toMatchObject({
        id: b1.id,
        website_id: beta.id,
        file_path: `screenshots/${owner.id}/${beta.id}/${b1.id}.png`,
        file_size: expect.any(Number),
        width: 700,
        height: 500,
        status: 'success',
        taken_at: expect.stringMatching(ISO_UTC),
      });
      expect(res.body.data.file_size).toBeGreaterThan(0);
      for (const id of ['abc', '0', '99999999']) {
        const missing = await api().get(`/screenshots/${id}`).set(owner.auth);
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual(NOT_FOUND);
      }
    });

    it('download: 200 image/png, attachment "<website-name>-<id>.png", ETag, bytes identical to the file on disk; If-None-Match → 304', async () => {
      const res = await api().get(`/screenshots/${a1.id}/download`).set(owner.auth).buffer(true).parse(binary);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^image\/png/);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="alpha-${a1.id}.png"`);
      expect(res.headers['etag']).toEqual(expect.any(String));
      expect(res.headers['etag'].length).toBeGreaterThan(2);
      expect(res.headers['x-ratelimit-limit']).toBe('20');
      const bytes = res.body as Buffer;
      expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(bytes.length).toBe(a1.file_size);

      expect(isAbsolute(a1.file_path)).toBe(false);
      const onDisk = readFileSync(diskPath(a1));
      expect(bytes.equals(onDisk)).toBe(true);

      const png = PNG.sync.read(bytes);
      expect([png.width, png.height]).toEqual([640, 480]);
      expect(pixel(png, 10, 10)).toEqual([255, 0, 0, 255]);

      const cached = await api().get(`/screenshots/${a1.id}/download`).set(owner.auth).set('If-None-Match', res.headers['etag']).buffer(true).parse(binary);
      expect(cached.status).toBe(304);
      expect((cached.body as Buffer).length).toBe(0);
      expect(cached.headers['etag']).toBe(res.headers['etag']);

      const stale = await api().get(`/screenshots/${a1.id}/download`).set(owner.auth).set('If-None-Match', '"something-else"').buffer(true).parse(binary);
      expect(stale.status).toBe(200);
      expect((stale.body as Buffer).equals(onDisk)).toBe(true);

      // Different screenshots have different validators.
      const other = await download(owner, a2.id);
      expect(other.headers['etag']).not.toBe(res.headers['etag']);
      expect(other.headers['content-disposition']).toBe(`attachment; filename="alpha-${a2.id}.png"`);
    });

    it('download of a screenshot whose file is gone: 404 from the file stream itself (no lookup before it), If-None-Match or not; back once the file is', async () => {
      const path = diskPath(a2);
      const bytes = readFileSync(path);
      const etag = `"ss-${a2.id}-${a2.file_size}"`;
      unlinkSync(path);
      const lookups = jest.spyOn(t.app.get(ScreenshotStorage), 'exists');
      try {
        for (const ifNoneMatch of [undefined, etag]) {
          const req = api().get(`/screenshots/${a2.id}/download`).set(owner.auth);
          const gone = await (ifNoneMatch ? req.set('If-None-Match', ifNoneMatch) : req);
          expect(gone.status).toBe(404);
          expect(gone.headers['content-type']).toMatch(/^application\/json/);
          expect(gone.headers['content-disposition']).toBeUndefined();
          expect(gone.body).toEqual({ success: false, error: 'Screenshot file not found', code: 'not_found' });
        }
        expect(lookups).not.toHaveBeenCalled();
      } finally {
        lookups.mockRestore();
        writeFileSync(path, bytes);
      }
      expect((await download(owner, a2.id)).bytes.equals(bytes)).toBe(true);
    });

    it('bulk download (Pro): 200 application/zip with exactly those 3 PNGs named "<id>-<website-name>.png", byte-identical to the downloads', async () => {
      const res = await api()
        .post('/screenshots/download-bulk')
        .set(owner.auth)
        .send({ screenshot_ids: [a1.id, a2.id, b1.id] })
        .buffer(true)
        .parse(binary);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/zip/);
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="screenshots-\d+\.zip"$/);
      expect(res.headers['x-ratelimit-limit']).toBe('20');
      const zip = new AdmZip(res.body as Buffer);
      const entries = zip.getEntries().filter((e) => !e.isDirectory);
      expect(entries.map((e) => e.entryName).sort()).toEqual([`${a1.id}-alpha.png`, `${a2.id}-alpha.png`, `${b1.id}-beta.png`].sort());
      for (const [shot, name] of [
        [a1, `${a1.id}-alpha.png`],
        [a2, `${a2.id}-alpha.png`],
        [b1, `${b1.id}-beta.png`],
      ] as const) {
        const fromZip = zip.getEntry(name)!.getData();
        const { bytes } = await download(owner, shot.id);
        expect(fromZip.length).toBe(shot.file_size);
        expect(fromZip.equals(bytes)).toBe(true);
      }
    });

    it('bulk download on Starter → 403 plan_upgrade_required with current_plan "starter"', async () => {
      const starter = await t.createAccount({ plan: 'starter' });
      const res = await api()
        .post('/screenshots/download-bulk')
        .set(starter.auth)
        .send({ screenshot_ids: [a1.id] });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        success: false,
        error: expect.any(String),
        code: 'plan_upgrade_required',
        current_plan: 'starter',
        required_plans: expect.arrayContaining(['pro', 'business']),
      });
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      // The plan is the first answer: a Starter account's invalid body is still 403, not 422 (fixing it would not help).
      for (const body of [{}, { screenshot_ids: [] }, { screenshot_ids: 'all' }]) {
        const invalid = await api().post('/screenshots/download-bulk').set(starter.auth).send(body);
        expect(invalid.status).toBe(403);
        expect(invalid.body.code).toBe('plan_upgrade_required');
      }
    });

    it('bulk download with a foreign and an unknown id → 404 naming exactly the missing ids (missing_ids), no ZIP', async () => {
      const theirs = await createWebsite(stranger, { name: 'stranger-site', url: `${pages.url}/blue` });
      const foreignShot = await capture(stranger, theirs.id);
      const res = await api()
        .post('/screenshots/download-bulk')
        .set(owner.auth)
        .send({ screenshot_ids: [a1.id, foreignShot.id, 987654] });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toMatchObject({ success: false, error: expect.any(String), code: 'not_found' });
      expect([...res.body.missing_ids].sort((x: number, y: number) => x - y)).toEqual([foreignShot.id, 987654].sort((x, y) => x - y));

      // The owner of that screenshot can bulk-download it; the owner of a1 cannot reach it either way.
      const own = await api()
        .post('/screenshots/download-bulk')
        .set(stranger.auth)
        .send({ screenshot_ids: [foreignShot.id] })
        .buffer(true)
        .parse(binary);
      expect(own.status).toBe(200);
      expect(new AdmZip(own.body as Buffer).getEntries().map((e) => e.entryName)).toEqual([`${foreignShot.id}-stranger-site.png`]);
    });

    it.each([
      ['an empty array', { screenshot_ids: [] }],
      ['101 ids', { screenshot_ids: Array.from({ length: 101 }, (_, i) => i + 1) }],
      ['string ids', { screenshot_ids: ['1', '2'] }],
      ['a fractional id', { screenshot_ids: [1.5] }],
      ['a non-positive id', { screenshot_ids: [0] }],
      ['not an array', { screenshot_ids: 5 }],
      ['screenshot_ids missing', {}],
      ['an unknown field', { screenshot_ids: [1], format: 'tar' }],
    ])('bulk download with %s → 422 validation_failed', async (_, body) => {
      const res = await api().post('/screenshots/download-bulk').set(owner.auth).send(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        success: false,
        error: expect.any(String),
        code: 'validation_failed',
        details: expect.arrayContaining([{ field: expect.stringMatching(/^(screenshot_ids|format)/), message: expect.any(String) }]),
      });
    });

    it('bulk download of exactly 100 ids is not refused by validation (404 for the unknown ones instead)', async () => {
      const ids = [a1.id, ...Array.from({ length: 99 }, (_, i) => 900000 + i)];
      const res = await api().post('/screenshots/download-bulk').set(owner.auth).send({ screenshot_ids: ids });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
      expect(res.body.missing_ids).toHaveLength(99);
      expect(res.body.missing_ids).not.toContain(a1.id);
    });

    it('tenant isolation: another account gets 404 for the job, the screenshot, its download, DELETE and bulk; nothing is changed', async () => {
      const checks: Array<[string, request.Test]> = [
        [`GET /jobs/${jobA1}`, api().get(`/jobs/${jobA1}`).set(stranger.auth)],
        [`GET /screenshots/${a1.id}`, api().get(`/screenshots/${a1.id}`).set(stranger.auth)],
        [`GET /screenshots/${a1.id}/download`, api().get(`/screenshots/${a1.id}/download`).set(stranger.auth)],
        [`DELETE /screenshots/${a1.id}`, api().delete(`/screenshots/${a1.id}`).set(stranger.auth)],
        [`GET /websites/${alpha.id}`, api().get(`/websites/${alpha.id}`).set(stranger.auth)],
        [`POST /websites/${alpha.id}/screenshot`, api().post(`/websites/${alpha.id}/screenshot`).set(stranger.auth)],
      ];
      for (const [label, req] of checks) {
        const res = await req;
        expect({ label, status: res.status, body: res.body }).toEqual({ label, status: 404, body: NOT_FOUND });
        expect(res.headers['content-disposition']).toBeUndefined();
      }
      const bulk = await api()
        .post('/screenshots/download-bulk')
        .set(stranger.auth)
        .send({ screenshot_ids: [a1.id, a2.id] });
      expect(bulk.status).toBe(404);
      expect(bulk.body).toMatchObject({ success: false, code: 'not_found' });
      expect([...bulk.body.missing_ids].sort((x: number, y: number) => x - y)).toEqual([a1.id, a2.id].sort((x, y) => x - y));

      const list = await api().get('/screenshots?per_page=100').set(stranger.auth).expect(200);
      expect(list.body.data.map((s: Shot) => s.id)).not.toEqual(expect.arrayContaining([a1.id]));
      for (const s of list.body.data) expect([a1.id, a2.id, b1.id]).not.toContain(s.id);
      const filtered = await api().get(`/screenshots?website_id=${alpha.id}`).set(stranger.auth).expect(200);
      expect(filtered.body.data).toEqual([]);
      const jobs = await api().get(`/jobs?website_id=${alpha.id}`).set(stranger.auth).expect(200);
      expect(jobs.body.data).toEqual([]);

      freshMinute();
      // Still there for the owner, file included.
      await api().get(`/screenshots/${a1.id}`).set(owner.auth).expect(200);
      expect(existsSync(diskPath(a1))).toBe(true);
      const ownerJobs = await api().get(`/jobs?website_id=${alpha.id}`).set(owner.auth).expect(200);
      expect(ownerJobs.body.meta.total).toBe(2);
    });
  });

  describe('Deleting', () => {
    it('DELETE /screenshots/{id} → 200 {success, message}; the row (404) and the file are gone; other screenshots stay', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(account, { name: 'to-delete', url: `${pages.url}/red` });
      const doomed = await capture(account, site.id);
      const kept = await capture(account, site.id);
      const doomedPath = diskPath(doomed);
      expect(existsSync(doomedPath)).toBe(true);

      const res = await api().delete(`/screenshots/${doomed.id}`).set(account.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: expect.any(String) });

      const get = await api().get(`/screenshots/${doomed.id}`).set(account.auth);
      expect(get.status).toBe(404);
      expect(get.body).toEqual(NOT_FOUND);
      const dl = await api().get(`/screenshots/${doomed.id}/download`).set(account.auth);
      expect(dl.status).toBe(404);
      expect(dl.body).toEqual(NOT_FOUND);
      const again = await api().delete(`/screenshots/${doomed.id}`).set(account.auth);
      expect(again.status).toBe(404);
      expect(again.body).toEqual(NOT_FOUND);
      expect(existsSync(doomedPath)).toBe(false);

      const list = await api().get(`/screenshots?website_id=${site.id}`).set(account.auth).expect(200);
      expect(list.body.data.map((s: Shot) => s.id)).toEqual([kept.id]);
      expect(existsSync(diskPath(kept))).toBe(true);
      const { bytes } = await download(account, kept.id);
      expect(bytes.length).toBe(kept.file_size);
    });

    it('deleting a website while its capture is running: the job ends failed, and no screenshot row or file is left behind', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(account, { name: 'racing', url: `${pages.url}/hold` });
      const jobId = await requestCapture(account, site.id);
      // Chromium has asked for the page: the job is running and the page server holds the response.
      const deadline = Date.now() + 30_000;
      while (!pages.requests.includes('/hold')) {
        if (Date.now() > deadline) throw new Error('Chromium never requested /hold');
        await new Promise((r) => setTimeout(r, 20));
      }
      freshMinute();
      const del = await api().delete(`/websites/${site.id}`).set(account.auth);
      expect(del.status).toBe(200);
      releaseHeld();

      const job = await settle(account, jobId);
      expect(job).toMatchObject({ id: jobId, status: 'failed', screenshot_id: null });
      expect(job.error).toMatch(/deleted/i);
      const list = await api().get('/screenshots').set(account.auth).expect(200);
      expect(list.body.meta.total).toBe(0);
      const websiteDir = join(t.config.storageDir, String(account.id), String(site.id));
      expect(existsSync(websiteDir) ? readdirSync(websiteDir) : []).toEqual([]);
    });

    it("deleting a website deletes its screenshots (rows 404, files gone) and leaves the account's other websites alone", async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await createWebsite(account, { name: 'cascade', url: `${pages.url}/green` });
      const other = await createWebsite(account, { name: 'survivor', url: `${pages.url}/blue` });
      const s1 = await capture(account, site.id);
      const s2 = await capture(account, site.id);
      const s3 = await capture(account, other.id);
      const paths = [diskPath(s1), diskPath(s2)];
      for (const p of paths) expect(existsSync(p)).toBe(true);
      // A capture that stored its files just before the delete, after any listing of the website's rows:
      // its files must go too (the whole folder goes once the website row is gone).
      const folder = dirname(paths[0]);
      writeFileSync(join(folder, '999999.png'), 'late capture');
      writeFileSync(join(folder, '999999.thumb.webp'), 'late thumbnail');

      const del = await api().delete(`/websites/${site.id}`).set(account.auth);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ success: true, message: expect.any(String) });

      for (const s of [s1, s2]) {
        const res = await api().get(`/screenshots/${s.id}`).set(account.auth);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
      for (const p of paths) expect(existsSync(p)).toBe(false);
      expect(existsSync(folder)).toBe(false);
      const list = await api().get('/screenshots').set(account.auth).expect(200);
      expect(list.body.data.map((s: Shot) => s.id)).toEqual([s3.id]);
      expect(list.body.meta.total).toBe(1);
      expect(existsSync(diskPath(s3))).toBe(true);
      const bulk = await api()
        .post('/screenshots/download-bulk')
        .set(account.auth)
        .send({ screenshot_ids: [s1.id, s3.id] });
      expect(bulk.status).toBe(404);
      expect(bulk.body.missing_ids).toEqual([s1.id]);
    });
  });
});
