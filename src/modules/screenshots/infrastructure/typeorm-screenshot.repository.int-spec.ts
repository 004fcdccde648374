import { InProcessJobEvents } from '../../../adapters/queue/job-events';
import { randomUUID } from 'node:crypto';
import { DataSource, DataSourceOptions, Repository } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../../../../test/support/test-database';
import { dataSourceOptions, runMigrations } from '../../../shared/persistence/data-source-options';
import { JobType } from '../../jobs/domain/job';
import { JobAttemptScope } from '../../jobs/application/job-attempt-scope';
import { CapturedScreenshot } from '../application/ports';
import { SupersededAttemptError } from '../../jobs/application/ports';
import { JobRow } from '../../jobs/infrastructure/job.row';
import { ScreenshotRow } from './screenshot.row';
import { TypeOrmJobRepository } from '../../jobs/infrastructure/typeorm-job.repository';
import { TypeOrmScreenshotRepository } from './typeorm-screenshot.repository';

/** The screenshot insert transaction on a real database (SQLite, or PostgreSQL when DATABASE_URL is set). */
describe('TypeOrmScreenshotRepository: reserveId and insert (real database)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let shotRows: Repository<ScreenshotRow>;
  let jobs: TypeOrmJobRepository;
  let screenshots: TypeOrmScreenshotRepository;
  let accountId: number;
  let websiteId: number;

  const T0 = new Date('2030-01-01T12:00:00.000Z');
  const at = (ms: number) => new Date(T0.getTime() + ms);
  const LAPSED = (now: Date) => ({ screenshot: now, scenario: now, render: now });

  beforeAll(async () => {
    db = await createTestDatabase();
    const options = { ...dataSourceOptions({ databaseUrl: db.databaseUrl, dataDir: db.dataDir }), entities: [JobRow, ScreenshotRow] } as DataSourceOptions;
    dataSource = await new DataSource(options).initialize();
    await runMigrations(dataSource);
    const insert = (table: string, values: Record<string, unknown>) =>
      dataSource.createQueryBuilder().insert().into(table, Object.keys(values)).values(values).execute();
    await insert('accounts', { name: 'Shots', email: 'shots@example.com', plan: 'pro', subscription_status: 'active', created_at: T0, updated_at: T0 });
    [{ id: accountId }] = await dataSource.query(`SELECT id FROM accounts WHERE email = 'shots@example.com'`);
    await insert('websites', {
      account_id: accountId,
      name: 'Site',
      url: 'https://example.com/',
      viewport_width: 1280,
      viewport_height: 800,
      full_page: false,
      status: 'active',
      created_at: T0,
      updated_at: T0,
    });
    [{ id: websiteId }] = await dataSource.query(`SELECT id FROM websites`);
    shotRows = dataSource.getRepository(ScreenshotRow);
    jobs = new TypeOrmJobRepository(dataSource.getRepository(JobRow), new InProcessJobEvents());
    screenshots = new TypeOrmScreenshotRepository(shotRows, dataSource, new InProcessJobEvents());
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });
  afterEach(() => jest.restoreAllMocks());

  async function newJob(type: JobType = 'screenshot'): Promise<string> {
    const id = randomUUID();
    await jobs.createOrGetIdempotent({ id, type, accountId, websiteId, source: 'api', options: {}, idempotencyKey: null, createdAt: T0 });
    return id;
  }

  function shot(owner: Partial<CapturedScreenshot>): CapturedScreenshot {
    return { accountId, websiteId, jobId: null, format: 'png', fileSize: 1234, width: 1280, height: 800, takenAt: at(5_000), ...owner };
  }

  /** Reserves an id and inserts under it, as ScreenshotKeeper does once the file is written. */
  async function insertShot(owner: Partial<CapturedScreenshot>, finishedAt: Date) {
    const id = await screenshots.reserveId();
    return screenshots.insert(shot(owner), id, `screenshots/${accountId}/${websiteId}/${id}.png`, finishedAt);
  }

  it('reserved ids are unique and increasing, never reused by a later insert, and skipped when never inserted', async () => {
    const first = await screenshots.reserveId();
    const reserved = await Promise.all(Array.from({ length: 20 }, () => screenshots.reserveId()));
    expect(new Set(reserved).size).toBe(20);
    expect(Math.min(...reserved)).toBeGreaterThan(first);
    const stored = await insertShot({}, at(1_000));
    expect(stored.id).toBeGreaterThan(Math.max(...reserved));
    // A row inserted the ordinary way (an older code path, a manual fix) still continues after the reservations.
    await dataSource.query(
      `INSERT INTO screenshots (account_id, website_id, file_path, format, file_size, width, height, status, taken_at) VALUES (${accountId}, ${websiteId}, 'x', 'png', 1, 1, 1, 'success', ${dataSource.options.type === 'postgres' ? 'now()' : "'2030-01-01 00:00:00'"})`,
    );
    const [{ max }] = await dataSource.query('SELECT MAX(id) AS max FROM screenshots');
    expect(Number(max)).toBeGreaterThan(stored.id);
    expect(await screenshots.reserveId()).toBeGreaterThan(Number(max));
    await dataSource.query(`DELETE FROM screenshots WHERE file_path = 'x'`);
  });

  it('returns the row as inserted: once committed, a failing read-back cannot make it throw (finding 5)', async () => {
    const jobId = await newJob();
    const claimed = (await jobs.claim(jobId, at(0), LAPSED(at(0))))!;
    // The connection drops right after the commit: any read now fails.
    for (const method of ['findOneByOrFail', 'findOneBy', 'findOne', 'findOneOrFail'] as const) {
      jest.spyOn(shotRows, method).mockRejectedValue(new Error('Connection terminated unexpectedly'));
    }
    const stored = await JobAttemptScope.run({ jobId, attempt: claimed.attempts }, () => insertShot({ jobId }, at(6_000)));
    jest.restoreAllMocks();

    expect(stored.filePath).toBe(`screenshots/${accountId}/${websiteId}/${stored.id}.png`);
    // Every field equal to the row as the repository reads it back (the mapping of the stored columns).
    expect(await shotRows.countBy({ id: stored.id })).toBe(1);
    expect(stored).toEqual(await screenshots.findById(stored.id));
    expect(stored).toMatchObject({ jobId, executionId: null, scenarioId: null, fileSize: 1234, takenAt: at(5_000) });
    expect(await jobs.findById(jobId)).toMatchObject({ status: 'succeeded', resultId: stored.id, finishedAt: at(6_000) });
  });

  it("a capture stored by an attempt that was taken over is rolled back; the holder's is stored (finding 2)", async () => {
    const jobId = await newJob();
    await jobs.claim(jobId, at(0), LAPSED(at(0)));
    await jobs.claim(jobId, at(300_000), LAPSED(at(300_000))); // attempt 2 takes over

    await expect(JobAttemptScope.run({ jobId, attempt: 1 }, () => insertShot({ jobId }, at(301_000)))).rejects.toBeInstanceOf(SupersededAttemptError);
    expect(await shotRows.countBy({ jobId })).toBe(0);
    expect(await jobs.findById(jobId)).toMatchObject({ status: 'running', attempts: 2, resultId: null });

    const stored = await JobAttemptScope.run({ jobId, attempt: 2 }, () => insertShot({ jobId }, at(302_000)));
    expect(await shotRows.countBy({ jobId })).toBe(1);
    expect(await jobs.findById(jobId)).toMatchObject({ status: 'succeeded', attempts: 2, resultId: stored.id });
  });

  it("a scenario screenshot stored by an attempt that was taken over is rolled back; the holder's is stored (finding 2)", async () => {
    const executionId = await newJob('scenario');
    await jobs.claim(executionId, at(0), LAPSED(at(0)));
    await jobs.claim(executionId, at(300_000), LAPSED(at(300_000)));
    const owner = { executionId, scenarioId: null };

    await expect(JobAttemptScope.run({ jobId: executionId, attempt: 1 }, () => insertShot(owner, at(301_000)))).rejects.toBeInstanceOf(SupersededAttemptError);
    expect(await screenshots.listForExecution(executionId)).toEqual([]);

    await JobAttemptScope.run({ jobId: executionId, attempt: 2 }, () => insertShot(owner, at(302_000)));
    expect(await screenshots.listForExecution(executionId)).toHaveLength(1);
    expect(await jobs.findById(executionId)).toMatchObject({ status: 'running', attempts: 2 });
  });

  it('outside any attempt, a job that already finished gets no screenshot', async () => {
    const jobId = await newJob();
    await jobs.claim(jobId, at(0), LAPSED(at(0)));
    await jobs.fail(jobId, 'net::ERR_CONNECTION_REFUSED', at(1_000));
    await expect(insertShot({ jobId }, at(2_000))).rejects.toBeInstanceOf(SupersededAttemptError);
    expect(await shotRows.countBy({ jobId })).toBe(0);
    expect(await jobs.findById(jobId)).toMatchObject({ status: 'failed', error: 'net::ERR_CONNECTION_REFUSED' });
  });

  describe('change history', () => {
    it('the inserting transaction records the previous comparable capture; equal file bytes are recorded unchanged at once, other bytes pending', async () => {
      const compareKey = `key-${randomUUID().slice(0, 8)}`;
      const first = await insertShot({ compareKey, contentHash: 'aaa' }, at(1_000));
      const same = await insertShot({ compareKey, contentHash: 'aaa' }, at(2_000));
      const other = await insertShot({ compareKey, contentHash: 'bbb' }, at(3_000));
      const elsewhere = await insertShot({ compareKey: `${compareKey}-other`, contentHash: 'bbb' }, at(4_000));
      expect(first.change).toBeNull();
      expect(same.change).toEqual({ previousId: first.id, status: 'done', changedRatio: 0, changed: false, comparedAt: at(5_000), textDiff: null });
      expect(other.change).toEqual({ previousId: same.id, status: 'pending', changedRatio: null, changed: null, comparedAt: null, textDiff: null });
      expect(elsewhere.change).toBeNull();
      // What insert returned is what a read gives.
      for (const stored of [first, same, other, elsewhere]) expect(await screenshots.findById(stored.id)).toEqual(stored);
    });

    it('text changes: equal bytes AND equal text are unchanged at once (0 lines either way); equal bytes with another text are pending', async () => {
      const compareKey = `key-${randomUUID().slice(0, 8)}`;
      const first = await insertShot({ compareKey, contentHash: 'img', textHash: 'v1' }, at(1_000));
      const same = await insertShot({ compareKey, contentHash: 'img', textHash: 'v1' }, at(2_000));
      const retitled = await insertShot({ compareKey, contentHash: 'img', textHash: 'v2' }, at(3_000));
      expect(same.change).toMatchObject({ previousId: first.id, status: 'done', changed: false, textDiff: { added: 0, removed: 0 } });
      expect(retitled.change).toMatchObject({ previousId: same.id, status: 'pending', textDiff: null });
      expect(retitled.textHash).toBe('v2');
      for (const stored of [first, same, retitled]) expect(await screenshots.findById(stored.id)).toEqual(stored);
      const outcome = { previousId: same.id, changedRatio: 0, changed: true, comparedAt: at(9_000), textDiff: { added: 1, removed: 1 } };
      expect(await screenshots.recordComparison(retitled.id, outcome)).toBe(true);
      expect((await screenshots.findById(retitled.id))?.change).toEqual({ ...outcome, status: 'done' });
    });

    it('a pending comparison is claimed by one worker until its claim lapses, recorded once, and no longer listed as pending', async () => {
      const compareKey = `key-${randomUUID().slice(0, 8)}`;
      const first = await insertShot({ compareKey, contentHash: 'one' }, at(1_000));
      const second = await insertShot({ compareKey, contentHash: 'two' }, at(2_000));
      expect(await screenshots.pendingComparisons(at(10_000), 1000)).toContain(second.id);
      const claims = await Promise.all([1, 2, 3].map(() => screenshots.claimComparison(second.id, at(10_000), at(70_000))));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await screenshots.pendingComparisons(at(20_000), 1000)).not.toContain(second.id); // held
      expect(await screenshots.claimComparison(second.id, at(20_000), at(80_000))).toBe(false);
      expect(await screenshots.pendingComparisons(at(71_000), 1000)).toContain(second.id); // the claim lapsed
      expect(await screenshots.claimComparison(second.id, at(71_000), at(131_000))).toBe(true);
      const outcome = { previousId: first.id, changedRatio: 0.25, changed: true, comparedAt: at(72_000), textDiff: null };
      expect(await screenshots.recordComparison(second.id, outcome)).toBe(true);
      expect(await screenshots.recordComparison(second.id, { ...outcome, changedRatio: 0.5 })).toBe(false);
      expect((await screenshots.findById(second.id))?.change).toEqual({ ...outcome, status: 'done' });
      expect(await screenshots.pendingComparisons(at(200_000), 1000)).not.toContain(second.id);
      expect(await screenshots.claimComparison(second.id, at(200_000), at(260_000))).toBe(false);
      const changes = await screenshots.listChanges(accountId, websiteId, { page: 1, perPage: 100 });
      expect(changes.items.map((c) => c.id)).toContain(second.id);
      expect(changes.items.every((c) => c.change?.changed === true)).toBe(true);
    });
  });
});
