import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, integer, timestampColumn, varchar } from './support/columns';

export class ScenariosAndSchedules1763800200000 implements MigrationInterface {
  name = 'ScenariosAndSchedules1763800200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const ownedBy = () => [
      new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
      // Deleting a website deletes its scenarios and schedules.
      new TableForeignKey({ columnNames: ['website_id'], referencedTableName: 'websites', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
    ];
    await queryRunner.createTable(
      new Table({
        name: 'scenarios',
        columns: [
          idColumn(),
          integer('account_id'),
          integer('website_id'),
          varchar('name', 255),
          { name: 'description', type: 'text', isNullable: true },
          varchar('status', 16),
          { name: 'steps', type: 'text' },
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'updated_at'),
        ],
        indices: [new TableIndex({ name: 'ix_scenarios_account', columnNames: ['account_id', 'id'] })],
        foreignKeys: ownedBy(),
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'schedules',
        columns: [
          idColumn(),
          integer('account_id'),
          integer('website_id'),
          varchar('name', 255),
          varchar('frequency', 16),
          varchar('time', 5),
          varchar('timezone', 64),
          integer('day_of_week', true),
          { name: 'enabled', type: 'boolean' },
          timestampColumn(queryRunner, 'next_run_at', true),
          timestampColumn(queryRunner, 'last_run_at', true),
          varchar('last_job_id', 36, true),
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'ix_schedules_account', columnNames: ['account_id', 'id'] }),
          // The ticker's query: enabled schedules whose next run has passed.
          new TableIndex({ name: 'ix_schedules_due', columnNames: ['enabled', 'next_run_at'] }),
        ],
        foreignKeys: ownedBy(),
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('schedules');
    await queryRunner.dropTable('scenarios');
  }
}
