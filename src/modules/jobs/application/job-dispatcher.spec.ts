import { Logger } from '@nestjs/common';
import { CaptureFailure } from '../../screenshots/application/capture.port';
import { Delivery, EnqueueOptions, JobHandler, JobTransport } from './job-transport';
import { AppConfig } from '../../../config/app-config';
import { FakeClock } from '../../../../test/support/fake-clock';
import { JobProps, JobStatus, JobType } from '../domain/job';
import { JobAttemptScope } from './job-attempt-scope';
import { declareJobKind, endedIf, JobKind, JobKinds, JobTypeHandler } from './job-kinds';
import { CAPTURE_JOB_KIND } from '../../screenshots/application/capture-job-kind';
import { SCENARIO_JOB_KIND } from '../../scenarios/application/scenario-job-kind';
import { JobDispatcher, RECORD_RETRY_BUDGET_MS, SWEEP_INTERVAL_MS } from './job-dispatcher';
import { InfrastructureFailure } from './job-failure';
import { JobCursor, JobRepository, NewJob, RunningCutoffs, StaleCutoffs } from './ports';
import { RecordingMetrics } from '../../../../test/support/recording-metrics';

/**
 * The jobs table in memory, with the port's rules: claim takes a queued job or a running one past its
 * cutoff; inside an attempt's scope writes need that attempt to hold the job (typeorm-job.repository.spec.ts
 * checks the SQL adapter against the same rules).
 */
class MemoryJobs extends JobRepository {
  readonly rows = new Map<string, JobProps>();
  readonly staleQueries: StaleCutoffs[] = [];

  add(id: string, patch: Partial<JobProps> = {}): JobProps {
    const job: JobProps = {
      id,
      type: 'screenshot',
      accountId: 1,
      websiteId: 1,
      status: 'queued',
      source: 'api',
      options: {},
      idempotencyKey: null,
      attempts: 0,
      error: null,
      resultId: null,
      scenarioId: null,
      scheduleId: null,
      result: null,
      createdAt: new Date('2030-01-01T00:00:00Z'),
      startedAt: null,
      finishedAt: null,
      ...patch,
    };
    this.rows.set(id, job);
    return job;
  }

  get(id: string): JobProps {
    const job = this.rows.get(id);
    if (!job) throw new Error(`no job ${id}`);
    return job;
  }

  async createOrGetIdempotent(job: NewJob) {
    return { job: this.add(job.id, job), created: true };
  }
  async findById(id: string) {
    return this.rows.get(id) ?? null;
  }
  async findOwned(accountId: number, id: string) {
    const job = this.rows.get(id);
    return job && job.accountId === accountId ? job : null;
  }
  async createMany(jobs: NewJob[]) {
    for (const job of jobs) this.add(job.id, job);
  }
  async findMany(ids: string[]) {
    return ids.flatMap((id) => this.rows.get(id) ?? []);
  }
  async list() {
    return { items: [...this.rows.values()], total: this.rows.size };
  }
  async claim(id: string, now: Date, runningStartedBefore: RunningCutoffs) {
    const job = this.rows.get(id);
    const lapsed = job?.status === 'running' && (job.startedAt === null || job.startedAt <= runningStartedBefore[job.type]);
    if (!job || (job.status !== 'queued' && !lapsed)) return null;
    Object.assign(job, { status: 'running', attempts: job.attempts + 1, startedAt: now, error: null });
    return { ...job };
  }
  private holds(id: string, statuses: JobStatus[]): JobProps | null {
    const job = this.rows.get(id);
    const attempt = JobAttemptScope.attemptOf(id);
    if (!job) return null;
    if (attempt !== null) return job.status === 'running' && job.attempts === attempt ? job : null;
    return statuses.includes(job.status) ? job : null;
  }
  async requeue(id: string) {
    const job = this.holds(id, ['running']);
    if (job) job.status = 'queued';
    return Boolean(job);
  }
  async fail(id: string, error: string, now: Date) {
    const job = this.holds(id, ['queued', 'running']);
    if (job) Object.assign(job, { status: 'failed', error, finishedAt: now });
    return Boolean(job);
  }
  async succeed(id: string, resultId: number | null, now: Date) {
    const job = this.holds(id, ['running']);
    if (job) Object.assign(job, { status: 'succeeded', resultId, error: null, finishedAt: now });
    return Boolean(job);
  }
  async replaceOptions(id: string, options: JobProps['options']) {
    const job = this.rows.get(id);
    if (job) job.options = options;
  }

  async saveResult(id: string, result: unknown) {
    const job = this.holds(id, ['running']);
    if (job) job.result = result;
    return Boolean(job);
  }
  async delete(id: string) {
    this.rows.delete(id);
  }
  async cancelQueued() {
    return false;
  }
  async cancelQueuedForWebsite() {}
  async findStale(cutoffs: StaleCutoffs, after: JobCursor | null, limit: number) {
    this.staleQueries.push(cutoffs);
    // In (createdAt, id) order, compared without building strings: the paging tests page through 10,000 rows.
    const before = (a: JobCursor, b: JobCursor) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    return [...this.rows.values()]
      .filter(
        (job) =>
          (job.status === 'queued' && job.createdAt < cutoffs.queuedBefore && (job.startedAt === null || job.startedAt < cutoffs.queuedBefore)) ||
          (job.status === 'running' && (job.startedAt === null || job.startedAt <= cutoffs.runningStartedBefore[job.type])),
      )
      .filter((job) => !after || before(after, job) < 0)
      .sort(before)
      .slice(0, limit)
      .map((job) => ({ ...job }));
  }
  async requeueAllRunning() {
    const running = [...this.rows.values()].filter((job) => job.status === 'running');
    for (const job of running) job.status = 'queued';
    return running.length;
  }
  async countUnfinished() {
    const jobs = [...this.rows.values()];
    return { queued: jobs.filter((job) => job.status === 'queued').length, running: jobs.filter((job) => job.status === 'running').length };
  }
}

class RecordingTransport extends JobTransport {
  readonly enqueued: { jobId: string; options: EnqueueOptions }[] = [];
  handler: JobHandler | null = null;
  failEnqueue = false;

  async enqueue(jobId: string, options: EnqueueOptions = {}) {
    if (this.failEnqueue) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    this.enqueued.push({ jobId, options });
  }
  /** What the dispatcher asked of the transport at shutdown, in order, with the jobs' statuses at that moment. */
  readonly calls: string[] = [];
  lost: (() => void) | null = null;
  consume(handler: JobHandler) {
    this.handler = handler;
  }
  async stopTaking() {
    this.calls.push('stopTaking');
  }
  async handBack() {
    this.calls.push('handBack');
    return 1;
  }
  onDeliveriesLost(listener: () => void) {
    this.lost = listener;
  }
  async close() {}
  ids(): string[] {
    return this.enqueued.map((e) => e.jobId);
  }
}

const START = new Date('2030-01-01T12:00:00Z');
const ago = (ms: number) => new Date(START.getTime() - ms);
/** The real kinds' declarations (their time limits make the leases below); `mystery` is one no runner handles. */
const KINDS: Record<string, JobKind> = { screenshot: CAPTURE_JOB_KIND, scenario: SCENARIO_JOB_KIND };
const MYSTERY: JobKind = { name: 'mystery', label: 'mystery', maxRunMs: () => 1_000, events: null };
declareJobKind(CAPTURE_JOB_KIND);
declareJobKind(SCENARIO_JOB_KIND);
const SETTINGS = { captureTimeoutMs: 30_000, scenarioTimeoutMs: 120_000, captureConcurrency: 2, shutdownGraceMs: 15_000 };
/**
 * Lease = longest run + 60 s margin: captures 30 + 120 + 30 + 60 s (one login again with a saved session, and the
 * capture again: capture-route.ts), scenario runs 120 + 30 + 60 s.
 */
const CAPTURE_LEASE_MS = 240_000;
const SCENARIO_LEASE_MS = 210_000;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('JobDispatcher', () => {
  let jobs: MemoryJobs;
  let transport: RecordingTransport;
  let clock: FakeClock;
  let errors: string[];
  let handlers: JobKinds;
  let metrics: RecordingMetrics;
  const on = (type: JobType, handle: JobTypeHandler['handle']) => handlers.register(KINDS[type] ?? MYSTERY, { handle });

  function dispatcher(config: Partial<AppConfig> = {}): JobDispatcher {
    const full = { role: 'all', databaseUrl: 'postgres://db/jobs', ...SETTINGS, ...config } as AppConfig;
    return new JobDispatcher(jobs, transport, clock, full, handlers, metrics);
  }

  beforeEach(() => {
    jobs = new MemoryJobs();
    transport = new RecordingTransport();
    clock = new FakeClock();
    clock.set(START);
    errors = [];
    handlers = new JobKinds();
    metrics = new RecordingMetrics();
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => void errors.push(String(message)));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  describe('the sweep for jobs no transport carries (finding 1)', () => {
    it('hands over queued jobs older than 30 s and running jobs past their lease; leaves the rest alone', async () => {
      jobs.add('queued-lost', { createdAt: ago(31_000) });
      jobs.add('queued-young', { createdAt: ago(29_000) });
      jobs.add('capture-lapsed', { status: 'running', attempts: 1, createdAt: ago(300_000), startedAt: ago(CAPTURE_LEASE_MS) });
      // Each kind has its own lease: this capture is still live where a scenario run would have lapsed.
      jobs.add('capture-live', { status: 'running', attempts: 1, createdAt: ago(300_000), startedAt: ago(CAPTURE_LEASE_MS - 1_000) });
      jobs.add('scenario-live', { type: 'scenario', status: 'running', attempts: 2, createdAt: ago(300_000), startedAt: ago(SCENARIO_LEASE_MS - 1_000) });
      jobs.add('scenario-lapsed', { type: 'scenario', status: 'running', attempts: 2, createdAt: ago(300_000), startedAt: ago(SCENARIO_LEASE_MS) });
      jobs.add('done', { status: 'succeeded', attempts: 1, createdAt: ago(600_000), startedAt: ago(600_000) });
      jobs.add('gave-up', { status: 'failed', attempts: 3, createdAt: ago(600_000), startedAt: ago(600_000) });

      expect(await dispatcher().sweep()).toBe(3);

      expect(transport.enqueued).toEqual([
        // Each under its account, so the hand-over keeps the round-robin and the cap of slots (fair-slots.md).
        { jobId: 'capture-lapsed', options: { key: 'expired:1', accountId: 1 } },
        { jobId: 'scenario-lapsed', options: { key: 'expired:2', accountId: 1 } },
        { jobId: 'queued-lost', options: { accountId: 1 } },
      ]);
    });

    it('pages through any number of stale jobs: none is left behind by a cap', async () => {
      for (let i = 0; i < 10_050; i++) jobs.add(`job-${String(i).padStart(5, '0')}`, { createdAt: ago(60_000 + (i % 7)) });
      expect(await dispatcher().sweep()).toBe(10_050);
      expect(new Set(transport.ids()).size).toBe(10_050);
    });

    it('at start every queued job is handed over, past the old cap of 10,000, and the transport is consumed', async () => {
      for (let i = 0; i < 10_001; i++) jobs.add(`job-${i}`, { createdAt: START });
      await dispatcher().onApplicationBootstrap();
      expect(transport.handler).not.toBeNull();
      expect(new Set(transport.ids()).size).toBe(10_001);
    });

    it('runs every SWEEP_INTERVAL_MS on worker instances, using the clock for what counts as old', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      const worker = dispatcher({ role: 'worker' });
      await worker.onApplicationBootstrap();
      jobs.add('written-then-the-api-died', { createdAt: START });
      clock.advance(31_000);
      await jest.advanceTimersByTimeAsync(SWEEP_INTERVAL_MS);
      expect(transport.ids()).toEqual(['written-then-the-api-died']);
      expect(jobs.staleQueries.at(-1)?.queuedBefore).toEqual(new Date(START.getTime() + 1_000));
      await worker.onModuleDestroy();
    });

    it('api-only instances neither consume nor sweep', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      jobs.add('lost', { createdAt: ago(60_000) });
      const api = dispatcher({ role: 'api' });
      await api.onApplicationBootstrap();
      await jest.advanceTimersByTimeAsync(3 * SWEEP_INTERVAL_MS);
      expect(transport.handler).toBeNull();
      expect(transport.enqueued).toEqual([]);
      await api.onModuleDestroy();
    });

    it('a failing sweep is logged and the next one runs', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      const worker = dispatcher();
      await worker.onApplicationBootstrap();
      jobs.add('lost', { createdAt: ago(60_000) });
      transport.failEnqueue = true;
      await jest.advanceTimersByTimeAsync(SWEEP_INTERVAL_MS);
      expect(errors.join('\n')).toMatch(/sweeping for lost jobs failed/);
      transport.failEnqueue = false;
      await jest.advanceTimersByTimeAsync(SWEEP_INTERVAL_MS);
      expect(transport.ids()).toEqual(['lost']);
      await worker.onModuleDestroy();
    });

    it('embedded mode (one process on its SQLite file): a job left running by the previous process is taken back at start', async () => {
      jobs.add('mid-capture', { status: 'running', attempts: 1, createdAt: ago(5_000), startedAt: ago(4_000) });
      await dispatcher({ databaseUrl: null }).onApplicationBootstrap();
      expect(jobs.get('mid-capture').status).toBe('queued');
      expect(transport.ids()).toEqual(['mid-capture']);
    });

    it('scaled out: a job another worker is running is not touched at start', async () => {
      jobs.add('elsewhere', { status: 'running', attempts: 1, createdAt: ago(5_000), startedAt: ago(4_000) });
      await dispatcher().onApplicationBootstrap();
      expect(jobs.get('elsewhere').status).toBe('running');
      expect(transport.enqueued).toEqual([]);
    });

    it('a retry that cannot be enqueued leaves the job queued, where the sweep finds it', async () => {
      const d = dispatcher();
      on('screenshot', async () => {
        throw new CaptureFailure('infrastructure', 'Browser disconnected during capture');
      });
      jobs.add('j', { createdAt: ago(60_000) });
      transport.failEnqueue = true;
      await expect(d.dispatch('j')).rejects.toThrow(/ECONNREFUSED/);
      expect(jobs.get('j')).toMatchObject({ status: 'queued', attempts: 1 });
      transport.failEnqueue = false;
      clock.advance(31_000);
      await d.sweep();
      expect(transport.ids()).toEqual(['j']);
    });
  });

  describe('shutting down: the rest is handed back after the grace (issue 27)', () => {
    /** A worker whose handler runs until `finish` is resolved, then records success (as a late attempt would). */
    async function busyWorker(finish: Promise<void>) {
      const worker = dispatcher({ role: 'worker' });
      on('screenshot', async (job) => {
        await finish;
        await jobs.succeed(job.id, 5, clock.now());
      });
      await worker.onApplicationBootstrap();
      jobs.add('j');
      const handled = transport.handler!('j', { redelivered: false, priority: 'batch' });
      await new Promise((r) => setImmediate(r));
      expect(jobs.get('j')).toMatchObject({ status: 'running', attempts: 1 });
      return { worker, handled };
    }

    it('stops taking jobs first; a job that ends within the grace ends here and nothing is queued again', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      const finish = deferred();
      const { worker, handled } = await busyWorker(finish.promise);
      const stopping = worker.onModuleDestroy();
      await jest.advanceTimersByTimeAsync(14_000);
      expect(transport.calls).toEqual(['stopTaking']);
      finish.resolve();
      await handled;
      await stopping;
      expect(jobs.get('j')).toMatchObject({ status: 'succeeded', attempts: 1, resultId: 5 });
      expect(transport.calls).toEqual(['stopTaking', 'handBack']);
    });

    it('a job still running when the grace is over is queued again, then its delivery handed back; its late end changes nothing', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      const finish = deferred();
      const { worker, handled } = await busyWorker(finish.promise);
      let statusAtHandBack = '';
      transport.handBack = async () => {
        statusAtHandBack = jobs.get('j').status;
        transport.calls.push('handBack');
        return 1;
      };
      const stopping = worker.onModuleDestroy();
      await jest.advanceTimersByTimeAsync(14_999);
      expect(transport.calls).toEqual(['stopTaking']);
      await jest.advanceTimersByTimeAsync(1);
      await stopping;
      expect(transport.calls).toEqual(['stopTaking', 'handBack']);
      expect(statusAtHandBack).toBe('queued');
      expect(jobs.get('j')).toMatchObject({ status: 'queued', attempts: 1 });
      finish.resolve();
      await handled;
      expect(jobs.get('j')).toMatchObject({ status: 'queued', attempts: 1, resultId: null });
    });

    it('a job another worker took over during the grace is left to it', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      const { worker } = await busyWorker(new Promise(() => undefined));
      Object.assign(jobs.get('j'), { attempts: 2, startedAt: START }); // claimed elsewhere after this lease ran out
      const stopping = worker.onModuleDestroy();
      await jest.advanceTimersByTimeAsync(15_000);
      await stopping;
      expect(jobs.get('j')).toMatchObject({ status: 'running', attempts: 2 });
      expect(transport.calls).toEqual(['stopTaking', 'handBack']);
    });

    it('a claim that lands after the grace ran out does not start the job: it is queued again', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      const worker = dispatcher({ role: 'worker' });
      const handler = jest.fn(async () => undefined);
      on('screenshot', handler);
      await worker.onApplicationBootstrap();
      jobs.add('j');
      const claimed = deferred();
      const claim = jobs.claim.bind(jobs);
      jobs.claim = async (...args) => {
        await claimed.promise;
        return claim(...args);
      };
      const handled = transport.handler!('j', { redelivered: false, priority: 'batch' });
      const stopping = worker.onModuleDestroy();
      await jest.advanceTimersByTimeAsync(15_000);
      await stopping;
      claimed.resolve();
      await handled;
      expect(handler).not.toHaveBeenCalled();
      expect(jobs.get('j')).toMatchObject({ status: 'queued', attempts: 1 });
    });

    it('when the transport lost its deliveries, every queued job is handed over at once, however young', async () => {
      const worker = dispatcher({ role: 'worker' });
      await worker.onApplicationBootstrap();
      jobs.add('just-queued', { createdAt: START });
      jobs.add('elsewhere', { status: 'running', attempts: 1, createdAt: ago(5_000), startedAt: ago(4_000) });
      transport.lost!();
      await new Promise((r) => setImmediate(r));
      expect(transport.enqueued).toEqual([{ jobId: 'just-queued', options: { accountId: 1 } }]);
      await worker.onModuleDestroy();
      transport.lost!();
      await new Promise((r) => setImmediate(r));
      expect(transport.enqueued).toHaveLength(1);
    });
  });

  describe('recording an outcome through a database outage', () => {
    it('a failure that cannot be recorded is retried until the database answers, then the job is requeued at once', async () => {
      const d = dispatcher();
      on('screenshot', async () => {
        throw new CaptureFailure('infrastructure', 'Browser disconnected during capture');
      });
      jobs.add('j', { createdAt: ago(1_000) });
      const requeue = jobs.requeue.bind(jobs);
      let outage = 3;
      jest.spyOn(jobs, 'requeue').mockImplementation(async (id) => {
        if (outage-- > 0) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
        return requeue(id);
      });
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      const dispatched = d.dispatch('j');
      await jest.advanceTimersByTimeAsync(1_000 + 2_000 + 4_000);
      await dispatched;
      expect(jobs.get('j')).toMatchObject({ status: 'queued', attempts: 1 });
      expect(transport.ids()).toEqual(['j']);
    });

    it('gives up after RECORD_RETRY_BUDGET_MS, leaving the job to the sweep', async () => {
      const d = dispatcher();
      on('screenshot', async () => {
        throw new CaptureFailure('page', 'net::ERR_NAME_NOT_RESOLVED');
      });
      jobs.add('j', { createdAt: ago(1_000) });
      jest.spyOn(jobs, 'fail').mockRejectedValue(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      const dispatched = d.dispatch('j').catch((err: Error) => err);
      await jest.advanceTimersByTimeAsync(RECORD_RETRY_BUDGET_MS + 5_000);
      expect(await dispatched).toBeInstanceOf(Error);
      expect(jobs.get('j')).toMatchObject({ status: 'running' });
    });
  });

  describe('one attempt at a time (finding 2)', () => {
    it('a delivery while a live attempt holds the job is skipped: the handler runs once', async () => {
      const d = dispatcher();
      const release = deferred();
      let runs = 0;
      on('screenshot', async () => {
        runs += 1;
        await release.promise;
      });
      jobs.add('j');
      const first = d.dispatch('j');
      await d.dispatch('j'); // e.g. the re-enqueue at a worker's start, while a delayed Bull retry runs it
      await d.dispatch('j', { redelivered: false, priority: 'batch' });
      release.resolve();
      await first;
      expect(runs).toBe(1);
      expect(jobs.get('j').attempts).toBe(1);
    });

    it('a finished job is never claimed again', async () => {
      const d = dispatcher();
      const handler = jest.fn(async () => undefined);
      on('screenshot', handler);
      jobs.add('done', { status: 'failed', attempts: 3, startedAt: ago(600_000) });
      await d.dispatch('done', { redelivered: true, priority: 'batch' });
      expect(handler).not.toHaveBeenCalled();
      expect(jobs.get('done')).toMatchObject({ status: 'failed', attempts: 3 });
    });

    it('an attempt past its lease is taken over; the old attempt finishing late changes nothing', async () => {
      const d = dispatcher();
      const firstAttemptMayFinish = deferred();
      on('screenshot', async (job) => {
        if (job.attempts === 1) {
          await firstAttemptMayFinish.promise;
          await jobs.succeed(job.id, 111, clock.now()); // what a late first attempt would record
          return;
        }
        await jobs.succeed(job.id, 222, clock.now());
      });
      jobs.add('j');
      const first = d.dispatch('j');
      await new Promise((r) => setImmediate(r));
      clock.advance(CAPTURE_LEASE_MS - 1);
      await d.dispatch('j');
      expect(jobs.get('j')).toMatchObject({ status: 'running', attempts: 1 });
      clock.advance(1);
      await d.dispatch('j');
      expect(jobs.get('j')).toMatchObject({ status: 'succeeded', attempts: 2, resultId: 222 });
      firstAttemptMayFinish.resolve();
      await first;
      expect(jobs.get('j')).toMatchObject({ status: 'succeeded', attempts: 2, resultId: 222 });
    });

    it('a late attempt cannot fail, requeue or overwrite the results of the attempt that took over', async () => {
      const d = dispatcher();
      const late = deferred();
      on('scenario', async (job) => {
        if (job.attempts === 1) {
          await late.promise;
          await jobs.saveResult(job.id, ['from the late attempt']);
          throw new CaptureFailure('infrastructure', 'Browser disconnected during capture');
        }
        await jobs.saveResult(job.id, ['from the attempt that took over']);
        await jobs.fail(job.id, 'Step 0 (click) failed: no element', clock.now());
      });
      jobs.add('run', { type: 'scenario' });
      const first = d.dispatch('run');
      await new Promise((r) => setImmediate(r));
      clock.advance(SCENARIO_LEASE_MS);
      await d.dispatch('run');
      late.resolve();
      await first;
      expect(jobs.get('run')).toMatchObject({
        status: 'failed',
        attempts: 2,
        error: 'Step 0 (click) failed: no element',
        result: ['from the attempt that took over'],
      });
      expect(transport.enqueued).toEqual([]);
    });

    it('a redelivery after the transport saw its worker stop (Bull: lock lost) takes the attempt over at once', async () => {
      const d = dispatcher();
      on('screenshot', async (job) => void (await jobs.succeed(job.id, 7, clock.now())));
      jobs.add('j', { status: 'running', attempts: 1, startedAt: ago(2_000) });
      const redelivered: Delivery = { redelivered: true, priority: 'batch' };
      await d.dispatch('j', redelivered);
      expect(jobs.get('j')).toMatchObject({ status: 'succeeded', attempts: 2, resultId: 7 });
    });
  });

  describe('public error text (finding 4)', () => {
    async function failForGood(err: unknown): Promise<JobProps> {
      const d = dispatcher();
      on('screenshot', async () => {
        throw err;
      });
      jobs.add('j', { attempts: 2 }); // this is the third and last attempt
      await d.dispatch('j');
      return jobs.get('j');
    }

    it('a browser that cannot start: a fixed message, the path only in the log', async () => {
      const job = await failForGood(
        new CaptureFailure('infrastructure', 'Failed to launch the browser process: CHROME_PATH=/opt/chrome/chrome is not an executable file'),
      );
      expect(job).toMatchObject({ status: 'failed', error: 'Failed after 3 attempts: the browser crashed or could not be started' });
      expect(errors.join('\n')).toContain('CHROME_PATH=/opt/chrome/chrome');
    });

    it('any other error of ours: "an internal error occurred", the detail only in the log', async () => {
      const job = await failForGood(new Error("EACCES: permission denied, open '/srv/data/screenshots/1/2/3.png'"));
      expect(job.error).toBe('Failed after 3 attempts: an internal error occurred');
      expect(errors.join('\n')).toContain("'/srv/data/screenshots/1/2/3.png'");
    });

    it('an infrastructure failure with its own public wording keeps that wording, not its cause', async () => {
      const cause = new Error('duplicate key value violates unique constraint "uq_screenshots_job"');
      const job = await failForGood(new InfrastructureFailure('the screenshot could not be stored', cause));
      expect(job.error).toBe('Failed after 3 attempts: the screenshot could not be stored');
      expect(errors.join('\n')).toContain('uq_screenshots_job');
    });

    it('a page failure keeps its message and is not retried', async () => {
      const d = dispatcher();
      on('screenshot', async () => {
        throw new CaptureFailure('page', 'net::ERR_CONNECTION_REFUSED');
      });
      jobs.add('j');
      await d.dispatch('j');
      expect(jobs.get('j')).toMatchObject({ status: 'failed', attempts: 1, error: 'net::ERR_CONNECTION_REFUSED' });
      expect(transport.enqueued).toEqual([]);
    });

    it('an infrastructure failure before the last attempt is retried after a backoff, under a key of its own', async () => {
      const d = dispatcher();
      on('screenshot', async () => {
        throw new Error('SQLITE_BUSY: database is locked');
      });
      jobs.add('j');
      await d.dispatch('j');
      expect(jobs.get('j')).toMatchObject({ status: 'queued', attempts: 1, error: null });
      expect(transport.enqueued).toEqual([{ jobId: 'j', options: { delayMs: 2_000, key: 'retry:1', accountId: 1, priority: 'batch' } }]);
    });

    it('the retry of an interactive delivery stays interactive: a client waiting on a render does not fall behind the batch backlog', async () => {
      const d = dispatcher();
      on('screenshot', async () => {
        throw new Error('Target closed: the browser crashed');
      });
      jobs.add('j');
      await d.dispatch('j', { redelivered: false, priority: 'interactive' });
      expect(transport.enqueued).toEqual([{ jobId: 'j', options: { delayMs: 2_000, key: 'retry:1', accountId: 1, priority: 'interactive' } }]);
    });
  });

  it('knows nothing of job types it has no handler for: such a job fails', async () => {
    jobs.add('j', { type: 'mystery' });
    await dispatcher().dispatch('j');
    expect(jobs.get('j')).toMatchObject({ status: 'failed', error: 'No handler for jobs of type mystery' });
  });

  describe('counting ended jobs (screenshot_jobs_total)', () => {
    it('counts each job once when it ends, by the outcome its handler recorded; retried attempts are not counted', async () => {
      const d = dispatcher();
      on('screenshot', async (job) => {
        if (job.id === 'flaky' && job.attempts === 1) throw new Error('SQLITE_BUSY: database is locked');
        await jobs.succeed(job.id, 1, clock.now());
      });
      on('scenario', async (job) => void (await jobs.fail(job.id, 'Step 0 (click) failed: no element', clock.now())));
      jobs.add('ok');
      jobs.add('flaky');
      jobs.add('run', { type: 'scenario' });
      await d.dispatch('ok');
      await d.dispatch('flaky');
      expect(metrics.jobs).toEqual([{ type: 'screenshot', outcome: 'succeeded' }]);
      await d.dispatch('flaky');
      await d.dispatch('run');
      await d.dispatch('ok', { redelivered: true, priority: 'batch' }); // finished: skipped, not counted again
      expect(metrics.jobs).toEqual([
        { type: 'screenshot', outcome: 'succeeded' },
        { type: 'screenshot', outcome: 'succeeded' },
        { type: 'scenario', outcome: 'failed' },
      ]);
    });

    it('counts failures the dispatcher records: a page failure, the last attempt, a job without handler', async () => {
      const d = dispatcher();
      on('screenshot', async (job) => {
        throw job.id === 'page' ? new CaptureFailure('page', 'net::ERR_NAME_NOT_RESOLVED') : new Error('Browser disconnected');
      });
      jobs.add('page');
      jobs.add('last', { attempts: 2 });
      jobs.add('mystery', { type: 'mystery' });
      for (const id of ['page', 'last', 'mystery']) await d.dispatch(id);
      expect(metrics.jobs).toEqual([
        { type: 'screenshot', outcome: 'failed' },
        { type: 'screenshot', outcome: 'failed' },
        { type: 'mystery', outcome: 'failed' },
      ]);
    });

    it('a job taken over from an attempt past its lease is counted once, by the attempt that ended it', async () => {
      const d = dispatcher();
      const late = deferred();
      on('screenshot', async (job) => {
        if (job.attempts === 1) await late.promise;
        await jobs.succeed(job.id, job.attempts, clock.now());
      });
      jobs.add('j');
      const first = d.dispatch('j');
      await new Promise((r) => setImmediate(r));
      clock.advance(CAPTURE_LEASE_MS);
      await d.dispatch('j');
      late.resolve();
      await first;
      expect(jobs.get('j')).toMatchObject({ status: 'succeeded', attempts: 2, resultId: 2 });
      expect(metrics.jobs).toEqual([{ type: 'screenshot', outcome: 'succeeded' }]);
    });

    it('a handler that says what its writes did is counted from that, without reading the job back; `unchanged` is not counted', async () => {
      const d = dispatcher();
      on('screenshot', async (job) => endedIf(await jobs.succeed(job.id, 1, clock.now()), 'succeeded'));
      on('scenario', async (job) => endedIf(await jobs.fail(job.id, 'Step 1 (click) failed', clock.now()), 'failed'));
      jobs.add('ok');
      jobs.add('run', { type: 'scenario' });
      const reads = jest.spyOn(jobs, 'findById');
      await d.dispatch('ok');
      await d.dispatch('run');
      expect(reads).not.toHaveBeenCalled();
      expect(metrics.jobs).toEqual([
        { type: 'screenshot', outcome: 'succeeded' },
        { type: 'scenario', outcome: 'failed' },
      ]);
      on('mystery', async () => 'unchanged');
      jobs.add('other', { type: 'mystery' });
      await d.dispatch('other');
      expect(metrics.jobs).toHaveLength(2);
      expect(reads).not.toHaveBeenCalled();
    });

    it('a count that cannot be read back is lost quietly: the job is not retried for it', async () => {
      const d = dispatcher();
      on('screenshot', async (job) => void (await jobs.succeed(job.id, 1, clock.now())));
      jobs.add('j');
      jest.spyOn(jobs, 'findById').mockRejectedValue(new Error('Connection terminated'));
      await d.dispatch('j');
      expect(jobs.get('j')).toMatchObject({ status: 'succeeded', attempts: 1 });
      expect(metrics.jobs).toEqual([]);
      expect(transport.enqueued).toEqual([]);
    });
  });
});
