import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../../../../test/support/test-database';
import { insertAccount, migratedDataSource } from '../../../../test/support/migrated-database';
import { JobRow } from '../../jobs/infrastructure/job.row';
import { ScreenshotRow } from '../../screenshots/infrastructure/screenshot.row';
import type { GalleryShot } from '../application/dashboard-queries';
import { TypeOrmDashboardQueries } from './typeorm-dashboard-queries';

/**
 * The dashboard's read-only queries on a real database: SQLite in the embedded pass, PostgreSQL when
 * DATABASE_URL is set. Hour and day buckets are computed in SQL differently per database; both must put a row
 * in the same bucket.
 */
describe('TypeOrmDashboardQueries (real database)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let queries: TypeOrmDashboardQueries;
  const account = { alice: 0, bob: 0 };
  const site = { home: 0, blog: 0, bob: 0 };
  const NOW = new Date('2030-03-10T14:25:00.000Z');
  const ago = (ms: number) => new Date(NOW.getTime() - ms);
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;

  async function insertWebsite(accountId: number, name: string, url: string): Promise<number> {
    await dataSource
      .createQueryBuilder()
      .insert()
      .into('websites', ['account_id', 'name', 'url', 'viewport_width', 'viewport_height', 'full_page', 'status', 'created_at', 'updated_at'])
      .values({
        account_id: accountId,
        name,
        url,
        viewport_width: 1280,
        viewport_height: 800,
        full_page: false,
        status: 'active',
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
    const rows: Array<{ id: number }> = await dataSource.query(`SELECT id FROM websites WHERE account_id = ${accountId} ORDER BY id DESC`);
    return Number(rows[0].id);
  }

  async function job(accountId: number, patch: Partial<JobRow> = {}): Promise<string> {
    const id = randomUUID();
    const row: JobRow = {
      id,
      type: 'screenshot',
      accountId,
      websiteId: null,
      status: 'succeeded',
      source: 'api',
      options: {},
      idempotencyKey: null,
      attempts: 1,
      error: null,
      resultId: null,
      scenarioId: null,
      scheduleId: null,
      result: null,
      createdAt: NOW,
      startedAt: null,
      finishedAt: null,
      ...patch,
    };
    // The JSON columns' types are wider than TypeORM's insert type accepts; the row is a whole JobRow.
    await dataSource.getRepository(JobRow).insert(row as never);
    return id;
  }

  async function shot(accountId: number, websiteId: number, patch: Partial<ScreenshotRow> = {}): Promise<GalleryShot> {
    const result = await dataSource.getRepository(ScreenshotRow).insert({
      accountId,
      websiteId,
      jobId: null,
      scenarioId: null,
      executionId: null,
      filePath: 'x',
      format: 'png',
      fileSize: 1000,
      width: 1280,
      height: 800,
      status: 'success',
      takenAt: NOW,
      fullPage: false,
      ...patch,
    });
    const id = Number(result.identifiers[0].id);
    return (await queries.shotsByIds(accountId, [id]))[0];
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await migratedDataSource(db, [JobRow, ScreenshotRow]);
    queries = new TypeOrmDashboardQueries(dataSource);
    account.alice = await insertAccount(dataSource, 'alice-queries@example.com', NOW);
    account.bob = await insertAccount(dataSource, 'bob-queries@example.com', NOW);
    site.home = await insertWebsite(account.alice, 'Acme home', 'https://acme.example/');
    site.blog = await insertWebsite(account.alice, 'Acme 100% blog', 'https://blog.acme.example/news_today');
    site.bob = await insertWebsite(account.bob, 'Bob blog', 'https://bob.example/');
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('usage: jobs, failures and stored bytes per UTC hour and day, the last bucket holding now; other accounts and older rows left out', async () => {
    await job(account.alice, { createdAt: ago(0) });
    await job(account.alice, { createdAt: new Date('2030-03-10T14:00:00.000Z'), status: 'failed' }); // the hour's first instant
    await job(account.alice, { createdAt: new Date('2030-03-10T13:59:59.999Z') }); // the hour before
    await job(account.alice, { createdAt: ago(23 * HOUR + 25 * 60_000 - 1) }); // 15:00:00.001 yesterday: the first hourly bucket
    await job(account.alice, { createdAt: ago(24 * HOUR) }); // 14:25 yesterday: before the first hourly bucket
    await job(account.alice, { createdAt: ago(29 * DAY), status: 'failed' }); // the first daily bucket
    await job(account.alice, { createdAt: ago(31 * DAY) }); // too old for both
    await job(account.bob, { createdAt: ago(0), status: 'failed' });
    await shot(account.alice, site.home, { takenAt: ago(10 * 60_000), fileSize: 5000 });
    await shot(account.alice, site.home, { takenAt: ago(2 * DAY), fileSize: 7000 });
    await shot(account.bob, site.bob, { takenAt: ago(0), fileSize: 99_999 });

    const hourly = await queries.usage(account.alice, NOW, 3600, 24);
    expect(hourly.buckets).toHaveLength(24);
    expect(hourly.buckets[0].start.toISOString()).toBe('2030-03-09T15:00:00.000Z');
    expect(hourly.buckets[23].start.toISOString()).toBe('2030-03-10T14:00:00.000Z');
    const nonEmpty = hourly.buckets.filter((b) => b.jobs || b.storedBytes).map((b) => [b.start.toISOString().slice(0, 13), b.jobs, b.failures, b.storedBytes]);
    expect(nonEmpty).toEqual([
      ['2030-03-09T15', 1, 0, 0],
      ['2030-03-10T13', 1, 0, 0],
      ['2030-03-10T14', 2, 1, 5000],
    ]);

    const daily = await queries.usage(account.alice, NOW, 86400, 30);
    expect(daily.buckets).toHaveLength(30);
    expect(daily.buckets[0].start.toISOString()).toBe('2030-02-09T00:00:00.000Z');
    expect(daily.buckets[29].start.toISOString()).toBe('2030-03-10T00:00:00.000Z');
    const days = daily.buckets.filter((b) => b.jobs || b.storedBytes).map((b) => [b.start.toISOString().slice(0, 10), b.jobs, b.failures, b.storedBytes]);
    expect(days).toEqual([
      ['2030-02-09', 1, 1, 0],
      ['2030-03-08', 0, 0, 7000],
      ['2030-03-09', 2, 0, 0],
      ['2030-03-10', 3, 1, 5000],
    ]);
    expect(await queries.storedBytes(account.alice)).toBe(12_000);
    expect(await queries.storedBytes(account.bob)).toBe(99_999);
  });

  it("gallery: the account's screenshots newest first; website, date range and a name/URL search (any case, % and _ literal) narrow it", async () => {
    const a = await shot(account.alice, site.home, { takenAt: new Date('2030-03-01T23:59:59.000Z') });
    const b = await shot(account.alice, site.blog, { takenAt: new Date('2030-03-02T00:00:00.000Z') });
    const c = await shot(account.alice, site.blog, { takenAt: new Date('2030-03-03T12:00:00.000Z'), fullPage: true });
    await shot(account.bob, site.bob, { takenAt: new Date('2030-03-02T10:00:00.000Z') });
    const page = { page: 1, perPage: 100 };
    const idsOf = async (filter: Parameters<TypeOrmDashboardQueries['gallery']>[1]) =>
      (await queries.gallery(account.alice, filter, page)).items.map((s) => s.id).filter((id) => [a.id, b.id, c.id].includes(id));

    expect(await idsOf({})).toEqual([c.id, b.id, a.id]);
    expect(c.fullPage).toBe(true);
    expect(await idsOf({ websiteId: site.blog })).toEqual([c.id, b.id]);
    expect(await idsOf({ from: new Date('2030-03-02T00:00:00.000Z'), until: new Date('2030-03-03T00:00:00.000Z') })).toEqual([b.id]);
    expect(await idsOf({ search: 'ACME HOME' })).toEqual([a.id]);
    expect(await idsOf({ search: 'news_today' })).toEqual([c.id, b.id]); // the URL
    expect(await idsOf({ search: '100%' })).toEqual([c.id, b.id]);
    expect(await idsOf({ search: 'e_h' })).toEqual([]); // `_` is no wildcard
    expect(await idsOf({ search: '%' })).toEqual([c.id, b.id]); // only the name with a % in it
    expect((await queries.gallery(account.alice, { search: 'bob' }, page)).items).toEqual([]);
    const firstPage = await queries.gallery(account.alice, { websiteId: site.blog }, { page: 1, perPage: 1 });
    expect(firstPage.items).toHaveLength(1);
    expect(firstPage.total).toBeGreaterThanOrEqual(2);
    expect((await queries.shotsByIds(account.bob, [a.id, b.id])).map((s) => s.id)).toEqual([]);
  });

  it("sources: a capture's job source, scenario shots, and a failed run's last screenshot beyond its screenshot steps as its failure shot", async () => {
    const apiJob = await job(account.alice, { source: 'api' });
    const scheduleJob = await job(account.alice, { source: 'schedule' });
    const dashboardJob = await job(account.alice, { source: 'dashboard' });
    const steps = [
      { index: 0, type: 'screenshot', status: 'succeeded', duration_ms: 5, error: null },
      { index: 1, type: 'click', status: 'failed', duration_ms: 5, error: 'no such element' },
    ];
    const failedRun = await job(account.alice, { type: 'scenario', status: 'failed', result: steps, scenarioId: 1 });
    const okRun = await job(account.alice, { type: 'scenario', status: 'succeeded', result: [steps[0]], scenarioId: 1 });
    const foreignJob = await job(account.bob, { source: 'schedule' });
    const shots = [
      await shot(account.alice, site.home, { jobId: apiJob }),
      await shot(account.alice, site.home, { jobId: scheduleJob }),
      await shot(account.alice, site.home, { jobId: dashboardJob }),
      await shot(account.alice, site.home, { executionId: failedRun }), // the step's
      await shot(account.alice, site.home, { executionId: failedRun }), // the failure shot
      await shot(account.alice, site.home, { executionId: okRun }),
      await shot(account.alice, site.home, { jobId: foreignJob }), // a job of another account is never read
    ];
    const sources = await queries.sources(account.alice, shots);
    expect(shots.map((s) => sources.get(s.id) ?? null)).toEqual(['api', 'schedule', 'dashboard', 'scenario', 'failure', 'scenario', null]);
    // The failure shot is told even when only the step's screenshot is on the page.
    expect((await queries.sources(account.alice, [shots[3]])).get(shots[3].id)).toBe('scenario');
    expect((await queries.sources(account.alice, [shots[4]])).get(shots[4].id)).toBe('failure');
    expect(await queries.sources(account.alice, [])).toEqual(new Map());
  });

  it('websiteChoices: a picker gets the newest matches up to the limit (not every website), narrowed by a name/URL search, with the selected one always in', async () => {
    const carol = await insertAccount(dataSource, 'carol-picker@example.com', NOW);
    const ids: number[] = [];
    for (let i = 1; i <= 60; i++) ids.push(await insertWebsite(carol, `Shop ${i}`, `https://shop${i}.example/`));
    const all = await queries.websiteChoices(carol, undefined, undefined, 50);
    expect(all.websites.map((w) => w.id)).toEqual([...ids].reverse().slice(0, 50));
    expect(all.more).toBe(true);
    const narrowed = await queries.websiteChoices(carol, 'SHOP5', undefined, 50);
    expect(narrowed.websites.map((w) => w.name)).toEqual([
      'Shop 59',
      'Shop 58',
      'Shop 57',
      'Shop 56',
      'Shop 55',
      'Shop 54',
      'Shop 53',
      'Shop 52',
      'Shop 51',
      'Shop 50',
      'Shop 5',
    ]);
    expect(narrowed.more).toBe(false);
    // The selected website stays offered when the search would leave it out; another account's never is.
    const selected = await queries.websiteChoices(carol, 'shop5', ids[0], 50);
    expect(selected.websites[0]).toEqual({ id: ids[0], name: 'Shop 1' });
    expect((await queries.websiteChoices(carol, undefined, site.bob, 50)).websites.map((w) => w.id)).not.toContain(site.bob);
    expect((await queries.websiteChoices(carol, 'acme', undefined, 50)).websites).toEqual([]);
  });

  it("websiteNames: the names of the account's own websites among the ids, in reads of a few hundred ids", async () => {
    const dave = await insertAccount(dataSource, 'dave-names@example.com', NOW);
    const ids: number[] = [];
    for (let i = 1; i <= 520; i++) ids.push(await insertWebsite(dave, `Page ${i}`, `https://page${i}.example/`));
    const names = await queries.websiteNames(dave, [...ids, ids[0], site.bob, 999_999_999]);
    expect(names.size).toBe(520);
    expect(names.get(ids[0])).toBe('Page 1');
    expect(names.get(ids[519])).toBe('Page 520');
    expect(names.has(site.bob)).toBe(false);
    expect(await queries.websiteNames(dave, [])).toEqual(new Map());
  });
});
