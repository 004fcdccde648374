import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { FakeClock } from '../../../../test/support/fake-clock';
import { AppConfig } from '../../../config/app-config';
import { ConflictError, NotFoundError } from '../../../shared/domain/domain-error';
import { AccountRepository } from '../../accounts/application/ports';
import { Account } from '../../accounts/domain/account';
import { CaptureJobsService } from '../../screenshots/application/capture-jobs.service';
import { JobProps } from '../../jobs/domain/job';
import { WebsiteRepository } from '../../websites/application/ports';
import { WebsiteProps } from '../../websites/domain/website';
import { Schedule, ScheduleProps } from '../domain/schedule';
import { ClaimOutcome, ScheduleRepository } from './ports';
import { ScheduleTicker } from './schedule-ticker';
import { ScheduleRuns } from './schedule-runs';
import { ScenariosService } from '../../scenarios/application/scenarios.service';

/**
 * The ticker's firing protocol against in-memory ports that behave like the real ones where it matters: the
 * claim is a conditional update on next_run_at, and a reused idempotency key returns the job it made before.
 * A "kill" is a step that throws: nothing after it runs, and a new ticker over the same state is the restart.
 */

class Failure extends Error {}

/** Runs once, at the next call of the step it is set on (a kill, or an edit made meanwhile). */
type Hook = (() => void) | null;
const once =
  (step: string): Hook =>
  () => {
    throw new Failure(`killed at ${step}`);
  };

class InMemorySchedules extends ScheduleRepository {
  readonly rows = new Map<number, ScheduleProps>();
  beforeClaim: Hook = null;

  add(props: Partial<ScheduleProps> & { id: number; nextRunAt: Date }): ScheduleProps {
    const base = Schedule.create(
      { accountId: 1, websiteId: 1, name: `s${props.id}`, frequency: 'daily', time: '10:00', timezone: 'UTC' },
      new Date('2027-01-01T00:00:00Z'),
    );
    const row: ScheduleProps = { ...base.props, ...props };
    this.rows.set(row.id, row);
    return row;
  }
  get(id: number): ScheduleProps {
    return this.rows.get(id) as ScheduleProps;
  }

  async findDue(now: Date, limit: number): Promise<Schedule[]> {
    return [...this.rows.values()]
      .filter((s) => s.enabled && s.nextRunAt !== null && s.nextRunAt.getTime() <= now.getTime())
      .sort((a, b) => (a.nextRunAt as Date).getTime() - (b.nextRunAt as Date).getTime())
      .slice(0, limit)
      .map((s) => Schedule.restore(s));
  }
  async claim(id: number, due: Date, outcome: ClaimOutcome): Promise<boolean> {
    const hook = this.beforeClaim;
    this.beforeClaim = null;
    hook?.();
    const row = this.rows.get(id);
    if (!row || !row.enabled || row.nextRunAt?.getTime() !== due.getTime()) return false;
    Object.assign(row, { nextRunAt: outcome.next, updatedAt: outcome.now }, outcome.next === null ? { enabled: false } : {});
    if (outcome.jobId !== null) Object.assign(row, { lastJobId: outcome.jobId, lastRunAt: outcome.now });
    return true;
  }
  create(): never {
    throw new Error('not used by the ticker');
  }
  findOwned(): never {
    throw new Error('not used by the ticker');
  }
  list(): never {
    throw new Error('not used by the ticker');
  }
  update(): never {
    throw new Error('not used by the ticker');
  }
  delete(): never {
    throw new Error('not used by the ticker');
  }
  recordRun(): never {
    throw new Error('not used by the ticker');
  }
  usingSession(): never {
    throw new Error('not used by the ticker');
  }
}

/** CaptureJobsService.requestCapture as the ticker sees it: one job per (account, idempotency key). */
class FakeCaptureJobs {
  readonly jobs = new Map<string, JobProps>();
  calls = 0;
  beforeInsert: Hook = null;
  afterInsert: Hook = null;
  conflict = false;

  async requestCapture(accountId: number, websiteId: number, options: object, key: string, source: 'schedule', scheduleId: number): Promise<JobProps> {
    this.calls += 1;
    const take = (name: 'beforeInsert' | 'afterInsert') => {
      const hook = this[name];
      this[name] = null;
      hook?.();
    };
    take('beforeInsert');
    if (this.conflict) throw new ConflictError('This Idempotency-Key was already used for a different request');
    const existing = this.jobs.get(`${accountId}:${key}`);
    if (existing) return existing;
    const job = {
      id: `job-${this.jobs.size + 1}`,
      accountId,
      websiteId,
      options,
      idempotencyKey: key,
      source,
      scheduleId,
      status: 'queued',
    } as unknown as JobProps;
    this.jobs.set(`${accountId}:${key}`, job);
    take('afterInsert');
    return job;
  }
}

/** ScenariosService as ScheduleRuns sees it: the account's scenarios (their website), and runs keyed like jobs. */
class FakeScenarios {
  readonly websites = new Map<number, number>();
  readonly runs: Array<{ accountId: number; id: number; key: string; origin: unknown }> = [];

  async get(_accountId: number, id: number): Promise<{ id: number; websiteId: number }> {
    const websiteId = this.websites.get(id);
    if (websiteId === undefined) throw new NotFoundError('Scenario');
    return { id, websiteId };
  }
  async run(accountId: number, id: number, key: string, origin: unknown): Promise<JobProps> {
    const existing = this.runs.findIndex((r) => r.key === key);
    if (existing < 0) this.runs.push({ accountId, id, key, origin });
    return { id: `execution-${existing < 0 ? this.runs.length : existing + 1}`, type: 'scenario' } as JobProps;
  }
}

describe('ScheduleTicker (firing protocol)', () => {
  const due = new Date('2027-01-05T10:00:00.000Z');
  const nextDay = '2027-01-06T10:00:00.000Z';
  let clock: FakeClock;
  let schedules: InMemorySchedules;
  let captureJobs: FakeCaptureJobs;
  let scenarios: FakeScenarios;
  let website: Pick<WebsiteProps, 'id' | 'status'>;
  let websiteLookup: Hook;
  let accountLookup: Hook;

  const websites = {
    findById: async () => {
      const hook = websiteLookup;
      websiteLookup = null;
      hook?.();
      return website;
    },
  } as unknown as WebsiteRepository;
  const accounts = {
    findById: async () => {
      const hook = accountLookup;
      accountLookup = null;
      hook?.();
      return { hasApiAccess: () => true } as unknown as Account;
    },
  } as unknown as AccountRepository;

  /** A ticker over the shared state; a new one stands for a restarted (or another) instance. */
  const instance = () =>
    new ScheduleTicker(
      schedules,
      websites,
      accounts,
      new ScheduleRuns(captureJobs as unknown as CaptureJobsService, scenarios as unknown as ScenariosService),
      {} as SchedulerRegistry,
      clock,
      {
        role: 'all',
      } as AppConfig,
    );

  beforeEach(() => {
    clock = new FakeClock();
    clock.set('2027-01-05T10:00:05Z');
    schedules = new InMemorySchedules();
    captureJobs = new FakeCaptureJobs();
    scenarios = new FakeScenarios();
    website = { id: 1, status: 'active' };
    websiteLookup = null;
    accountLookup = null;
    // The ticker logs what it survives; keep the output quiet and let tests look at it.
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  const killPoints: Array<[string, () => void]> = [
    ['in the website lookup', () => (websiteLookup = once('website lookup'))],
    ['in the account lookup', () => (accountLookup = once('account lookup'))],
    ['in the job request, before its row is written', () => (captureJobs.beforeInsert = once('job insert'))],
    ['between the job row and the claim', () => (captureJobs.afterInsert = once('after job insert'))],
    ['in the claim', () => (schedules.beforeClaim = once('claim'))],
  ];
  it.each(killPoints)('an occurrence interrupted %s is still due, and the next tick queues it exactly once', async (_label, breakIt) => {
    schedules.add({ id: 1, nextRunAt: due });
    breakIt();
    expect(await instance().tick()).toBe(0);
    expect(schedules.get(1)).toMatchObject({ nextRunAt: due, lastJobId: null, lastRunAt: null }); // not lost: still due

    clock.set('2027-01-05T10:05:00Z');
    expect(await instance().tick()).toBe(1); // restarted
    expect([...captureJobs.jobs.values()].map((j) => j.idempotencyKey)).toEqual([`schedule:1:${due.toISOString()}`]);
    const [job] = captureJobs.jobs.values();
    expect(schedules.get(1)).toMatchObject({ lastJobId: job.id, lastRunAt: new Date('2027-01-05T10:05:00Z'), nextRunAt: new Date(nextDay) });
    expect(await instance().tick()).toBe(0);
    expect(captureJobs.jobs.size).toBe(1);
  });

  it('one schedule that keeps failing does not hold up the schedules due after it', async () => {
    schedules.add({ id: 1, nextRunAt: new Date('2027-01-05T09:00:00Z'), time: '09:00', websiteId: 66 });
    schedules.add({ id: 2, nextRunAt: due });
    const failing = jest.spyOn(websites, 'findById').mockImplementation(async (id: number) => {
      if (id === 66) throw new Failure('database hiccup for this one');
      return website as WebsiteProps;
    });
    expect(await instance().tick()).toBe(1);
    expect(schedules.get(2)).toMatchObject({ lastJobId: 'job-1', nextRunAt: new Date(nextDay) });
    expect(schedules.get(1).nextRunAt).toEqual(new Date('2027-01-05T09:00:00Z')); // still due, retried next tick
    failing.mockRestore();
    expect(await instance().tick()).toBe(1);
    expect(schedules.get(1)).toMatchObject({ lastJobId: 'job-2', nextRunAt: new Date('2027-01-06T09:00:00Z') });
  });

  it('a schedule whose next run cannot be computed fires its due occurrence, is disabled, and does not hold up or spin', async () => {
    // Oldest first: the broken one heads every batch. Its zone is one the runtime does not (or no longer) know.
    schedules.add({ id: 1, nextRunAt: new Date('2027-01-05T09:00:00Z'), timezone: 'Mars/Olympus' });
    schedules.add({ id: 2, nextRunAt: due });
    expect(await instance().tick()).toBe(2);
    expect(schedules.get(1)).toMatchObject({ enabled: false, nextRunAt: null, lastJobId: 'job-1' });
    expect(Logger.prototype.warn).toHaveBeenCalledWith(expect.stringMatching(/schedule 1: disabled.*Mars\/Olympus/));
    expect(schedules.get(2)).toMatchObject({ enabled: true, lastJobId: 'job-2', nextRunAt: new Date(nextDay) });
    clock.set('2027-01-06T10:00:00Z');
    expect(await instance().tick()).toBe(1); // only schedule 2; the disabled one is not tried again
    expect(captureJobs.calls).toBe(3);
  });

  it('two instances racing for one occurrence: one claims it, both got the same single job', async () => {
    schedules.add({ id: 1, nextRunAt: due });
    const [a, b] = await Promise.all([instance().tick(), instance().tick()]);
    expect(a + b).toBe(1);
    expect(captureJobs.jobs.size).toBe(1);
    expect(schedules.get(1)).toMatchObject({ lastJobId: 'job-1', nextRunAt: new Date(nextDay) });
  });

  it('edited between the job request and the claim: the job stands (one capture), the edit’s next_run_at is kept, nothing recorded', async () => {
    schedules.add({ id: 1, nextRunAt: due });
    captureJobs.afterInsert = () => Object.assign(schedules.get(1), { time: '12:00', nextRunAt: new Date('2027-01-05T12:00:00Z') });
    expect(await instance().tick()).toBe(0);
    expect(captureJobs.jobs.size).toBe(1);
    expect(schedules.get(1)).toMatchObject({ nextRunAt: new Date('2027-01-05T12:00:00Z'), lastJobId: null, lastRunAt: null });
  });

  it('a job key already used for another request (website changed after a crash) counts as fired: advanced, no second job', async () => {
    schedules.add({ id: 1, nextRunAt: due });
    captureJobs.conflict = true;
    expect(await instance().tick()).toBe(0);
    expect(schedules.get(1)).toMatchObject({ nextRunAt: new Date(nextDay), lastJobId: null });
    expect(await instance().tick()).toBe(0);
    expect(captureJobs.calls).toBe(1);
  });

  it('a paused website lets the occurrence pass unfired: advanced, no job, last_run_at kept', async () => {
    schedules.add({ id: 1, nextRunAt: due });
    website = { id: 1, status: 'paused' };
    expect(await instance().tick()).toBe(0);
    expect(captureJobs.calls).toBe(0);
    expect(schedules.get(1)).toMatchObject({ nextRunAt: new Date(nextDay), lastRunAt: null, lastJobId: null });
  });

  it('a scenario schedule runs its scenario under the occurrence key, looks at the scenario’s current website, and passes when the scenario is gone', async () => {
    schedules.add({ id: 1, nextRunAt: due, websiteId: 1, scenarioId: 9 });
    scenarios.websites.set(9, 5); // the scenario moved to website 5 since the schedule was saved
    const looked: number[] = [];
    jest.spyOn(websites, 'findById').mockImplementation(async (id: number) => {
      looked.push(id);
      return { id, status: 'active' } as WebsiteProps;
    });
    expect(await instance().tick()).toBe(1);
    expect(looked).toEqual([5]);
    expect(captureJobs.calls).toBe(0);
    expect(scenarios.runs).toEqual([{ accountId: 1, id: 9, key: `schedule:1:${due.toISOString()}`, origin: { source: 'schedule', scheduleId: 1 } }]);
    expect(schedules.get(1)).toMatchObject({ lastJobId: 'execution-1', nextRunAt: new Date(nextDay) });

    scenarios.websites.delete(9); // deleted meanwhile (its schedules go with it; this is the race)
    clock.set('2027-01-06T10:00:01Z');
    expect(await instance().tick()).toBe(0);
    expect(scenarios.runs).toHaveLength(1);
    expect(schedules.get(1)).toMatchObject({ lastJobId: 'execution-1', nextRunAt: new Date('2027-01-07T10:00:00Z') });
  });

  it('a schedule’s own session_id goes with its runs: a capture’s sessionId option, a scenario run’s origin (it wins the scenario’s)', async () => {
    schedules.add({ id: 1, nextRunAt: due, sessionId: 4 });
    schedules.add({ id: 2, nextRunAt: due, websiteId: 1, scenarioId: 9, sessionId: 6 });
    scenarios.websites.set(9, 1);
    expect(await instance().tick()).toBe(2);
    expect([...captureJobs.jobs.values()].map((job) => job.options)).toEqual([{ sessionId: 4 }]);
    expect(scenarios.runs).toEqual([
      { accountId: 1, id: 9, key: `schedule:2:${due.toISOString()}`, origin: { source: 'schedule', scheduleId: 2, sessionId: 6 } },
    ]);
  });

  it('a schedule without a session_id sends none: the website’s (or the scenario’s) decides', async () => {
    schedules.add({ id: 1, nextRunAt: due });
    expect(await instance().tick()).toBe(1);
    expect([...captureJobs.jobs.values()].map((job) => job.options)).toEqual([{}]);
  });
});
