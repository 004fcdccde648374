import { Injectable, Logger } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CaptureLoad, PageCapturer } from '../../screenshots/application/capture.port';
import { errorMessage } from '../../../shared/domain/error-message';
import { within } from '../../../shared/domain/within';
import { JobKinds } from '../../jobs/application/job-kinds';
import { JobType } from '../../jobs/domain/job';
import { JobRepository } from '../../jobs/application/ports';
import { CAPTURE_PHASES, CapturePhase, JobOutcome, Metrics, MetricsExposition, RATE_LIMIT_NAMES } from '../../../shared/metrics/metrics';

/** Captures take tens of milliseconds on a local page and up to CAPTURE_TIMEOUT_MS (30 s by default) on a slow one. */
const CAPTURE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** API answers take about a millisecond; long-poll waits (GET /jobs/{id}?wait=) and ZIP downloads run for seconds. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** A scrape must answer even when the database hangs; Prometheus' own scrape timeout is 10 s by default. */
const QUEUE_READ_TIMEOUT_MS = 2_000;

let processRegistry: Registry | null = null;

/**
 * prom-client's process metrics (CPU, memory, event loop lag, GC, handles) describe the Node process, and
 * collecting them starts monitors that can never be stopped (an event-loop delay sampler, a GC observer): so
 * they are collected once per process into a registry of their own, and every app of the process shows them.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The Metrics port on prom-client, with a registry per instance rather than prom-client's global one: the
 * tests run several apps in one process, each with its own counts. Gauges are read from their sources at
 * scrape time (collect), so nothing polls in between and a reading is never older than the scrape.
 */
@Injectable()
export class PromClientMetrics extends Metrics {
  private readonly logger = new Logger('Metrics');
  private readonly registry = new Registry();
  private readonly exposed: Registry;
  private readonly jobs: Counter<'type' | 'status'>;
  private readonly captureDuration: Histogram<'phase'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly rateLimitRejections: Counter<'limit'>;
  private readonly proxyPoolConnections: Counter<'pool_id' | 'outcome'>;

  constructor(jobRepository: JobRepository, capturer: PageCapturer, kinds: JobKinds) {
    super();
    const registers = [this.registry];
    this.jobs = new Counter({
      name: 'screenshot_jobs_total',
      help: 'Jobs that ended, by type (the job kind: screenshot, scenario, render) and outcome (succeeded, failed); retried attempts are not counted',
      labelNames: ['type', 'status'],
      registers,
    });
    this.captureDuration = new Histogram({
      name: 'screenshot_capture_duration_seconds',
      help: 'Time per phase of a capture job that produced a screenshot: navigation, settle, render, store',
      labelNames: ['phase'],
      buckets: CAPTURE_BUCKETS,
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern (unmatched for unknown paths) and status, until the answer was sent',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.proxyPoolConnections = new Counter({
      name: 'screenshot_proxy_pool_captures_total',
      help: 'Captures through a proxy of a pool, by pool id and outcome: success, or failure (the proxy could not be reached or refused its credentials)',
      labelNames: ['pool_id', 'outcome'],
      registers,
    });
    this.rateLimitRejections = new Counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests answered 429, by limit: api (per-account quota), authfail (failed authentications per address), dash and signin (dashboard, per address)',
      labelNames: ['limit'],
      registers,
    });
    // Every known series exists from the start at 0, so rate() and increase() see its first event.
    // Every declared job kind (the jobs registry).
    for (const { name: type } of kinds.all()) for (const status of ['succeeded', 'failed']) this.jobs.inc({ type, status }, 0);
    for (const phase of CAPTURE_PHASES) this.captureDuration.zero({ phase });
    for (const limit of RATE_LIMIT_NAMES) this.rateLimitRejections.inc({ limit }, 0);

    const logger = this.logger;
    const readLoad = (): CaptureLoad | null => {
      try {
        return capturer.load();
      } catch (err) {
        logger.warn(`reading the capture engine's load for /metrics failed: ${errorMessage(err)}`);
        return null;
      }
    };
    const queue: Gauge<'state'> = new Gauge({
      name: 'screenshot_queue_jobs',
      help: 'Jobs queued and running now, from the jobs table (the same in every process of a deployment)',
      labelNames: ['state'],
      registers,
      async collect() {
        try {
          const counts = await within(jobRepository.countUnfinished(), QUEUE_READ_TIMEOUT_MS, () => new Error(`no answer within ${QUEUE_READ_TIMEOUT_MS} ms`));
          queue.set({ state: 'queued' }, counts.queued);
          queue.set({ state: 'running' }, counts.running);
        } catch (err) {
          // Left out rather than stale: a missing series is what an alert on absent() or on the backlog can tell apart.
          queue.reset();
          logger.warn(`reading the job counts for /metrics failed: ${errorMessage(err)}`);
        }
      },
    });
    const browsers: Gauge<'state'> = new Gauge({
      name: 'screenshot_browsers',
      help: 'Chromium browsers of this process: busy (running at least one capture) or idle',
      labelNames: ['state'],
      registers,
      collect() {
        const load = readLoad();
        if (!load) return browsers.reset();
        browsers.set({ state: 'busy' }, load.busyBrowsers);
        browsers.set({ state: 'idle' }, load.idleBrowsers);
      },
    });
    const inFlight: Gauge = new Gauge({
      name: 'screenshot_captures_in_flight',
      help: 'Captures and scenario pages this process runs now (admitted by its capture admission)',
      registers,
      collect() {
        inFlight.set(readLoad()?.inFlight ?? 0);
      },
    });
    const waiting: Gauge = new Gauge({
      name: 'screenshot_captures_waiting',
      help: 'Captures and scenario pages of this process waiting for admission (the machine is busy or at CAPTURE_CONCURRENCY)',
      registers,
      collect() {
        waiting.set(readLoad()?.waiting ?? 0);
      },
    });
    this.exposed = Registry.merge([this.registry, processMetrics()]);
  }

  jobEnded(type: JobType, outcome: JobOutcome): void {
    this.jobs.inc({ type, status: outcome });
  }

  capturePhaseTimed(phase: CapturePhase, seconds: number): void {
    this.captureDuration.observe({ phase }, seconds);
  }

  httpRequestTimed(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  rateLimitRejected(limit: string): void {
    this.rateLimitRejections.inc({ limit });
  }

  proxyPoolUsed(poolId: number, outcome: 'success' | 'failure'): void {
    this.proxyPoolConnections.inc({ pool_id: String(poolId), outcome });
  }

  async scrape(): Promise<MetricsExposition> {
    return { contentType: this.exposed.contentType, body: await this.exposed.metrics() };
  }
}
