import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, integer, timestampColumn, varchar } from './support/columns';

export class AccountsAndTokens1763800000000 implements MigrationInterface {
  name = 'AccountsAndTokens1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'accounts',
        columns: [
          idColumn(),
          varchar('name', 255),
          varchar('email', 320),
          varchar('plan', 16),
          varchar('subscription_status', 16),
          timestampColumn(queryRunner, 'expires_at', true),
          integer('rate_limit_per_minute', true),
          integer('rate_limit_per_hour', true),
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'updated_at'),
        ],
        indices: [new TableIndex({ name: 'uq_accounts_email', columnNames: ['email'], isUnique: true })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'api_tokens',
        columns: [
          idColumn(),
          integer('account_id'),
          varchar('name', 255),
          varchar('display_prefix', 16),
          // SHA-256 hex of the secret: the only form in which a token is ever stored.
          varchar('token_hash', 64),
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'last_used_at', true),
          timestampColumn(queryRunner, 'revoked_at', true),
        ],
        indices: [
          new TableIndex({ name: 'uq_api_tokens_hash', columnNames: ['token_hash'], isUnique: true }),
          new TableIndex({ name: 'ix_api_tokens_account', columnNames: ['account_id'] }),
        ],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('api_tokens');
    await queryRunner.dropTable('accounts');
  }
}
