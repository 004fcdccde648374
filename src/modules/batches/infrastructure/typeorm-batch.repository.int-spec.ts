import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { insertAccount, migratedDataSource } from '../../../../test/support/migrated-database';
import { createTestDatabase, TestDatabase } from '../../../../test/support/test-database';
import { BatchItemRow, BatchRow } from './batch.rows';
import { TypeOrmBatchRepository } from './typeorm-batch.repository';

/**
 * The batch's counters and its end on the real database (SQLite, or PostgreSQL in the scaled-out pass): items
 * reported at once by many callers — the last items of a batch ending on several workers, a retry reporting an
 * item again, a reconciliation racing its runner — count once each, and exactly one call sees the batch end.
 */
describe('TypeOrmBatchRepository (real database)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let repo: TypeOrmBatchRepository;
  let accountId: number;
  const at = new Date('2034-03-01T10:00:00.000Z');

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await migratedDataSource(db, [BatchRow, BatchItemRow]);
    repo = new TypeOrmBatchRepository(dataSource.getRepository(BatchRow), dataSource.getRepository(BatchItemRow), dataSource);
    accountId = await insertAccount(dataSource, 'batches@example.com', at);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  async function batchOf(n: number) {
    const id = randomUUID();
    const items = Array.from({ length: n }, (_, position) => ({ position, url: `https://example.com/${position}`, jobId: randomUUID() }));
    await repo.create({ id, accountId, name: 'concurrent', createdAt: at, items });
    return { id, jobs: items.map((item) => item.jobId) };
  }

  const failed = (finishedAt = at) => ({ outcome: 'failed' as const, error: 'The page did not answer within 30 s', file: null, finishedAt });
  const succeeded = (position: number) => ({
    outcome: 'succeeded' as const,
    error: null,
    file: { key: `batches/1/x/${position}.png`, format: 'png' as const, size: 10, width: 1280, height: 800 },
    finishedAt: at,
  });

  it('60 items ended at once, each reported twice: every item counted once, exactly one call ends the batch', async () => {
    const { id, jobs } = await batchOf(60);
    const calls = [...jobs, ...jobs].map((job, i) => repo.endItems(id, [job], i % 3 === 0 ? failed() : succeeded(i % 60)));
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((o) => o.completed)).toHaveLength(1);
    expect(outcomes.reduce((sum, o) => sum + o.ended, 0)).toBe(60);
    const batch = await repo.findById(id);
    expect(batch).toMatchObject({ status: 'completed', total: 60 });
    expect(batch!.succeeded + batch!.failed).toBe(60);
    expect(batch!.cancelled).toBe(0);
    expect(batch!.completedAt).toEqual(at);
    const items = await repo.allItems(id);
    expect(items.every((item) => item.status !== 'queued')).toBe(true);
    expect(items.filter((item) => item.status === 'succeeded').every((item) => item.file?.format === 'png')).toBe(true);
    // Announced once: listed until marked, then never again.
    expect((await repo.completedToEmit(at, 10)).map((b) => b.id)).toContain(id);
    await repo.markEmitted(id, at);
    expect((await repo.completedToEmit(at, 10)).map((b) => b.id)).not.toContain(id);
  });

  it('a cancel ends the queued items in one call; the batch ends `cancelled` when its last running item ends, not before', async () => {
    const { id, jobs } = await batchOf(5);
    expect(await repo.requestCancel(id, at)).toBe(true);
    const running = jobs[0];
    const cancel = await repo.endItems(id, jobs.slice(1), { outcome: 'cancelled', error: 'Cancelled', file: null, finishedAt: at });
    expect(cancel).toEqual({ ended: 4, completed: false });
    expect(await repo.findById(id)).toMatchObject({ status: 'running', cancelled: 4, cancelRequestedAt: at });
    expect(await repo.endItems(id, [running], succeeded(0))).toEqual({ ended: 1, completed: true });
    expect(await repo.findById(id)).toMatchObject({ status: 'cancelled', succeeded: 1, cancelled: 4 });
    // An ended batch takes no cancel.
    expect(await repo.requestCancel(id, at)).toBe(false);
  });

  it('pages items in the list’s order by cursor; another batch’s items never show', async () => {
    const { id } = await batchOf(7);
    await batchOf(3);
    const first = await repo.items(id, { page: 1, perPage: 3 });
    expect(first.total).toBe(7);
    expect(first.items.map((i) => i.position)).toEqual([0, 1, 2]);
    const second = await repo.items(id, { page: 2, perPage: 3, from: { after: first.edges!.last } });
    expect(second.items.map((i) => i.position)).toEqual([3, 4, 5]);
    const last = await repo.items(id, { page: 3, perPage: 3, from: { end: true } });
    expect(last.items.map((i) => i.position)).toEqual([6]);
  });
});
