import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, integer, timestampColumn, varchar } from './support/columns';

export class WebsitesJobsScreenshots1763800100000 implements MigrationInterface {
  name = 'WebsitesJobsScreenshots1763800100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'websites',
        columns: [
          idColumn(),
          integer('account_id'),
          varchar('name', 255),
          varchar('url', 2048),
          integer('viewport_width'),
          integer('viewport_height'),
          { name: 'full_page', type: 'boolean' },
          varchar('status', 16),
          timestampColumn(queryRunner, 'last_screenshot_at', true),
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'updated_at'),
        ],
        indices: [new TableIndex({ name: 'ix_websites_account', columnNames: ['account_id', 'id'] })],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
    // The durable record of every job, whatever transport carries it: GET /jobs/{id} answers from here.
    await queryRunner.createTable(
      new Table({
        name: 'jobs',
        columns: [
          { ...varchar('id', 36), isPrimary: true },
          varchar('type', 16),
          integer('account_id'),
          // No foreign key: a job outlives its website (it is then failed with "website was deleted").
          integer('website_id', true),
          varchar('status', 16),
          varchar('source', 16),
          { name: 'options', type: 'text', isNullable: true },
          varchar('idempotency_key', 255, true),
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'error', type: 'text', isNullable: true },
          integer('screenshot_id', true),
          // Scenario executions are jobs too (type 'scenario'): same transport, retries and durability.
          integer('scenario_id', true),
          integer('schedule_id', true),
          // Per-step results of a scenario execution (JSON).
          { name: 'result', type: 'text', isNullable: true },
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'started_at', true),
          timestampColumn(queryRunner, 'finished_at', true),
        ],
        indices: [
          new TableIndex({ name: 'ix_jobs_account', columnNames: ['account_id', 'created_at'] }),
          new TableIndex({ name: 'ix_jobs_status', columnNames: ['status', 'created_at'] }),
          new TableIndex({ name: 'ix_jobs_website', columnNames: ['website_id', 'status'] }),
          new TableIndex({ name: 'uq_jobs_idempotency', columnNames: ['account_id', 'idempotency_key'], isUnique: true }),
        ],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'screenshots',
        columns: [
          idColumn(),
          integer('account_id'),
          integer('website_id'),
          // Unique: a redelivered capture job can never produce a second screenshot.
          varchar('job_id', 36, true),
          // Scenario screenshots: several per execution, so they carry the execution instead of job_id.
          integer('scenario_id', true),
          varchar('execution_id', 36, true),
          varchar('file_path', 512),
          integer('file_size'),
          integer('width'),
          integer('height'),
          varchar('status', 16),
          timestampColumn(queryRunner, 'taken_at'),
        ],
        indices: [
          new TableIndex({ name: 'uq_screenshots_job', columnNames: ['job_id'], isUnique: true }),
          new TableIndex({ name: 'ix_screenshots_account', columnNames: ['account_id', 'id'] }),
          new TableIndex({ name: 'ix_screenshots_website', columnNames: ['website_id', 'id'] }),
          new TableIndex({ name: 'ix_screenshots_execution', columnNames: ['execution_id'] }),
        ],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
          new TableForeignKey({ columnNames: ['website_id'], referencedTableName: 'websites', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('screenshots');
    await queryRunner.dropTable('jobs');
    await queryRunner.dropTable('websites');
  }
}
