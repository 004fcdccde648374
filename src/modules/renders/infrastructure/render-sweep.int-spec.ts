import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../../../../test/support/test-database';
import { FakeClock } from '../../../../test/support/fake-clock';
import type { AppConfig } from '../../../config/app-config';
import { insertAccount, migratedDataSource } from '../../../../test/support/migrated-database';
import { LocalDiskStorage } from '../../screenshots/infrastructure/local-disk-storage';
import { renderContentsKey, renderFileKey } from '../domain/render';
import { RenderRow } from './render.row';
import { TypeOrmRenderRepository } from './typeorm-render.repository';
import { RenderSweeper, SWEEP_GRACE_MS } from '../application/render-sweeper';
import type { StoredRender } from '../application/ports';

/**
 * The render cache sweep on a real database (SQLite, or PostgreSQL when DATABASE_URL is set) and real storage (local
 * disk): an entry made ready or kept longer between the sweep's read and its deletes is never deleted, a row the
 * sweep has claimed is never revived, and sweepers meeting on one entry all succeed.
 */
describe('RenderSweeper: claim before delete (real database, real storage)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let storageDir: string;
  let renders: TypeOrmRenderRepository;
  let storage: LocalDiskStorage;
  let clock: FakeClock;
  let accountId: number;

  const T0 = new Date('2030-01-01T12:00:00.000Z');
  const at = (ms: number) => new Date(T0.getTime() + ms);
  /** The sweep's clock: T0 is past its keepUntil + grace. */
  const SWEEP_AT = at(SWEEP_GRACE_MS + 1000);
  const CUTOFF = at(1000);

  const sweeper = () => new RenderSweeper(renders, storage, clock, { role: 'worker' } as AppConfig);

  function stored(id: string, finishedAt: Date, keepUntil: Date): StoredRender {
    return {
      fileKey: renderFileKey(accountId, id, 'png'),
      fileSize: 3,
      width: 10,
      height: 10,
      capture: null,
      finishedAt,
      expiresAt: keepUntil,
      keepUntil,
    };
  }

  /** A render with its object stored, kept until T0: ready (its job ended 2 minutes before), or still pending. */
  async function entry(status: 'ready' | 'pending'): Promise<{ id: string; key: string }> {
    const id = randomUUID();
    const key = renderFileKey(accountId, id, 'png');
    const inserted = await renders.insertLive({
      id,
      accountId,
      cacheKey: `key-${id}`.slice(0, 64),
      url: 'https://example.com/',
      format: 'png',
      createdAt: at(-3_600_000),
      keepUntil: T0,
    });
    expect(inserted).toBe(true);
    await storage.put(key, Buffer.from('png'));
    if (status === 'ready') expect(await renders.markReady(id, stored(id, at(-120_000), T0))).toBe(true);
    expect((await renders.findById(id))?.keepUntil).toEqual(T0);
    return { id, key };
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    storageDir = mkdtempSync(join(tmpdir(), 'render-sweep-'));
    dataSource = await migratedDataSource(db, [RenderRow]);
    accountId = await insertAccount(dataSource, 'renders@example.com', T0, 'Renders');
    renders = new TypeOrmRenderRepository(dataSource.getRepository(RenderRow));
    storage = new LocalDiskStorage({ storageDir } as AppConfig);
    clock = new FakeClock();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
    rmSync(storageDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    clock.set(SWEEP_AT);
    await dataSource.query('DELETE FROM renders');
  });
  afterEach(() => jest.restoreAllMocks());

  it('never deletes an entry made ready, or kept longer, between the sweep’s read and its deletes', async () => {
    const late = await entry('pending');
    const again = await entry('ready');
    const expired = await entry('ready');
    // A late attempt of each job ends right after the sweep read the rows (its time taken before the sweep's).
    const read = renders.keptUntilBefore.bind(renders);
    jest.spyOn(renders, 'keptUntilBefore').mockImplementation(async (now, limit) => {
      const rows = await read(now, limit);
      expect(rows.map((row) => row.id).sort()).toEqual([late.id, again.id, expired.id].sort());
      expect(await renders.markReady(late.id, stored(late.id, at(-1000), at(3_600_000)))).toBe(true);
      expect(await renders.markReady(again.id, stored(again.id, at(-1000), at(7_200_000)))).toBe(true);
      return rows;
    });

    expect(await sweeper().sweep()).toBe(1);

    expect(await renders.findById(late.id)).toMatchObject({ status: 'ready', keepUntil: at(3_600_000), liveKey: `key-${late.id}`.slice(0, 64) });
    expect(await renders.findById(again.id)).toMatchObject({ status: 'ready', keepUntil: at(7_200_000) });
    expect(await storage.exists(late.key)).toBe(true);
    expect(await storage.exists(again.key)).toBe(true);
    // The one still expired is deleted, object and row.
    expect(await renders.findById(expired.id)).toBeNull();
    expect(await storage.exists(expired.key)).toBe(false);
  });

  it('a claimed row is never revived: markReady, markFailed and keepAtLeast leave it swept, and the late job learns it', async () => {
    const { id, key } = await entry('pending');
    expect(await renders.claimForSweep(id, CUTOFF)).toBe(true);
    expect(await renders.findById(id)).toMatchObject({ status: 'swept', liveKey: null, keepUntil: T0 });
    expect(await renders.findLive(accountId, `key-${id}`.slice(0, 64))).toBeNull();

    expect(await renders.markReady(id, stored(id, at(-1000), at(3_600_000)))).toBe(false);
    await renders.markFailed(id, at(-1000), at(3_600_000));
    await renders.keepAtLeast(id, at(3_600_000));
    expect(await renders.findById(id)).toMatchObject({ status: 'swept', liveKey: null, keepUntil: T0 });

    // A ready row claimed: a second attempt of its job is refused too (whether it would extend keepUntil or not).
    const ready = await entry('ready');
    expect(await renders.claimForSweep(ready.id, CUTOFF)).toBe(true);
    expect(await renders.markReady(ready.id, stored(ready.id, at(-1000), at(3_600_000)))).toBe(false);
    expect(await renders.markReady(ready.id, stored(ready.id, at(-200_000), at(-100_000)))).toBe(false);
    expect(await renders.findById(ready.id)).toMatchObject({ status: 'swept', keepUntil: T0 });

    // A row no longer expired is not claimed; another sweeper claiming a claimed row succeeds.
    const kept = await entry('ready');
    expect(await renders.claimForSweep(kept.id, at(-1000))).toBe(false);
    expect(await renders.findById(kept.id)).toMatchObject({ status: 'ready' });
    expect(await renders.claimForSweep(id, at(-1000))).toBe(true);

    // Claimed rows (a sweeper that failed after claiming) are found again and removed with their objects.
    expect(await sweeper().sweep()).toBe(3);
    expect(await renders.findById(id)).toBeNull();
    expect(await storage.exists(key)).toBe(false);
    expect(await storage.exists(ready.key)).toBe(false);
  });

  it('a sweep whose object delete fails leaves the row claimed, and the next sweep removes both', async () => {
    const { id, key } = await entry('ready');
    const remove = storage.delete.bind(storage);
    const failing = jest.spyOn(storage, 'delete').mockRejectedValueOnce(new Error('storage is down'));
    await expect(sweeper().sweep()).rejects.toThrow('storage is down');
    expect(await renders.findById(id)).toMatchObject({ status: 'swept' });
    expect(await storage.exists(key)).toBe(true);
    failing.mockImplementation(remove);
    expect(await sweeper().sweep()).toBe(1);
    expect(await renders.findById(id)).toBeNull();
    expect(await storage.exists(key)).toBe(false);
  });

  it('sweepers on several instances meeting on the same entries all succeed, and leave no row or object', async () => {
    const entries = await Promise.all(Array.from({ length: 6 }, (_, i) => entry(i % 2 ? 'ready' : 'pending')));
    const results = await Promise.all([sweeper().sweep(), sweeper().sweep(), sweeper().sweep()]);
    expect(results.every((n) => n >= 0)).toBe(true);
    for (const { id, key } of entries) {
      expect(await renders.findById(id)).toBeNull();
      expect(await storage.exists(key)).toBe(false);
    }
  });
  it('a render made with `formats` has its page content swept with its file', async () => {
    clock.set(SWEEP_AT);
    const { id, key } = await entry('ready');
    await storage.put(renderContentsKey(key), Buffer.from('{"markdown":"# T"}'));
    expect(await sweeper().sweep()).toBe(1);
    expect(await renders.findById(id)).toBeNull();
    expect(await storage.exists(key)).toBe(false);
    expect(await storage.exists(renderContentsKey(key))).toBe(false);
  });
});
