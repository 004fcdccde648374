import { InProcessJobEvents } from '../../../adapters/queue/job-events';
import { randomUUID } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../../../../test/support/test-database';
import { insertAccount, migratedDataSource } from '../../../../test/support/migrated-database';
import { JobProps, JobType } from '../domain/job';
import { JobAttemptScope } from '../application/job-attempt-scope';
import { RunningCutoffs } from '../application/ports';
import { JobRow } from './job.row';
import { ScreenshotRow } from '../../screenshots/infrastructure/screenshot.row';
import { TypeOrmJobRepository } from './typeorm-job.repository';

/**
 * The jobs table's claim and fencing rules on a real database: SQLite in the embedded pass, PostgreSQL when
 * DATABASE_URL is set (the scaled-out pass), where concurrent claims really race.
 */
describe('TypeOrmJobRepository (real database)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let rows: Repository<JobRow>;
  let jobs: TypeOrmJobRepository;
  let accountId: number;

  const T0 = new Date('2030-01-01T12:00:00.000Z');
  const at = (ms: number) => new Date(T0.getTime() + ms);
  /** Cutoffs that find every running attempt alive / every one lapsed. */
  const NONE_LAPSED: RunningCutoffs = { screenshot: at(-86_400_000 * 365), scenario: at(-86_400_000 * 365), render: at(-86_400_000 * 365) };
  const ALL_LAPSED = (now: Date): RunningCutoffs => ({ screenshot: now, scenario: now, render: now });

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await migratedDataSource(db, [JobRow, ScreenshotRow]);
    accountId = await insertAccount(dataSource, 'jobs@example.com', T0, 'Jobs');
    rows = dataSource.getRepository(JobRow);
    jobs = new TypeOrmJobRepository(rows, new InProcessJobEvents());
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  async function job(patch: { type?: JobType; createdAt?: Date; status?: string; attempts?: number; startedAt?: Date | null } = {}): Promise<string> {
    const id = randomUUID();
    await jobs.createOrGetIdempotent({
      id,
      type: patch.type ?? 'screenshot',
      accountId,
      websiteId: null,
      source: 'api',
      options: {},
      idempotencyKey: null,
      createdAt: patch.createdAt ?? T0,
    });
    if (patch.status) await rows.update({ id }, { status: patch.status, attempts: patch.attempts ?? 1, startedAt: patch.startedAt ?? null });
    return id;
  }

  const read = async (id: string): Promise<JobProps> => (await jobs.findById(id))!;

  describe('claim (finding 2)', () => {
    it('takes a queued job for attempt 1; while that attempt holds it, another claim gets nothing', async () => {
      const id = await job();
      expect(await jobs.claim(id, at(1_000), NONE_LAPSED)).toMatchObject({ id, status: 'running', attempts: 1, startedAt: at(1_000) });
      expect(await jobs.claim(id, at(2_000), NONE_LAPSED)).toBeNull();
      expect(await read(id)).toMatchObject({ status: 'running', attempts: 1, startedAt: at(1_000) });
    });

    it('takes a running job over only once its attempt started at or before the cutoff of its type', async () => {
      const capture = await job({ status: 'running', attempts: 1, startedAt: at(0) });
      const scenario = await job({ type: 'scenario', status: 'running', attempts: 1, startedAt: at(0) });
      const cutoffs: RunningCutoffs = { screenshot: at(0), scenario: at(-1), render: at(0) };
      expect(await jobs.claim(scenario, at(5_000), cutoffs)).toBeNull();
      expect(await jobs.claim(capture, at(5_000), cutoffs)).toMatchObject({ status: 'running', attempts: 2, startedAt: at(5_000) });
      expect(await jobs.claim(capture, at(6_000), cutoffs)).toBeNull(); // the new attempt started after the cutoff
    });

    it('never takes a finished job', async () => {
      const done = await job({ status: 'succeeded', attempts: 1, startedAt: at(0) });
      const failed = await job({ status: 'failed', attempts: 3, startedAt: at(0) });
      expect(await jobs.claim(done, at(1_000), ALL_LAPSED(at(1_000)))).toBeNull();
      expect(await jobs.claim(failed, at(1_000), ALL_LAPSED(at(1_000)))).toBeNull();
      expect(await read(failed)).toMatchObject({ status: 'failed', attempts: 3 });
    });

    it('of several workers claiming one job at once, exactly one gets it', async () => {
      const id = await job();
      const claims = await Promise.all(Array.from({ length: 6 }, () => jobs.claim(id, at(1_000), NONE_LAPSED)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await read(id)).toMatchObject({ status: 'running', attempts: 1 });
    });
  });

  describe('writes fenced to the attempt that holds the job (finding 2)', () => {
    it('an attempt that was taken over cannot succeed, fail, requeue or save results; the holder can', async () => {
      const id = await job();
      await jobs.claim(id, at(0), NONE_LAPSED);
      await jobs.claim(id, at(300_000), ALL_LAPSED(at(300_000))); // attempt 2 takes over

      const late = await JobAttemptScope.run({ jobId: id, attempt: 1 }, async () => [
        await jobs.saveResult(id, ['late']),
        await jobs.succeed(id, null, at(301_000)),
        await jobs.requeue(id),
        await jobs.fail(id, 'late failure', at(301_000)),
      ]);
      expect(late).toEqual([false, false, false, false]);
      expect(await read(id)).toMatchObject({ status: 'running', attempts: 2, result: null, error: null, finishedAt: null });

      const holder = await JobAttemptScope.run({ jobId: id, attempt: 2 }, async () => [
        await jobs.saveResult(id, ['current']),
        await jobs.succeed(id, null, at(302_000)),
      ]);
      expect(holder).toEqual([true, true]);
      expect(await read(id)).toMatchObject({ status: 'succeeded', attempts: 2, result: ['current'], finishedAt: at(302_000) });
    });

    it('a late succeed never turns a failed job into a succeeded one', async () => {
      const id = await job();
      await jobs.claim(id, at(0), NONE_LAPSED);
      expect(await JobAttemptScope.run({ jobId: id, attempt: 1 }, () => jobs.fail(id, 'net::ERR_CONNECTION_REFUSED', at(1_000)))).toBe(true);
      expect(await jobs.succeed(id, null, at(2_000))).toBe(false);
      expect(await JobAttemptScope.run({ jobId: id, attempt: 1 }, () => jobs.succeed(id, null, at(2_000)))).toBe(false);
      expect(await read(id)).toMatchObject({ status: 'failed', error: 'net::ERR_CONNECTION_REFUSED', finishedAt: at(1_000) });
    });

    it("another job's scope does not fence this one", async () => {
      const id = await job();
      await jobs.claim(id, at(0), NONE_LAPSED);
      expect(await JobAttemptScope.run({ jobId: 'some-other-job', attempt: 9 }, () => jobs.saveResult(id, ['ok']))).toBe(true);
    });
  });

  describe('findStale and requeueAllRunning (finding 1)', () => {
    it('finds jobs queued since before the cutoff and running attempts past it, by type; nothing else', async () => {
      const created = at(-7_200_000); // a set of its own: earlier than every other job of this file
      const now = at(-3_600_000);
      const ids = {
        queuedLost: await job({ createdAt: created }),
        queuedYoung: await job({ createdAt: at(-3_600_000 - 10_000) }),
        requeuedRecently: await job({ createdAt: created, status: 'queued', attempts: 1, startedAt: at(-3_600_000 - 10_000) }),
        captureLapsed: await job({ createdAt: created, status: 'running', startedAt: at(-3_600_000 - 90_000) }),
        captureLive: await job({ createdAt: created, status: 'running', startedAt: at(-3_600_000 - 89_000) }),
        scenarioLive: await job({ type: 'scenario', createdAt: created, status: 'running', startedAt: at(-3_600_000 - 90_000) }),
        scenarioLapsed: await job({ type: 'scenario', createdAt: created, status: 'running', startedAt: at(-3_600_000 - 210_000) }),
        done: await job({ createdAt: created, status: 'succeeded', startedAt: created }),
      };
      const stale = await jobs.findStale(
        {
          queuedBefore: new Date(now.getTime() - 30_000),
          runningStartedBefore: {
            screenshot: new Date(now.getTime() - 90_000),
            scenario: new Date(now.getTime() - 210_000),
            render: new Date(now.getTime() - 90_000),
          },
        },
        null,
        100,
      );
      expect(stale.map((j) => j.id).sort()).toEqual([ids.queuedLost, ids.captureLapsed, ids.scenarioLapsed].sort());
    });

    it('pages by (created_at, id): every stale job exactly once, oldest first, also among equal created_at', async () => {
      const created = at(-86_400_000 * 30); // older than every other job of this file
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) ids.push(await job({ createdAt: i < 5 ? created : at(-86_400_000 * 29) }));
      const cutoffs = { queuedBefore: at(-86_400_000 * 28), runningStartedBefore: NONE_LAPSED };
      const seen: string[] = [];
      let after: { createdAt: Date; id: string } | null = null;
      for (;;) {
        const page: JobProps[] = await jobs.findStale(cutoffs, after, 3);
        seen.push(...page.map((j) => j.id));
        if (page.length < 3) break;
        after = { createdAt: page[2].createdAt, id: page[2].id };
      }
      expect(seen).toEqual([...ids.slice(0, 5).sort(), ...ids.slice(5).sort()]);
    });

    it('requeueAllRunning puts every running job back to queued, attempts kept', async () => {
      const id = await job({ status: 'running', attempts: 2, startedAt: at(0) });
      expect(await jobs.requeueAllRunning()).toBeGreaterThanOrEqual(1);
      expect(await read(id)).toMatchObject({ status: 'queued', attempts: 2 });
      expect(await rows.countBy({ status: 'running' })).toBe(0);
    });
  });
});
