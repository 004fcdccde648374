import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, integer, isPostgres, timestampColumn, varchar } from './support/columns';

/**
 * Webhooks (issue 18): the endpoints an account registered, and their deliveries — durable rows claimed like jobs,
 * so every event is delivered at least once across restarts and instances. jobs.webhooks_emitted_at marks a
 * finished job whose events have been turned into deliveries (NULL: not yet); jobs that ended before this
 * migration count as emitted, so registering a webhook never replays history.
 */
export class Webhooks1763800600000 implements MigrationInterface {
  name = 'Webhooks1763800600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'webhooks',
        columns: [
          idColumn(),
          integer('account_id'),
          varchar('url', 2048),
          // The subscribed event types, comma-separated (a handful of short names).
          varchar('events', 500),
          varchar('description', 500, true),
          { name: 'enabled', type: 'boolean', isNullable: false, default: true },
          // Sealed with SecretBox: the signing secret is needed in plain text to sign, so it is encrypted, not hashed.
          { name: 'secret_sealed', type: 'text', isNullable: false },
          // Since when every delivery has failed (NULL once one succeeds); three days of it disables the endpoint.
          timestampColumn(queryRunner, 'failing_since', true),
          varchar('disabled_reason', 200, true),
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'updated_at'),
        ],
        indices: [new TableIndex({ name: 'ix_webhooks_account', columnNames: ['account_id', 'id'] })],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'webhook_deliveries',
        columns: [
          // The message id (`webhook-id` header): the same on every attempt, and derived from (webhook, event) so
          // two instances emitting the same event insert one row.
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          integer('webhook_id'),
          integer('account_id'),
          varchar('event_type', 40),
          // The job or execution the event is about (NULL for webhook.test).
          varchar('source_id', 36, true),
          { name: 'payload', type: 'text', isNullable: false },
          varchar('status', 16),
          { name: 'attempts', type: 'integer', isNullable: false, default: 0 },
          timestampColumn(queryRunner, 'next_attempt_at'),
          // An attempt in progress holds the row until then; a sender that died is replaced after it.
          timestampColumn(queryRunner, 'locked_until', true),
          integer('last_status_code', true),
          varchar('last_error', 500, true),
          integer('last_duration_ms', true),
          timestampColumn(queryRunner, 'last_attempt_at', true),
          timestampColumn(queryRunner, 'created_at'),
        ],
        indices: [
          new TableIndex({ name: 'ix_webhook_deliveries_due', columnNames: ['status', 'next_attempt_at'] }),
          new TableIndex({ name: 'ix_webhook_deliveries_webhook', columnNames: ['webhook_id', 'created_at'] }),
        ],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['webhook_id'], referencedTableName: 'webhooks', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
    // Plain ALTER (same text on both databases): TypeORM's addColumn would rebuild the table on SQLite.
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN webhooks_emitted_at ${isPostgres(queryRunner) ? 'timestamptz' : 'datetime'} NULL`);
    await queryRunner.query(`UPDATE jobs SET webhooks_emitted_at = finished_at WHERE finished_at IS NOT NULL`);
    // The emitter looks only at the jobs of accounts that have webhooks: by account, then unemitted, then by end.
    await queryRunner.createIndex(
      'jobs',
      new TableIndex({ name: 'ix_jobs_webhooks_pending', columnNames: ['account_id', 'webhooks_emitted_at', 'finished_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('jobs', 'ix_jobs_webhooks_pending');
    await queryRunner.query('ALTER TABLE jobs DROP COLUMN webhooks_emitted_at');
    await queryRunner.dropTable('webhook_deliveries');
    await queryRunner.dropTable('webhooks');
  }
}
