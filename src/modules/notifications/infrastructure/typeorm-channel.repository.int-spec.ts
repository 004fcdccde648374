import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../../../../test/support/test-database';
import { insertAccount, migratedDataSource } from '../../../../test/support/migrated-database';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { NotificationChannelRow } from './channel.row';
import { TypeOrmChannelRepository } from './typeorm-channel.repository';

const REASON = 'every delivery failed for 3 days';

/**
 * The channels table's side of the 3-day rule on a real database: SQLite in the embedded pass, PostgreSQL when
 * DATABASE_URL is set (the scaled-out pass). Two attempts crossing the line at once both disable the channel;
 * only the one whose conditional UPDATE changed the row is told so (the dispatcher logs the warning once).
 */
describe('TypeOrmChannelRepository (real database)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let channels: TypeOrmChannelRepository;
  let accountId: number;
  const T0 = new Date('2030-01-01T12:00:00.000Z');

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await migratedDataSource(db, [NotificationChannelRow]);
    accountId = await insertAccount(dataSource, 'channels@example.com', T0, 'Channels');
    channels = new TypeOrmChannelRepository(dataSource.getRepository(NotificationChannelRow), dataSource, new SecretBox(randomBytes(32)));
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('disable: of two calls for one channel, one disables it (true) and the other finds it disabled (false)', async () => {
    const channel = await channels.createWithinLimit(
      { accountId, name: 'Ops', type: 'email', target: 'ops@example.com', events: ['screenshot.failed'], websiteIds: null, createdAt: T0 },
      10,
    );
    const at = new Date(T0.getTime() + 3 * 86_400_000);
    const told = await Promise.all([channels.disable(channel!.id, REASON, at), channels.disable(channel!.id, REASON, at)]);
    expect(told.sort()).toEqual([false, true]);
    expect(await channels.findById(channel!.id)).toMatchObject({ enabled: false, disabledReason: REASON, disabledAt: at });
    // Once more, one after the other: already disabled, nothing changes.
    expect(await channels.disable(channel!.id, REASON, new Date(at.getTime() + 1000))).toBe(false);
    expect(await channels.findById(channel!.id)).toMatchObject({ enabled: false, disabledAt: at });
  });

  describe('addWebsite / removeWebsite (a monitor links its website)', () => {
    const create = (websiteIds: number[] | null) =>
      channels.createWithinLimit(
        { accountId, name: 'Mon', type: 'email', target: 'mon@example.com', events: ['screenshot.changed'], websiteIds, createdAt: T0 },
        20,
      );

    it('ten concurrent monitors linking one channel each keep their website (one conditional write each, no lost update)', async () => {
      const channel = (await create([1]))!;
      const ids = Array.from({ length: 10 }, (_, i) => 1000 + i);
      expect(await Promise.all(ids.map((w) => channels.addWebsite(channel.id, w, 100)))).toEqual(ids.map(() => true));
      expect((await channels.findById(channel.id))!.websiteIds!.sort((a, b) => a - b)).toEqual([1, ...ids]);
      // Named already: true, and not added twice (10 is not taken as a part of 1000, nor 1 of 1001).
      expect(await channels.addWebsite(channel.id, 1000, 100)).toBe(true);
      expect(await channels.addWebsite(channel.id, 10, 100)).toBe(true);
      const after = (await channels.findById(channel.id))!.websiteIds!;
      expect(after).toHaveLength(12);
      expect(after.filter((w) => w === 1000)).toHaveLength(1);
      expect(after.filter((w) => w === 10)).toHaveLength(1);
    });

    it('a full list takes no more (false); a channel for every website needs none (true, still every website); a missing channel is false', async () => {
      const full = (await create([1, 2, 3]))!;
      expect(await channels.addWebsite(full.id, 4, 3)).toBe(false);
      expect((await channels.findById(full.id))!.websiteIds).toEqual([1, 2, 3]);
      const every = (await create(null))!;
      expect(await channels.addWebsite(every.id, 4, 3)).toBe(true);
      expect((await channels.findById(every.id))!.websiteIds).toBeNull();
      expect(await channels.addWebsite(999_999, 4, 3)).toBe(false);
    });

    it('removeWebsite takes the website out, but never empties a list (empty would mean every website)', async () => {
      const channel = (await create([5, 6]))!;
      await channels.removeWebsite(channel.id, 6);
      expect((await channels.findById(channel.id))!.websiteIds).toEqual([5]);
      await channels.removeWebsite(channel.id, 5);
      expect((await channels.findById(channel.id))!.websiteIds).toEqual([5]);
    });
  });
});
