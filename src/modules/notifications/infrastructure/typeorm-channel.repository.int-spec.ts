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
});
