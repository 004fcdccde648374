import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, integer, timestampColumn, varchar } from './support/columns';

/**
 * System render keys (issue 46, alert links): one key per account and purpose that the service itself signs links
 * with (the image, diff and compare links of notifications), kept apart from the account's own render keys so it
 * never shows in their list, never counts against their limit of 20 and never signs a `/render` link. One per
 * (account, purpose): two instances making it at once insert one row (the other reads it). The secret is sealed.
 */
export class RenderSystemKeys1763801700000 implements MigrationInterface {
  name = 'RenderSystemKeys1763801700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'render_system_keys',
        columns: [
          idColumn(),
          integer('account_id'),
          varchar('purpose', 32),
          varchar('access_key', 64),
          { name: 'secret_sealed', type: 'text', isNullable: false },
          timestampColumn(queryRunner, 'created_at'),
        ],
        indices: [
          new TableIndex({ name: 'ux_render_system_keys_access_key', columnNames: ['access_key'], isUnique: true }),
          new TableIndex({ name: 'ux_render_system_keys_account_purpose', columnNames: ['account_id', 'purpose'], isUnique: true }),
        ],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('render_system_keys');
  }
}
