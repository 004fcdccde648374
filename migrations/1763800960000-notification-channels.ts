import { MigrationInterface, QueryRunner, Table, TableColumn, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, integer, isPostgres, timestampColumn, varchar } from './support/columns';

/**
 * Notification channels (issue 31): e-mail, Slack and Discord subscribers of the webhook events. Their deliveries
 * are rows of webhook_deliveries (the same claims, retries and rate limit), told apart by channel_id; so
 * webhook_id becomes nullable there. Deleting a channel deletes its deliveries (foreign key, as for webhooks).
 */
export class NotificationChannels1763800960000 implements MigrationInterface {
  name = 'NotificationChannels1763800960000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'notification_channels',
        columns: [
          idColumn(),
          integer('account_id'),
          varchar('name', 255),
          varchar('type', 16),
          // Sealed with SecretBox: a Slack or Discord incoming-webhook URL is a credential (whoever has it can post).
          { name: 'target_sealed', type: 'text', isNullable: false },
          // The subscribed event types, comma-separated.
          varchar('events', 500),
          // Comma-separated website ids; NULL: every website of the account.
          { name: 'website_ids', type: 'text', isNullable: true },
          { name: 'enabled', type: 'boolean', isNullable: false, default: true },
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'updated_at'),
        ],
        indices: [new TableIndex({ name: 'ix_notification_channels_account', columnNames: ['account_id', 'id'] })],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
    if (isPostgres(queryRunner)) {
      await queryRunner.query('ALTER TABLE webhook_deliveries ALTER COLUMN webhook_id DROP NOT NULL');
      await queryRunner.query('ALTER TABLE webhook_deliveries ADD COLUMN channel_id integer NULL REFERENCES notification_channels(id) ON DELETE CASCADE');
    } else {
      // SQLite cannot drop a NOT NULL in place: TypeORM rebuilds the (small) table, keeping its keys and indices.
      await queryRunner.changeColumn('webhook_deliveries', 'webhook_id', new TableColumn({ name: 'webhook_id', type: 'integer', isNullable: true }));
      await queryRunner.addColumn('webhook_deliveries', new TableColumn({ name: 'channel_id', type: 'integer', isNullable: true }));
      await queryRunner.createForeignKey(
        'webhook_deliveries',
        new TableForeignKey({ columnNames: ['channel_id'], referencedTableName: 'notification_channels', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
      );
    }
    await queryRunner.createIndex('webhook_deliveries', new TableIndex({ name: 'ix_webhook_deliveries_channel', columnNames: ['channel_id', 'created_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('webhook_deliveries', 'ix_webhook_deliveries_channel');
    await queryRunner.query('DELETE FROM webhook_deliveries WHERE webhook_id IS NULL');
    if (isPostgres(queryRunner)) {
      await queryRunner.query('ALTER TABLE webhook_deliveries DROP COLUMN channel_id');
      await queryRunner.query('ALTER TABLE webhook_deliveries ALTER COLUMN webhook_id SET NOT NULL');
    } else {
      await queryRunner.dropColumn('webhook_deliveries', 'channel_id');
      await queryRunner.changeColumn('webhook_deliveries', 'webhook_id', new TableColumn({ name: 'webhook_id', type: 'integer', isNullable: false }));
    }
    await queryRunner.dropTable('notification_channels');
  }
}
