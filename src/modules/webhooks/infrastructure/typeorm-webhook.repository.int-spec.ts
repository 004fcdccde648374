import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../../../../test/support/test-database';
import { insertAccount, migratedDataSource } from '../../../../test/support/migrated-database';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { FAILING_DISABLED_REASON } from '../domain/webhook';
import { TypeOrmWebhookRepository } from './typeorm-webhook.repository';
import { WebhookDeliveryRow, WebhookRow } from './webhook.rows';

/**
 * The webhooks table's side of the 3-day rule on a real database: SQLite in the embedded pass, PostgreSQL when
 * DATABASE_URL is set (the scaled-out pass). Two attempts crossing the line at once both disable the webhook;
 * only the one whose conditional UPDATE changed the row is told so (the dispatcher logs the warning once).
 */
describe('TypeOrmWebhookRepository (real database)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let webhooks: TypeOrmWebhookRepository;
  let accountId: number;
  const T0 = new Date('2030-01-01T12:00:00.000Z');

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await migratedDataSource(db, [WebhookRow, WebhookDeliveryRow]);
    accountId = await insertAccount(dataSource, 'hooks@example.com', T0, 'Hooks');
    webhooks = new TypeOrmWebhookRepository(
      dataSource.getRepository(WebhookRow),
      dataSource.getRepository(WebhookDeliveryRow),
      dataSource,
      new SecretBox(randomBytes(32)),
    );
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('disable: of two calls for one webhook, one disables it (true) and the other finds it disabled (false)', async () => {
    const hook = await webhooks.createWithinLimit(
      { accountId, url: 'https://hooks.example.com/in', events: ['screenshot.failed'], description: null, secret: 'whsec_test', createdAt: T0 },
      10,
    );
    const at = new Date(T0.getTime() + 3 * 86_400_000);
    const told = await Promise.all([webhooks.disable(hook!.id, FAILING_DISABLED_REASON, at), webhooks.disable(hook!.id, FAILING_DISABLED_REASON, at)]);
    expect(told.sort()).toEqual([false, true]);
    expect(await webhooks.findById(hook!.id)).toMatchObject({ enabled: false, disabledReason: FAILING_DISABLED_REASON, disabledAt: at });
    // Once more, one after the other: already disabled, nothing changes.
    expect(await webhooks.disable(hook!.id, FAILING_DISABLED_REASON, new Date(at.getTime() + 1000))).toBe(false);
    expect(await webhooks.findById(hook!.id)).toMatchObject({ enabled: false, disabledAt: at });
  });
});
