import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { integer, timestampColumn, varchar } from './support/columns';

/** Dashboard sign-in: account passwords (scrypt), web sessions (SHA-256 of the cookie) and the lock-out state. */
export class DashboardSignIn1763800300000 implements MigrationInterface {
  name = 'DashboardSignIn1763800300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER (same text on both databases): TypeORM's addColumn rebuilds the table on SQLite, and dropping
    // the old accounts table with foreign keys on would cascade into every account's tokens and websites.
    await queryRunner.query('ALTER TABLE accounts ADD COLUMN password_hash varchar(255)');
    await queryRunner.createTable(
      new Table({
        name: 'dashboard_sessions',
        columns: [
          { ...varchar('session_hash', 64), isPrimary: true },
          integer('account_id'),
          varchar('csrf_token', 64),
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'expires_at'),
        ],
        indices: [new TableIndex({ name: 'ix_dashboard_sessions_account', columnNames: ['account_id'] })],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'sign_in_throttle',
        columns: [
          { ...varchar('throttle_key', 340), isPrimary: true },
          integer('failures'),
          timestampColumn(queryRunner, 'locked_until', true),
          timestampColumn(queryRunner, 'updated_at'),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('sign_in_throttle');
    await queryRunner.dropTable('dashboard_sessions');
    await queryRunner.query('ALTER TABLE accounts DROP COLUMN password_hash');
  }
}
