import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, integer, timestampColumn, varchar } from './support/columns';

/**
 * Render keys (issue 30, signed links): each signs `/render` links for one account. The access key travels in
 * links and picks the key (unique, looked up on every signed render); the secret is sealed with SecretBox, since
 * checking a MAC needs it back. Deleting the account deletes its keys.
 */
export class RenderKeys1763801010000 implements MigrationInterface {
  name = 'RenderKeys1763801010000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'render_keys',
        columns: [
          idColumn(),
          integer('account_id'),
          varchar('name', 100, true),
          varchar('access_key', 64),
          { name: 'secret_sealed', type: 'text', isNullable: false },
          timestampColumn(queryRunner, 'created_at'),
        ],
        indices: [
          new TableIndex({ name: 'ux_render_keys_access_key', columnNames: ['access_key'], isUnique: true }),
          new TableIndex({ name: 'ix_render_keys_account', columnNames: ['account_id', 'id'] }),
        ],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('render_keys');
  }
}
