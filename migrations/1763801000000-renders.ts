import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { integer, timestampColumn, varchar } from './support/columns';

/**
 * Renders (issue 30, API.md "Render in one call", "Render cache"): GET/POST /render's cache entries, not a
 * website's screenshots. `live_key` is the cache key while a row is its account's live entry for that key, NULL
 * once retired: the unique index on (account_id, live_key) is what makes identical concurrent misses, on any
 * number of API processes, insert ONE entry (NULLs never collide, on SQLite and PostgreSQL alike).
 */
export class Renders1763801000000 implements MigrationInterface {
  name = 'Renders1763801000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'renders',
        columns: [
          { ...varchar('id', 36), isPrimary: true },
          integer('account_id'),
          varchar('cache_key', 64),
          varchar('live_key', 64, true),
          { name: 'url', type: 'text', isNullable: false },
          varchar('status', 16),
          varchar('format', 8),
          varchar('file_key', 255, true),
          integer('file_size', true),
          integer('width', true),
          integer('height', true),
          { name: 'capture_report', type: 'text', isNullable: true },
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'finished_at', true),
          timestampColumn(queryRunner, 'expires_at', true),
          timestampColumn(queryRunner, 'keep_until'),
        ],
        indices: [
          new TableIndex({ name: 'ux_renders_live', columnNames: ['account_id', 'live_key'], isUnique: true }),
          new TableIndex({ name: 'ix_renders_keep_until', columnNames: ['keep_until'] }),
        ],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('renders');
  }
}
