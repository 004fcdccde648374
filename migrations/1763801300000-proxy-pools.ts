import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, integer, timestampColumn, varchar } from './support/columns';

/**
 * Proxy pools (issue 44): an account's named lists of upstream proxies. The URLs hold credentials, so the list is
 * one sealed column (SecretBox); the name is unique per account (captures name a pool by `proxy_pool`). Deleting
 * the account deletes its pools.
 */
export class ProxyPools1763801300000 implements MigrationInterface {
  name = 'ProxyPools1763801300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'proxy_pools',
        columns: [
          idColumn(),
          integer('account_id'),
          varchar('name', 100),
          varchar('rotation', 16),
          { name: 'proxies_sealed', type: 'text', isNullable: false },
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'updated_at'),
        ],
        indices: [new TableIndex({ name: 'ux_proxy_pools_account_name', columnNames: ['account_id', 'name'], isUnique: true })],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('proxy_pools');
  }
}
