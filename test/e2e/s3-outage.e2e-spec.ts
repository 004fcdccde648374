import request from 'supertest';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { LEASE_MARGIN_MS } from '../../src/modules/jobs/application/job-lease';
import { captureRunMs } from '../../src/modules/screenshots/application/capture-route';
import { ScreenshotRepository, ScreenshotStorage } from '../../src/modules/screenshots/application/ports';
import { binary } from '../support/assertions';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { S3Server } from '../support/s3-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The object store away while the service works (issue 27, items 7 and 8), against a real s3rver process:
 * frozen with SIGSTOP (connections accepted, never answered — it used to hold every request and capture for as
 * long as the freeze) and killed then restarted on its port (captures used to fail after three quick attempts).
 * S3_TIMEOUT_MS is 2 s here so the bound shows in seconds; the default is 30 s. Runs on both stacks.
 */

const BOUND_MS = 2_000;
/** What a loaded 2-core machine may add to a bound (event loop, Chromium next door). */
const SLACK_MS = 2_500;
const UNAVAILABLE = { success: false, error: 'Screenshot storage is unavailable; try again', code: 'unavailable' };

interface PutCall {
  key: string;
  started: number;
  /** 0 while under way. */
  ended: number;
  ok: boolean;
}

const failed = (calls: PutCall[]) => calls.filter((p) => p.ended > 0 && !p.ok);

async function until(what: string, ms: number, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the object store frozen or stopped under the service (s3rver, real Chromium)', () => {
  const s3 = new S3Server('outage-shots');
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let websiteId: number;
  /** Every upload of a screenshot the service made, in order: observed on the real adapter, not replaced. */
  let puts: PutCall[] = [];
  const api = () => request(t.url);

  beforeAll(async () => {
    await s3.start();
    pages = await new PageServer({ '/': solidPage('rgb(0,0,200)') }).start();
    t = await startTestApp({ env: { ...s3.env(), S3_TIMEOUT_MS: String(BOUND_MS) } });
    const storage = t.app.get(ScreenshotStorage);
    const put = storage.put.bind(storage);
    storage.put = async (key: string, data: Buffer) => {
      const call: PutCall = { key, started: Date.now(), ended: 0, ok: false };
      puts.push(call);
      try {
        await put(key, data);
        call.ok = true;
      } finally {
        call.ended = Date.now();
      }
    };
    account = await t.createAccount({ plan: 'business' });
    const site = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'Outage site', url: `${pages.url}/` })
      .expect(201);
    websiteId = site.body.data.id;
  });

  // Each test in a fresh rate-limit minute.
  beforeEach(() => t.clock.advance(60_000));

  afterAll(async () => {
    s3.thaw(); // whatever happened, never leave a stopped process behind (dispose kills it)
    await t?.close();
    await pages?.stop();
    await s3.dispose();
  });

  async function takeScreenshot(): Promise<string> {
    const take = await api().post(`/websites/${websiteId}/screenshot`).set(account.auth).send({});
    expect(take.status).toBe(200);
    return take.body.job_id as string;
  }

  it('frozen: a download answers 503 within S3_TIMEOUT_MS; a capture keeps its file, stores it again 1, 2, 4 s apart in the same attempt, and succeeds once the store resumes', async () => {
    const before = await waitForJob(t.url, account.auth, await takeScreenshot());
    expect(before.status).toBe('succeeded');
    puts = [];
    // The shortest lease a capture has (no login again): the store is waited out within it.
    const lease = captureRunMs(t.config, false) + LEASE_MARGIN_MS;
    let jobId: string;
    let asked: number;
    s3.freeze();
    try {
      const started = Date.now();
      // Given up on past the bound, so a hang fails here (and the store is thawed) rather than at the test's limit.
      const res = await api()
        .get(`/screenshots/${before.screenshot_id}/download`)
        .set(account.auth)
        .timeout({ response: BOUND_MS + SLACK_MS });
      const took = Date.now() - started;
      expect(res.status).toBe(503);
      expect(res.body).toEqual(UNAVAILABLE);
      expect(took).toBeLessThan(BOUND_MS + SLACK_MS); // was as long as the freeze (40–130 s measured)

      asked = Date.now();
      jobId = await takeScreenshot();
      // Three uploads time out while frozen; meanwhile the job is the same attempt, running, never failed.
      await until('three failed uploads', 40_000, () => failed(puts).length >= 3);
      const job = await t.app.get(JobRepository).findById(jobId);
      expect(job).toMatchObject({ status: 'running', attempts: 1 });
    } finally {
      s3.thaw();
    }
    const job = await waitForJob(t.url, account.auth, jobId, 40_000);
    expect(job).toMatchObject({ status: 'succeeded', error: null });
    expect(Date.now() - asked).toBeLessThan(lease); // ended well inside its attempt's lease
    expect(await t.app.get(JobRepository).findById(jobId)).toMatchObject({ attempts: 1 }); // no new render needed

    expect(failed(puts).length).toBeGreaterThanOrEqual(3);
    expect(puts[puts.length - 1].ok).toBe(true);
    for (const p of failed(puts)) {
      // Each upload waited out the bound, and no longer.
      expect(p.ended - p.started).toBeGreaterThanOrEqual(BOUND_MS - 50);
      expect(p.ended - p.started).toBeLessThan(BOUND_MS + SLACK_MS);
    }
    // Backoff between one failed upload and the next: 1 s, then 2 s, then 4 s.
    const waits = puts.slice(1, 4).map((p, i) => p.started - puts[i].ended);
    [1_000, 2_000, 4_000].forEach((expected, i) => {
      expect(waits[i]).toBeGreaterThanOrEqual(expected - 50);
      expect(waits[i]).toBeLessThan(expected + SLACK_MS);
    });
    const file = await api().get(`/screenshots/${job.screenshot_id}/download`).set(account.auth).buffer(true).parse(binary).expect(200);
    expect((file.body as Buffer).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');

    // One storage key for every try (issue 43, item 8): the uploads that timed out were of the key the row has, so
    // the ones that landed after SIGCONT only rewrote it — no object of a screenshot without a row (was one per try).
    const shot = await t.app.get(ScreenshotRepository).findByJob(jobId);
    const imageKeys = new Set(puts.map((p) => p.key).filter((key) => /\/\d+\.png$/.test(key)));
    expect([...imageKeys]).toEqual([shot!.filePath]);
    await new Promise((r) => setTimeout(r, 2_000)); // uploads held by the freeze land after SIGCONT
    const area = shot!.filePath.slice(0, shot!.filePath.lastIndexOf('/') + 1);
    const idsInBucket = new Set((await s3.keys(area)).map((key) => Number(/\/(\d+)\.[^/]+$/.exec(key)?.[1])));
    expect([...idsInBucket].sort()).toEqual([before.screenshot_id, job.screenshot_id].sort());
  }, 90_000);

  it('frozen: a cached GET /render (and its signed link) answers 503 unavailable within the bound, never 500; a hit again once the store resumes', async () => {
    const render = () =>
      api()
        .get('/render')
        .query({ url: `${pages.url}/`, cache_ttl: '600', viewport_width: '400', viewport_height: '300' })
        .set(account.auth)
        .buffer(true)
        .parse(binary)
        .timeout({ response: BOUND_MS + SLACK_MS });
    const miss = await render();
    expect({ status: miss.status, body: miss.status === 200 ? '' : String(miss.body) }).toEqual({ status: 200, body: '' });
    const json = await api()
      .get('/render')
      .query({ url: `${pages.url}/`, cache_ttl: '600', viewport_width: '400', viewport_height: '300', response_type: 'json' })
      .set(account.auth)
      .expect(200);
    const link = new URL(json.body.data.url as string);
    s3.freeze();
    try {
      for (const ask of [
        render,
        () =>
          api()
            .get(`${link.pathname}${link.search}`)
            .timeout({ response: BOUND_MS + SLACK_MS }),
      ]) {
        const started = Date.now();
        const res = await ask();
        const took = Date.now() - started;
        const body: unknown = Buffer.isBuffer(res.body) ? JSON.parse(res.body.toString()) : res.body;
        expect({ status: res.status, body }).toEqual({ status: 503, body: UNAVAILABLE }); // was 500 internal_error
        expect(took).toBeLessThan(BOUND_MS + SLACK_MS);
      }
    } finally {
      s3.thaw();
    }
    const hit = await render();
    expect(hit.status).toBe(200);
    expect(hit.headers['x-cache']).toBe('HIT');
    expect((hit.body as Buffer).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');

    // Frozen the moment the file is asked for (the render's GET sent, then SIGSTOP; a hit asks nothing before it —
    // the stream's own error tells a missing file): 503 still, not a reply that fails after it began.
    const storage = t.app.get(ScreenshotStorage);
    const open = storage.open.bind(storage);
    storage.open = (key: string) => {
      const stream = open(key);
      s3.freeze();
      return stream;
    };
    try {
      const started = Date.now();
      const res = await render();
      const body: unknown = Buffer.isBuffer(res.body) ? JSON.parse(res.body.toString()) : res.body;
      expect({ status: res.status, body }).toEqual({ status: 503, body: UNAVAILABLE });
      expect(Date.now() - started).toBeLessThan(BOUND_MS + SLACK_MS);
    } finally {
      storage.open = open;
      s3.thaw();
    }
    const again = await render();
    expect(again.status).toBe(200);
    expect(Buffer.compare(again.body as Buffer, hit.body as Buffer)).toBe(0); // whole, byte for byte
  }, 90_000);

  it('stopped for 15 s during a batch of 10 captures: none is lost, each has exactly its one screenshot, stored in the bucket', async () => {
    puts = [];
    const jobIds: string[] = [];
    for (let i = 0; i < 10; i++) jobIds.push(await takeScreenshot());
    // The store goes away as soon as the first upload begins: the batch's uploads meet the outage.
    await until('a first upload', 30_000, () => puts.length > 0);
    await s3.stop();
    const downAt = Date.now();
    await new Promise((r) => setTimeout(r, 15_000));
    await s3.start();
    const upAt = Date.now();

    const jobs = await Promise.all(jobIds.map((id) => waitForJob(t.url, account.auth, id, 40_000)));
    expect(jobs.map((j) => j.status)).toEqual(Array(10).fill('succeeded'));
    const failedDuringOutage = failed(puts).filter((p) => p.started >= downAt && p.started <= upAt);
    expect(failedDuringOutage.length).toBeGreaterThan(0); // the outage was really met
    const shots = await Promise.all(jobs.map((j) => t.app.get(ScreenshotRepository).findByJob(j.id)));
    expect(new Set(shots.map((s) => s?.id)).size).toBe(10);
    const objects = await s3.keys();
    for (const shot of shots) expect(objects).toContain(shot!.filePath);
  }, 90_000);
});
