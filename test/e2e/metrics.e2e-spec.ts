import { ServerResponse } from 'node:http';
import request from 'supertest';
import { PageServer, solidPage } from '../support/page-server';
import { waitForJob } from '../support/jobs';
import { MetricFamily, parsePrometheusText, sampleValue } from '../support/prometheus-text';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * GET /metrics (issue 18, "Prometheus metrics"): Prometheus text, a real capture counted and timed per phase,
 * route patterns as labels, off every rate limit, and METRICS_TOKEN.
 */

const PHASES = ['navigation', 'settle', 'render', 'store'];
const UNAUTHORIZED = { success: false, error: 'Unauthorized', code: 'unauthorized' };

async function scrape(t: TestApp, headers: Record<string, string> = {}): Promise<Map<string, MetricFamily>> {
  const res = await request(t.url).get('/metrics').set(headers).expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4; charset=utf-8$/);
  return parsePrometheusText(res.text);
}

/** Scrapes until `done` holds (or fails after 10 s): a job's end is counted just after its commit, which a client may see first. */
async function scrapeUntil(t: TestApp, done: (families: Map<string, MetricFamily>) => boolean): Promise<Map<string, MetricFamily>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const families = await scrape(t);
    if (done(families) || Date.now() > deadline) return families;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('GET /metrics', () => {
  describe('without METRICS_TOKEN', () => {
    let t: TestApp;
    let pages: PageServer;
    const held: ServerResponse[] = [];

    beforeAll(async () => {
      pages = await new PageServer({
        '/teal': solidPage('rgb(0,128,128)'),
        // Answered only when the test says so: the capture stays in flight meanwhile.
        '/held': (_req, res) => void held.push(res),
      }).start();
      t = await startTestApp();
    });
    afterAll(async () => {
      for (const res of held.splice(0)) res.end();
      await t?.close();
      await pages?.stop();
    });

    it('is open, parses as Prometheus text and has every metric of the issue with its type, the process metrics included', async () => {
      const families = await scrape(t);
      const types = Object.fromEntries([...families.values()].map((f) => [f.name, f.type]));
      expect(types).toMatchObject({
        screenshot_jobs_total: 'counter',
        screenshot_capture_duration_seconds: 'histogram',
        screenshot_queue_jobs: 'gauge',
        screenshot_browsers: 'gauge',
        screenshot_captures_in_flight: 'gauge',
        screenshot_captures_waiting: 'gauge',
        http_request_duration_seconds: 'histogram',
        rate_limit_rejections_total: 'counter',
        process_cpu_user_seconds_total: 'counter',
        process_start_time_seconds: 'gauge',
        nodejs_heap_size_used_bytes: 'gauge',
        nodejs_eventloop_lag_seconds: 'gauge',
      });
      expect(sampleValue(families, 'screenshot_queue_jobs', { state: 'queued' })).toBe(0);
      expect(sampleValue(families, 'screenshot_queue_jobs', { state: 'running' })).toBe(0);
    });

    it('a real capture: screenshot_jobs_total{type="screenshot",status="succeeded"} goes up by one and each phase is timed once', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const site = await request(t.url)
        .post('/websites')
        .set(account.auth)
        .send({ name: 'teal', url: `${pages.url}/teal` })
        .expect(201);
      const before = await scrape(t);
      const succeeded = (families: Map<string, MetricFamily>) => sampleValue(families, 'screenshot_jobs_total', { type: 'screenshot', status: 'succeeded' });
      const phaseCount = (families: Map<string, MetricFamily>, phase: string) => sampleValue(families, 'screenshot_capture_duration_seconds_count', { phase });
      const phaseSum = (families: Map<string, MetricFamily>, phase: string) =>
        sampleValue(families, 'screenshot_capture_duration_seconds_sum', { phase }) ?? NaN;
      expect(succeeded(before)).toBe(0);
      for (const phase of PHASES) expect(phaseCount(before, phase)).toBe(0);

      const take = await request(t.url).post(`/websites/${site.body.data.id}/screenshot`).set(account.auth).expect(200);
      const job = await waitForJob(t.url, account.auth, take.body.job_id);
      expect(job.status).toBe('succeeded');

      const after = await scrapeUntil(t, (families) => succeeded(families) === 1);
      expect(succeeded(after)).toBe(1);
      expect(sampleValue(after, 'screenshot_jobs_total', { type: 'screenshot', status: 'failed' })).toBe(0);
      for (const phase of PHASES) {
        expect({ phase, count: phaseCount(after, phase) }).toEqual({ phase, count: 1 });
        expect({ phase, inf: sampleValue(after, 'screenshot_capture_duration_seconds_bucket', { phase, le: '+Inf' }) }).toEqual({ phase, inf: 1 });
      }
      // Navigating to a page and rendering it take time; nothing is counted twice or as negative.
      expect(phaseSum(after, 'navigation')).toBeGreaterThan(0);
      expect(phaseSum(after, 'render')).toBeGreaterThan(0);
      for (const phase of PHASES) expect(phaseSum(after, phase)).toBeGreaterThanOrEqual(0);
      expect(phaseSum(after, 'navigation') + phaseSum(after, 'settle') + phaseSum(after, 'render')).toBeLessThan(30);

      // The browser that took it is up and idle; nothing runs or waits any more.
      expect(sampleValue(after, 'screenshot_browsers', { state: 'idle' })).toBeGreaterThanOrEqual(1);
      expect(sampleValue(after, 'screenshot_browsers', { state: 'busy' })).toBe(0);
      expect(sampleValue(after, 'screenshot_captures_in_flight')).toBe(0);
      expect(sampleValue(after, 'screenshot_queue_jobs', { state: 'queued' })).toBe(0);
      expect(sampleValue(after, 'screenshot_queue_jobs', { state: 'running' })).toBe(0);
    });

    it('while a capture runs, the gauges show it: a running job, a busy browser, a capture in flight', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2031-03-01T09:00:00Z');
      const site = await request(t.url)
        .post('/websites')
        .set(account.auth)
        .send({ name: 'held', url: `${pages.url}/held` })
        .expect(201);
      const take = await request(t.url).post(`/websites/${site.body.data.id}/screenshot`).set(account.auth).expect(200);
      const running = await scrapeUntil(t, (families) => held.length === 1 && sampleValue(families, 'screenshot_captures_in_flight') === 1);
      expect(sampleValue(running, 'screenshot_captures_in_flight')).toBe(1);
      expect(sampleValue(running, 'screenshot_queue_jobs', { state: 'running' })).toBe(1);
      expect(sampleValue(running, 'screenshot_queue_jobs', { state: 'queued' })).toBe(0);
      expect(sampleValue(running, 'screenshot_browsers', { state: 'busy' })).toBe(1);

      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage('rgb(0,0,128)'));
      expect((await waitForJob(t.url, account.auth, take.body.job_id)).status).toBe('succeeded');
      // The job ends with its screenshot's commit; the lease's context is closed right after, off the job's path, so
      // the browser turns idle a moment later: both are waited for (10 s at most), then both asserted.
      const done = await scrapeUntil(
        t,
        (families) =>
          sampleValue(families, 'screenshot_queue_jobs', { state: 'running' }) === 0 && sampleValue(families, 'screenshot_browsers', { state: 'busy' }) === 0,
      );
      expect(sampleValue(done, 'screenshot_queue_jobs', { state: 'running' })).toBe(0);
      expect(sampleValue(done, 'screenshot_browsers', { state: 'busy' })).toBe(0);
    });

    it('times requests by route pattern, never by the path asked for; unknown paths share one label', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2031-03-01T10:00:00Z');
      await request(t.url).get('/screenshots/987654').set(account.auth).expect(404);
      await request(t.url).get('/no/such/route/4711').expect(404);
      await request(t.url).get('/health').expect(200);
      const families = await scrape(t);
      const routes = new Set(families.get('http_request_duration_seconds')!.samples.map((s) => s.labels.route));
      expect(sampleValue(families, 'http_request_duration_seconds_count', { method: 'GET', route: '/screenshots/:id', status: '404' })).toBe(1);
      expect(sampleValue(families, 'http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
      expect(sampleValue(families, 'http_request_duration_seconds_count', { method: 'GET', route: '/health', status: '200' })).toBeGreaterThanOrEqual(1);
      expect([...routes].filter((route) => /\d/.test(route) || route.includes('no/such'))).toEqual([]);
    });

    it('counts no rate limit, carries no X-RateLimit headers and needs no API token, but counts the 429s of others', async () => {
      const account = await t.createAccount({ plan: 'starter' }); // 5 requests per minute
      t.clock.set('2031-03-01T11:00:05Z');
      for (let i = 0; i < 8; i++) {
        const res = await request(t.url).get('/metrics').set(account.auth).expect(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
        expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
      }
      const first = await request(t.url).get('/test').set(account.auth).expect(200);
      expect(first.headers['x-ratelimit-remaining']).toBe('4');

      const rejected = (families: Map<string, MetricFamily>) => sampleValue(families, 'rate_limit_rejections_total', { limit: 'api' });
      const before = rejected(await scrape(t));
      for (let i = 0; i < 4; i++) await request(t.url).get('/test').set(account.auth).expect(200);
      await request(t.url).get('/test').set(account.auth).expect(429);
      expect(rejected(await scrape(t))).toBe(before! + 1);
    });

    it('is not in the OpenAPI document', async () => {
      const doc = await request(t.url).get('/openapi.json').expect(200);
      expect(Object.keys(doc.body.paths)).not.toContain('/metrics');
    });
  });

  describe('with METRICS_TOKEN set', () => {
    const token = 'metrics-7f3c9a1e5b2d4f60a8c1e3b5d7f9a2c4';
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({ env: { METRICS_TOKEN: token } });
    });
    afterAll(async () => t?.close());

    it('a missing or wrong bearer token is 401 with the usual error body; the right one is 200', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const refused = [
        {},
        { Authorization: `Bearer ${token.slice(0, -1)}` },
        { Authorization: `Bearer ${token}0` },
        { Authorization: token },
        { Authorization: `Basic ${Buffer.from(`prometheus:${token}`).toString('base64')}` },
        account.auth, // an API token is not the metrics token
      ];
      for (const headers of refused) {
        const res = await request(t.url).get('/metrics').set(headers);
        expect({ headers, status: res.status, body: res.body }).toEqual({ headers, status: 401, body: UNAUTHORIZED });
        expect(res.text).not.toContain('screenshot_jobs_total');
      }
      const families = await scrape(t, { Authorization: `Bearer ${token}` });
      expect(families.get('screenshot_jobs_total')?.type).toBe('counter');
    });

    it('wrong tokens are not the per-address failed-authentication limit: a scraper with a stale token is never locked out', async () => {
      t.clock.set('2031-03-01T12:00:05Z');
      for (let i = 0; i < 35; i++) await request(t.url).get('/metrics').set({ Authorization: 'Bearer stale-token-0123456789' }).expect(401);
      await scrape(t, { Authorization: `Bearer ${token}` });
    });
  });
});
