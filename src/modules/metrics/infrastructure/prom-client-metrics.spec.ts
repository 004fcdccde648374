import { declareJobKind, JobKinds } from '../../jobs/application/job-kinds';
import { CAPTURE_JOB_KIND } from '../../screenshots/application/capture-job-kind';
import { SCENARIO_JOB_KIND } from '../../scenarios/application/scenario-job-kind';
import { RENDER_JOB_KIND } from '../../renders/application/render-job-kind';
import { Logger } from '@nestjs/common';
import { CaptureLoad, PageCapturer } from '../../screenshots/application/capture.port';
import { JobRepository } from '../../jobs/application/ports';
import { parsePrometheusText, sampleValue } from '../../../../test/support/prometheus-text';
import { PromClientMetrics } from './prom-client-metrics';

function sources(counts: () => Promise<{ queued: number; running: number }>, load: () => CaptureLoad) {
  return [{ countUnfinished: counts } as unknown as JobRepository, { load } as unknown as PageCapturer, KINDS] as const;
}

// The real kinds, declared as their runners declare them: each one's series exists from the start.
for (const kind of [CAPTURE_JOB_KIND, SCENARIO_JOB_KIND, RENDER_JOB_KIND]) declareJobKind(kind);
const KINDS = new JobKinds();

const IDLE: CaptureLoad = { busyBrowsers: 0, idleBrowsers: 0, inFlight: 0, waiting: 0 };

describe('PromClientMetrics', () => {
  let warnings: string[];

  beforeEach(() => {
    warnings = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
  });
  afterEach(() => jest.restoreAllMocks());

  it('exposes what was recorded, and the gauges as their sources read at scrape time, as valid Prometheus text', async () => {
    let load: CaptureLoad = { busyBrowsers: 1, idleBrowsers: 1, inFlight: 3, waiting: 2 };
    const metrics = new PromClientMetrics(
      ...sources(
        async () => ({ queued: 7, running: 2 }),
        () => load,
      ),
    );
    metrics.jobEnded('screenshot', 'succeeded');
    metrics.jobEnded('screenshot', 'succeeded');
    metrics.jobEnded('scenario', 'failed');
    metrics.capturePhaseTimed('navigation', 0.2);
    metrics.capturePhaseTimed('store', 0.004);
    metrics.httpRequestTimed('GET', '/screenshots/:id', 200, 0.003);
    metrics.rateLimitRejected('api');

    const { contentType, body } = await metrics.scrape();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusText(body);
    expect(sampleValue(families, 'screenshot_jobs_total', { type: 'screenshot', status: 'succeeded' })).toBe(2);
    expect(sampleValue(families, 'screenshot_jobs_total', { type: 'scenario', status: 'failed' })).toBe(1);
    expect(sampleValue(families, 'screenshot_jobs_total', { type: 'scenario', status: 'succeeded' })).toBe(0);
    expect(sampleValue(families, 'screenshot_jobs_total', { type: 'render', status: 'failed' })).toBe(0);
    expect(sampleValue(families, 'screenshot_capture_duration_seconds_count', { phase: 'navigation' })).toBe(1);
    expect(sampleValue(families, 'screenshot_capture_duration_seconds_bucket', { phase: 'navigation', le: '0.25' })).toBe(1);
    expect(sampleValue(families, 'screenshot_capture_duration_seconds_bucket', { phase: 'navigation', le: '0.1' })).toBe(0);
    expect(sampleValue(families, 'screenshot_capture_duration_seconds_count', { phase: 'settle' })).toBe(0);
    expect(sampleValue(families, 'http_request_duration_seconds_count', { method: 'GET', route: '/screenshots/:id', status: '200' })).toBe(1);
    expect(sampleValue(families, 'rate_limit_rejections_total', { limit: 'api' })).toBe(1);
    expect(sampleValue(families, 'rate_limit_rejections_total', { limit: 'authfail' })).toBe(0);
    expect(sampleValue(families, 'screenshot_queue_jobs', { state: 'queued' })).toBe(7);
    expect(sampleValue(families, 'screenshot_queue_jobs', { state: 'running' })).toBe(2);
    expect(sampleValue(families, 'screenshot_browsers', { state: 'busy' })).toBe(1);
    expect(sampleValue(families, 'screenshot_captures_in_flight')).toBe(3);
    expect(sampleValue(families, 'screenshot_captures_waiting')).toBe(2);
    expect(families.get('process_cpu_user_seconds_total')?.type).toBe('counter');
    expect(families.get('nodejs_eventloop_lag_seconds')?.type).toBe('gauge');

    load = IDLE;
    expect(sampleValue(parsePrometheusText((await metrics.scrape()).body), 'screenshot_captures_in_flight')).toBe(0);
  });

  it('two instances in one process keep their own counts and both show the process metrics', async () => {
    const a = new PromClientMetrics(
      ...sources(
        async () => ({ queued: 0, running: 0 }),
        () => IDLE,
      ),
    );
    const b = new PromClientMetrics(
      ...sources(
        async () => ({ queued: 0, running: 0 }),
        () => IDLE,
      ),
    );
    a.jobEnded('screenshot', 'failed');
    const [fromA, fromB] = await Promise.all([a.scrape(), b.scrape()]).then((all) => all.map((s) => parsePrometheusText(s.body)));
    expect(sampleValue(fromA, 'screenshot_jobs_total', { type: 'screenshot', status: 'failed' })).toBe(1);
    expect(sampleValue(fromB, 'screenshot_jobs_total', { type: 'screenshot', status: 'failed' })).toBe(0);
    expect(fromB.has('process_resident_memory_bytes') || fromB.has('nodejs_heap_size_total_bytes')).toBe(true);
  });

  it('a scrape answers when the jobs table cannot be read: the queue gauge is left out and the failure logged', async () => {
    let fail = false;
    const metrics = new PromClientMetrics(
      ...sources(
        async () => {
          if (fail) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
          return { queued: 4, running: 1 };
        },
        () => {
          throw new Error('pool gone');
        },
      ),
    );
    expect(sampleValue(parsePrometheusText((await metrics.scrape()).body), 'screenshot_queue_jobs', { state: 'queued' })).toBe(4);
    fail = true;
    const families = parsePrometheusText((await metrics.scrape()).body);
    expect(families.get('screenshot_queue_jobs')?.samples).toEqual([]);
    expect(families.get('screenshot_browsers')?.samples).toEqual([]);
    expect(sampleValue(families, 'screenshot_jobs_total', { type: 'screenshot', status: 'succeeded' })).toBe(0);
    expect(warnings.join('\n')).toMatch(/job counts.*ECONNREFUSED/);
  });

  it('a jobs table that does not answer holds the scrape up for 2 s at most', async () => {
    jest.useFakeTimers();
    try {
      const metrics = new PromClientMetrics(
        ...sources(
          () => new Promise(() => undefined),
          () => IDLE,
        ),
      );
      const scraped = metrics.scrape();
      await jest.advanceTimersByTimeAsync(2_000);
      const families = parsePrometheusText((await scraped).body);
      expect(families.get('screenshot_queue_jobs')?.samples).toEqual([]);
      expect(warnings.join('\n')).toMatch(/no answer within 2000 ms/);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('parsePrometheusText (the tests’ reader)', () => {
  it('refuses what is not the text format', () => {
    expect(() => parsePrometheusText('# TYPE a counter\na 1\n')).not.toThrow();
    expect(() => parsePrometheusText('a 1\n')).toThrow(/undeclared/);
    expect(() => parsePrometheusText('# TYPE a counter\na{b="1} 1\n')).toThrow(/malformed labels|not a sample/);
    expect(() => parsePrometheusText('# TYPE a counter\na one\n')).toThrow(/not a number/);
    expect(() => parsePrometheusText('# TYPE a counter\n# TYPE a counter\n')).toThrow(/twice/);
    expect(() => parsePrometheusText('# TYPE a counter\na{b="1"} 1\na{b="1"} 2\n')).toThrow(/twice/);
  });
});
