import { MigrationInterface, QueryRunner } from 'typeorm';
import { isPostgres } from './support/columns';

/**
 * One 3-day rule for webhooks and notification channels (API.md, Webhooks and Notification channels): an
 * endpoint whose every delivery failed for 3 days is disabled by the service, which keeps why and when. Webhooks
 * had failing_since and disabled_reason; both now keep disabled_at, and channels get all three.
 */
export class EndpointDisabledAt1763801020000 implements MigrationInterface {
  name = 'EndpointDisabledAt1763801020000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestamp = isPostgres(queryRunner) ? 'timestamptz' : 'datetime';
    // Plain ALTER (same text on both databases but the timestamp type): TypeORM's addColumn would rebuild the
    // table on SQLite.
    await queryRunner.query(`ALTER TABLE webhooks ADD COLUMN disabled_at ${timestamp} NULL`);
    await queryRunner.query(`ALTER TABLE notification_channels ADD COLUMN failing_since ${timestamp} NULL`);
    await queryRunner.query('ALTER TABLE notification_channels ADD COLUMN disabled_reason varchar(200) NULL');
    await queryRunner.query(`ALTER TABLE notification_channels ADD COLUMN disabled_at ${timestamp} NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE notification_channels DROP COLUMN disabled_at');
    await queryRunner.query('ALTER TABLE notification_channels DROP COLUMN disabled_reason');
    await queryRunner.query('ALTER TABLE notification_channels DROP COLUMN failing_since');
    await queryRunner.query('ALTER TABLE webhooks DROP COLUMN disabled_at');
  }
}
