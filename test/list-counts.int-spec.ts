import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DateUtils } from 'typeorm/util/DateUtils';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { insertAccount, migratedDataSource } from './support/migrated-database';
import { JobRow } from '../src/modules/jobs/infrastructure/job.row';
import { ScreenshotRow } from '../src/modules/screenshots/infrastructure/screenshot.row';
import { WebsiteRow } from '../src/modules/websites/infrastructure/website.row';
import { ValidationFailedError } from '../src/shared/domain/domain-error';
import type { PageRequest } from '../src/shared/domain/page-request';
import { counterName, findOne, findPage } from '../src/shared/persistence/hot-query';
import { sqliteConnection } from '../src/shared/persistence/sqlite-connection';

/**
 * Here rather than beside hot-query.ts: it needs two contexts' row entities, which shared/ may not import.
 *
 * The kept totals (list_counts) and the overview's hourly rollup (usage_hours) of migration 1763801100000, on
 * both databases: after any sequence of inserts, status changes, moves and deletes — one by one, in bulk as the
 * retention sweep does, through a website's cascade — every counter equals the COUNT(*) (or SUM) it stands for.
 * The sequences are random but seeded, so a failure names a sequence that can be replayed.
 *
 * And findPage's keyset pages: walking a list through its cursors (forwards, backwards, from the end) gives
 * exactly the pages OFFSET gives.
 */

/** mulberry32: a small seeded generator, so a failing sequence can be replayed from its seed. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;

/** The columns of a website row that no test here looks at, for `Site ${i}` of `account`. */
const websiteRow = (account: number, i: number) => ({
  accountId: account,
  name: `Site ${i}`,
  url: `https://example.com/${i}`,
  viewportWidth: 1280,
  viewportHeight: 800,
  fullPage: false,
  status: 'active',
});
const START = Date.parse('2030-01-01T00:00:00.000Z');
const HOUR = 3_600_000;

describe.each(['sqlite', 'postgres'] as const)('list_counts and usage_hours on %s (kept by triggers)', (engine) => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let accounts: number[];

  /** `?` → `$n` on PostgreSQL. */
  const sql = (text: string) => {
    if (engine === 'sqlite') return text;
    let n = 0;
    return text.replace(/\?/g, () => `$${++n}`);
  };
  /** Dates as each driver stores them (SQLite: UTC text). */
  const bind = (value: unknown) => (value instanceof Date && engine === 'sqlite' ? DateUtils.mixedDateToUtcDatetimeString(value) : value);
  const q = (text: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> => dataSource.query(sql(text), params.map(bind));
  const hour = (column: string) =>
    engine === 'postgres' ? `(FLOOR(EXTRACT(EPOCH FROM ${column}) / 3600) * 3600)::bigint` : `((CAST(strftime('%s', ${column}) AS INTEGER) / 3600) * 3600)`;

  beforeAll(async () => {
    db = await createTestDatabase({ engine });
    dataSource = await migratedDataSource(db, [JobRow, ScreenshotRow, WebsiteRow]);
    accounts = [
      await insertAccount(dataSource, `a-${engine}@example.com`, new Date(START)),
      await insertAccount(dataSource, `b-${engine}@example.com`, new Date(START)),
    ];
  }, 60_000);
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  /** What every counter should say, computed from the rows (the same definitions as the migration's backfill). */
  async function expectedCounts(): Promise<Map<string, number>> {
    const queries = [
      `SELECT account_id, 'screenshots' AS list, COUNT(*) AS n FROM screenshots GROUP BY account_id`,
      `SELECT account_id, 'screenshots:website=' || website_id AS list, COUNT(*) AS n FROM screenshots GROUP BY account_id, website_id`,
      `SELECT account_id, 'screenshots:scenario=' || scenario_id AS list, COUNT(*) AS n FROM screenshots WHERE scenario_id IS NOT NULL GROUP BY account_id, scenario_id`,
      `SELECT account_id, 'changes:website=' || website_id AS list, COUNT(*) AS n FROM screenshots WHERE changed = TRUE GROUP BY account_id, website_id`,
      `SELECT account_id, 'bytes' AS list, SUM(file_size) AS n FROM screenshots GROUP BY account_id`,
      `SELECT account_id, 'jobs' AS list, COUNT(*) AS n FROM jobs GROUP BY account_id`,
      `SELECT account_id, 'jobs:status=' || status AS list, COUNT(*) AS n FROM jobs GROUP BY account_id, status`,
      `SELECT account_id, 'jobs:type=' || type AS list, COUNT(*) AS n FROM jobs GROUP BY account_id, type`,
      `SELECT account_id, 'jobs:website=' || website_id AS list, COUNT(*) AS n FROM jobs WHERE website_id IS NOT NULL GROUP BY account_id, website_id`,
      `SELECT account_id, 'executions:scenario=' || scenario_id AS list, COUNT(*) AS n FROM jobs WHERE type = 'scenario' AND scenario_id IS NOT NULL GROUP BY account_id, scenario_id`,
      `SELECT account_id, 'websites' AS list, COUNT(*) AS n FROM websites GROUP BY account_id`,
    ];
    const out = new Map<string, number>();
    for (const text of queries) for (const row of await q(text)) out.set(`${Number(row.account_id)}|${String(row.list)}`, Number(row.n));
    return out;
  }

  async function keptCounts(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const row of await q('SELECT account_id, list, total FROM list_counts'))
      if (Number(row.total) !== 0) out.set(`${Number(row.account_id)}|${String(row.list)}`, Number(row.total));
    return out;
  }

  async function expectedUsage(): Promise<Map<string, string>> {
    const jobs = await q(
      `SELECT account_id, ${hour('created_at')} AS hour, COUNT(*) AS jobs, SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failures FROM jobs ` +
        `GROUP BY account_id, ${hour('created_at')}`,
    );
    const shots = await q(`SELECT account_id, ${hour('taken_at')} AS hour, SUM(file_size) AS bytes FROM screenshots GROUP BY account_id, ${hour('taken_at')}`);
    const rows = new Map<string, [number, number, number]>();
    const at = (r: Record<string, unknown>) => {
      const key = `${Number(r.account_id)}|${Number(r.hour)}`;
      if (!rows.has(key)) rows.set(key, [0, 0, 0]);
      return rows.get(key)!;
    };
    for (const r of jobs) Object.assign(at(r), { 0: Number(r.jobs), 1: Number(r.failures) });
    for (const r of shots) at(r)[2] = Number(r.bytes);
    return new Map([...rows].filter(([, v]) => v.some((n) => n !== 0)).map(([k, v]) => [k, v.join(',')]));
  }

  async function keptUsage(): Promise<Map<string, string>> {
    const rows = await q('SELECT account_id, hour, jobs, failures, bytes FROM usage_hours');
    return new Map(
      rows
        .map((r) => [`${Number(r.account_id)}|${Number(r.hour)}`, [Number(r.jobs), Number(r.failures), Number(r.bytes)]] as const)
        .filter(([, v]) => v.some((n) => n !== 0))
        .map(([k, v]) => [k, v.join(',')]),
    );
  }

  it.each([1, 2, 3])(
    'random sequence %i: every counter equals its COUNT(*) after every step',
    async (seed) => {
      const random = generator(seed * 7919 + (engine === 'postgres' ? 1 : 0));
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
      const at = () => new Date(START + Math.floor(random() * 72 * HOUR));
      const websites = new Map<number, number>(); // website → account
      let steps = 0;

      async function addWebsite(): Promise<void> {
        const account = pick(accounts);
        await q(
          'INSERT INTO websites (account_id, name, url, viewport_width, viewport_height, full_page, status, created_at, updated_at) VALUES (?, ?, ?, 1280, 800, ?, ?, ?, ?)',
          [account, `site ${websites.size}`, 'https://example.com/', engine === 'postgres' ? false : 0, 'active', new Date(START), new Date(START)],
        );
        const [{ id }] = await q('SELECT MAX(id) AS id FROM websites');
        websites.set(Number(id), account);
      }

      const operations: Array<[number, () => Promise<void>]> = [
        [2, addWebsite],
        [
          6,
          async () => {
            if (websites.size === 0) return addWebsite();
            const website = pick([...websites.keys()]);
            const changed = pick([null, true, false]);
            await dataSource.getRepository(ScreenshotRow).insert({
              accountId: websites.get(website)!,
              websiteId: website,
              jobId: null,
              scenarioId: random() < 0.3 ? pick([1, 2]) : null,
              executionId: null,
              filePath: 'x',
              format: 'png',
              fileSize: 1 + Math.floor(random() * 100_000),
              width: 1280,
              height: 800,
              status: 'success',
              takenAt: at(),
              fullPage: false,
              changed,
            });
          },
        ],
        [
          5,
          async () => {
            const account = pick(accounts);
            const owned = [...websites].filter(([, a]) => a === account).map(([w]) => w);
            const type = random() < 0.3 ? 'scenario' : 'screenshot';
            await dataSource.getRepository(JobRow).insert({
              id: randomUUID(),
              type,
              accountId: account,
              websiteId: owned.length && random() < 0.8 ? pick(owned) : null,
              status: pick(STATUSES),
              source: 'api',
              options: {},
              idempotencyKey: null,
              attempts: 0,
              error: null,
              screenshotId: null,
              scenarioId: random() < 0.5 ? pick([1, 2]) : null,
              scheduleId: null,
              result: null,
              createdAt: at(),
              startedAt: null,
              finishedAt: null,
            } as never);
          },
        ],
        [
          4,
          async () => {
            // A status change (claim, success, failure, a retry back to queued).
            const [job] = await q('SELECT id FROM jobs ORDER BY id LIMIT 1 OFFSET ?', [Math.floor(random() * 20)]);
            if (job) await q('UPDATE jobs SET status = ? WHERE id = ?', [pick(STATUSES), job.id]);
          },
        ],
        [
          1,
          async () => {
            // A job moved off its website or scenario, or to the other type.
            const [job] = await q('SELECT id FROM jobs ORDER BY id DESC LIMIT 1 OFFSET ?', [Math.floor(random() * 10)]);
            if (job)
              await q('UPDATE jobs SET website_id = NULL, scenario_id = ?, type = ? WHERE id = ?', [
                pick([null, 1, 2]),
                pick(['scenario', 'screenshot']),
                job.id,
              ]);
          },
        ],
        [
          2,
          async () => {
            const [shot] = await q('SELECT id FROM screenshots ORDER BY id DESC LIMIT 1 OFFSET ?', [Math.floor(random() * 10)]);
            if (shot)
              await q('UPDATE screenshots SET changed = ? WHERE id = ?', [engine === 'postgres' ? pick([true, false, null]) : pick([1, 0, null]), shot.id]);
          },
        ],
        [
          1,
          async () => {
            // Rewritten instants (an operator's UPDATE): bytes and jobs move between hours; a status may change too.
            const [shot] = await q('SELECT id FROM screenshots ORDER BY id DESC LIMIT 1 OFFSET ?', [Math.floor(random() * 10)]);
            if (shot) await q('UPDATE screenshots SET taken_at = ?, file_size = ? WHERE id = ?', [at(), 1 + Math.floor(random() * 1000), shot.id]);
            const [job] = await q('SELECT id FROM jobs ORDER BY id LIMIT 1 OFFSET ?', [Math.floor(random() * 10)]);
            if (job) await q('UPDATE jobs SET created_at = ?, status = ? WHERE id = ?', [at(), pick(STATUSES), job.id]);
          },
        ],
        [
          2,
          async () => {
            const [shot] = await q('SELECT id FROM screenshots ORDER BY id LIMIT 1 OFFSET ?', [Math.floor(random() * 10)]);
            if (shot) await q('DELETE FROM screenshots WHERE id = ?', [shot.id]);
          },
        ],
        // The retention sweep: everything taken before a cutoff, in one statement.
        [0.5, async () => void (await q('DELETE FROM screenshots WHERE taken_at < ?', [new Date(START + Math.floor(random() * 12 * HOUR))]))],
        // A website's deletion: its screenshots go with it (ON DELETE CASCADE).
        [
          0.7,
          async () => {
            if (websites.size === 0) return;
            const website = pick([...websites.keys()]);
            await q('DELETE FROM websites WHERE id = ?', [website]);
            websites.delete(website);
          },
        ],
        [0.5, async () => void (await q('DELETE FROM jobs WHERE account_id = ? AND status = ?', [pick(accounts), pick(STATUSES)]))],
      ];
      const weight = operations.reduce((sum, [w]) => sum + w, 0);
      for (let i = 0; i < 120; i++) {
        let roll = random() * weight;
        const [, operation] = operations.find(([w]) => (roll -= w) < 0) ?? operations[0];
        await operation();
        steps++;
        if (i % 20 === 19) {
          expect({ steps, counts: await keptCounts() }).toEqual({ steps, counts: await expectedCounts() });
          expect({ steps, usage: await keptUsage() }).toEqual({ steps, usage: await expectedUsage() });
        }
      }
      expect((await expectedCounts()).size).toBeGreaterThan(5); // the sequence did build lists
    },
    120_000,
  );

  it('findPage: walking the cursors (next, prev, last) gives the OFFSET pages; the total is the counter; a foreign cursor is a 422', async () => {
    const jobs = dataSource.getRepository(JobRow);
    const account = accounts[0];
    // Equal created_at for some rows: the id breaks the tie, so no row is skipped or repeated.
    for (let i = 0; i < 23; i++) {
      await jobs.insert({
        id: randomUUID(),
        type: 'screenshot',
        accountId: account,
        websiteId: null,
        status: 'queued',
        source: 'api',
        options: {},
        idempotencyKey: null,
        attempts: 0,
        error: null,
        screenshotId: null,
        scenarioId: null,
        scheduleId: null,
        result: null,
        createdAt: new Date(START + 1000 * HOUR + Math.floor(i / 3) * 1000),
        startedAt: null,
        finishedAt: null,
      } as never);
    }
    const where = { accountId: account, status: 'queued' };
    const order: Array<['createdAt' | 'id', 'DESC']> = [
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ];
    const counter = { accountId: account, list: counterName('jobs', { status: 'queued' }) };
    const read = (page: PageRequest) => findPage(jobs, where, order, page, counter);
    const [{ n }] = await q(`SELECT COUNT(*) AS n FROM jobs WHERE account_id = ? AND status = 'queued'`, [account]);
    const total = Number(n);
    const perPage = 4;
    const lastPage = Math.ceil(total / perPage);
    const byOffset: string[][] = [];
    for (let p = 1; p <= lastPage; p++) byOffset.push((await read({ page: p, perPage })).rows.map((r) => r.id));
    expect(new Set(byOffset.flat()).size).toBe(total);

    let current = await read({ page: 1, perPage });
    expect(current.total).toBe(total);
    for (let p = 2; p <= lastPage; p++) {
      current = await read({ page: p, perPage, from: { after: JSON.parse(JSON.stringify(current.edges!.last)) as unknown[] } });
      expect([p, current.rows.map((r) => r.id)]).toEqual([p, byOffset[p - 1]]);
      expect(current.total).toBe(total);
    }
    for (let p = lastPage - 1; p >= 1; p--) {
      current = await read({ page: p, perPage, from: { before: JSON.parse(JSON.stringify(current.edges!.first)) as unknown[] } });
      expect([p, current.rows.map((r) => r.id)]).toEqual([p, byOffset[p - 1]]);
    }
    expect((await read({ page: lastPage, perPage, from: { end: true } })).rows.map((r) => r.id)).toEqual(byOffset[lastPage - 1]);
    // A screenshots cursor (an integer id) on the jobs list, and a date that is not one.
    await expect(read({ page: 2, perPage, from: { after: [17] } })).rejects.toBeInstanceOf(ValidationFailedError);
    await expect(read({ page: 2, perPage, from: { after: ['not a date', 'x'] } })).rejects.toBeInstanceOf(ValidationFailedError);
    await expect(read({ page: 2, perPage, from: { after: [new Date(START).toISOString(), 5] } })).rejects.toBeInstanceOf(ValidationFailedError);
  }, 60_000);

  it('findPage and findOne hydrate rows exactly as TypeORM finds them (dates, JSON, nulls, numbers), in the same order', async () => {
    const jobs = dataSource.getRepository(JobRow);
    const account = accounts[1];
    await jobs.insert({
      id: randomUUID(),
      type: 'screenshot',
      accountId: account,
      websiteId: null,
      status: 'failed',
      source: 'api',
      options: { url: 'https://example.com/', full_page: true, nested: { list: [1, 'two', null] } },
      idempotencyKey: 'key-1',
      attempts: 3,
      error: 'It broke: "quoted" and ünïcode',
      screenshotId: null,
      scenarioId: null,
      scheduleId: null,
      result: null,
      createdAt: new Date(START + 2000 * HOUR + 123),
      startedAt: new Date(START + 2000 * HOUR + 456),
      finishedAt: null,
    } as never);
    const where = { accountId: account };
    const found = await jobs.find({ where, order: { createdAt: 'DESC', id: 'DESC' }, take: 30 });
    expect(found.length).toBeGreaterThan(1);
    const page = await findPage(jobs, where, [['createdAt', 'DESC']], { page: 1, perPage: 30 });
    expect(page.rows).toEqual(found);
    expect(page.rows.every((row) => row instanceof JobRow)).toBe(true);
    const shots = dataSource.getRepository(ScreenshotRow);
    const [shot] = await shots.find({ where: { accountId: accounts[0] }, order: { id: 'ASC' }, take: 1 });
    expect(await findOne(shots, { id: shot.id })).toEqual(shot);
    for (const row of found.slice(0, 3)) expect(await findOne(jobs, { id: row.id })).toEqual(row);
    expect(await findOne(jobs, { id: randomUUID() })).toBeNull();

    // Booleans both ways, JSON columns null and set, a double, a null date.
    const websites = dataSource.getRepository(WebsiteRow);
    for (const [i, fullPage] of [true, false].entries()) {
      await websites.insert({
        ...websiteRow(account, i),
        fullPage,
        captureOptions: i === 0 ? { format: 'png', wait_until: 'stable' } : null,
        changeThreshold: 0.125,
        changeIgnoreSelectors: i === 0 ? ['.ad', '#clock'] : null,
        alertWhen: i === 0 ? { keyword: 'sold out' } : null,
        ignoreText: i === 0 ? [] : null,
        lastScreenshotAt: i === 0 ? new Date(START + 7) : null,
        createdAt: new Date(START + i),
        updatedAt: new Date(START + 2 * i),
      } as never);
    }
    const sites = await websites.find({ where: { accountId: account }, order: { id: 'DESC' }, take: 30 });
    expect(sites.slice(0, 2).map((w) => [w.name, w.fullPage])).toEqual([
      ['Site 1', false],
      ['Site 0', true],
    ]);
    expect((await findPage(websites, { accountId: account }, [['id', 'DESC']], { page: 1, perPage: 30 })).rows).toEqual(sites);
  });
});

describe('findPage on SQLite', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase({ engine: 'sqlite' });
    dataSource = await migratedDataSource(db, [JobRow, ScreenshotRow, WebsiteRow]);
  }, 60_000);
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('binds no bare LIMIT parameter (SQLite would compile the statement again on every run)', async () => {
    const account = await insertAccount(dataSource, 'limit@example.com', new Date(START));
    const websites = dataSource.getRepository(WebsiteRow);
    for (let i = 0; i < 5; i++) {
      await websites.insert({ ...websiteRow(account, i), createdAt: new Date(START + i), updatedAt: new Date(START + i) });
    }
    const connection = sqliteConnection(dataSource);
    const prepared: string[] = [];
    const prepare = connection.prepare.bind(connection);
    const spy = jest.spyOn(connection, 'prepare').mockImplementation((text: string) => {
      prepared.push(text);
      return prepare(text);
    });
    try {
      const read = (page: PageRequest) => findPage(websites, { accountId: account }, [['name', 'ASC']], page);
      const first = await read({ page: 1, perPage: 2 });
      const second = await read({ page: 2, perPage: 2, from: { after: first.edges!.last } });
      await read({ page: 1, perPage: 2, from: { before: second.edges!.first } });
      await read({ page: 3, perPage: 2, from: { end: true } });
      expect(second.rows.map((w) => w.name)).toEqual(['Site 2', 'Site 3']);
    } finally {
      spy.mockRestore();
    }
    const pages = prepared.filter((text) => /\bLIMIT\b/.test(text));
    expect(pages.length).toBeGreaterThanOrEqual(4);
    for (const text of pages) expect(text).not.toMatch(/\bLIMIT\s+[?:$@]/);
  });
});
