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
describe('TypeOrmScreenshotRepository.insertWithFile (real database)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let shotRows: Repository<ScreenshotRow>;
  let jobs: TypeOrmJobRepository;
  let screenshots: TypeOrmScreenshotRepository;
  let accountId: number;
  let websiteId: number;

  const T0 = new Date('2030-01-01T12:00:00.000Z');
  const at = (ms: number) => new Date(T0.getTime() + ms);
  const LAPSED = (now: Date) => ({ screenshot: now, scenario: now });

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

  it('returns the row as inserted: once committed, a failing read-back cannot make it throw (finding 5)', async () => {
    const jobId = await newJob();
    const claimed = (await jobs.claim(jobId, at(0), LAPSED(at(0))))!;
    // The connection drops right after the commit: any read now fails.
    for (const method of ['findOneByOrFail', 'findOneBy', 'findOne', 'findOneOrFail'] as const) {
      jest.spyOn(shotRows, method).mockRejectedValue(new Error('Connection terminated unexpectedly'));
    }
    const placed: string[] = [];
    const stored = await JobAttemptScope.run({ jobId, attempt: claimed.attempts }, () =>
      screenshots.insertWithFile(shot({ jobId }), (id) => (placed.push(`screenshots/${id}.png`), `screenshots/${id}.png`), at(6_000)),
    );
    jest.restoreAllMocks();

    expect(placed).toEqual([stored.filePath]);
    const row = await shotRows.findOneByOrFail({ id: stored.id });
    expect(stored).toEqual({ ...row, status: 'success' });
    expect(stored).toMatchObject({ jobId, executionId: null, scenarioId: null, fileSize: 1234, takenAt: at(5_000) });
    expect(await jobs.findById(jobId)).toMatchObject({ status: 'succeeded', screenshotId: stored.id, finishedAt: at(6_000) });
  });

  it("a capture stored by an attempt that was taken over is rolled back; the holder's is stored (finding 2)", async () => {
    const jobId = await newJob();
    await jobs.claim(jobId, at(0), LAPSED(at(0)));
    await jobs.claim(jobId, at(300_000), LAPSED(at(300_000))); // attempt 2 takes over
    const placeFile = jest.fn((id: number) => `screenshots/${id}.png`);

    await expect(JobAttemptScope.run({ jobId, attempt: 1 }, () => screenshots.insertWithFile(shot({ jobId }), placeFile, at(301_000)))).rejects.toBeInstanceOf(
      SupersededAttemptError,
    );
    expect(placeFile).not.toHaveBeenCalled();
    expect(await shotRows.countBy({ jobId })).toBe(0);
    expect(await jobs.findById(jobId)).toMatchObject({ status: 'running', attempts: 2, screenshotId: null });

    const stored = await JobAttemptScope.run({ jobId, attempt: 2 }, () => screenshots.insertWithFile(shot({ jobId }), placeFile, at(302_000)));
    expect(await shotRows.countBy({ jobId })).toBe(1);
    expect(await jobs.findById(jobId)).toMatchObject({ status: 'succeeded', attempts: 2, screenshotId: stored.id });
  });

  it("a scenario screenshot stored by an attempt that was taken over is rolled back; the holder's is stored (finding 2)", async () => {
    const executionId = await newJob('scenario');
    await jobs.claim(executionId, at(0), LAPSED(at(0)));
    await jobs.claim(executionId, at(300_000), LAPSED(at(300_000)));
    const owner = { executionId, scenarioId: null };

    await expect(
      JobAttemptScope.run({ jobId: executionId, attempt: 1 }, () => screenshots.insertWithFile(shot(owner), (id) => `screenshots/${id}.png`, at(301_000))),
    ).rejects.toBeInstanceOf(SupersededAttemptError);
    expect(await screenshots.listForExecution(executionId)).toEqual([]);

    await JobAttemptScope.run({ jobId: executionId, attempt: 2 }, () => screenshots.insertWithFile(shot(owner), (id) => `screenshots/${id}.png`, at(302_000)));
    expect(await screenshots.listForExecution(executionId)).toHaveLength(1);
    expect(await jobs.findById(executionId)).toMatchObject({ status: 'running', attempts: 2 });
  });

  it('outside any attempt, a job that already finished gets no screenshot', async () => {
    const jobId = await newJob();
    await jobs.claim(jobId, at(0), LAPSED(at(0)));
    await jobs.fail(jobId, 'net::ERR_CONNECTION_REFUSED', at(1_000));
    await expect(screenshots.insertWithFile(shot({ jobId }), (id) => `screenshots/${id}.png`, at(2_000))).rejects.toBeInstanceOf(SupersededAttemptError);
    expect(await shotRows.countBy({ jobId })).toBe(0);
    expect(await jobs.findById(jobId)).toMatchObject({ status: 'failed', error: 'net::ERR_CONNECTION_REFUSED' });
  });
});
