import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, integer, timestampColumn, varchar } from './support/columns';

/**
 * Saved sessions (issue 44): an account's logged-in browser states, by name. The cookies and storage are one sealed
 * column (SecretBox); `version` counts the states a session has had (a capture that found version n logged out
 * refreshes it only while it is still n), and `refresh_claimed_until` is the claim one process holds while it logs
 * in again. Deleting the account deletes its sessions; deleting the login scenario leaves the session (its state
 * still works) without a scenario (it cannot log in again).
 */
export class SavedSessions1763801400000 implements MigrationInterface {
  name = 'SavedSessions1763801400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'saved_sessions',
        columns: [
          idColumn(),
          integer('account_id'),
          varchar('name', 100),
          varchar('logged_in_selector', 1024, true),
          varchar('source', 16),
          integer('scenario_id', true),
          varchar('status', 16),
          { name: 'state_sealed', type: 'text', isNullable: true },
          { name: 'version', type: 'integer', isNullable: false, default: 0 },
          timestampColumn(queryRunner, 'refreshed_at', true),
          timestampColumn(queryRunner, 'expires_at', true),
          { name: 'error', type: 'text', isNullable: true },
          { name: 'refresh_count', type: 'integer', isNullable: false, default: 0 },
          timestampColumn(queryRunner, 'refresh_claimed_until', true),
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'updated_at'),
        ],
        indices: [new TableIndex({ name: 'ux_saved_sessions_account_name', columnNames: ['account_id', 'name'], isUnique: true })],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
          new TableForeignKey({ columnNames: ['scenario_id'], referencedTableName: 'scenarios', referencedColumnNames: ['id'], onDelete: 'SET NULL' }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('saved_sessions');
  }
}
