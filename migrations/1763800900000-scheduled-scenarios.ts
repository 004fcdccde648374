import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Schedules that run a scenario (issue 31): schedules.scenario_id, NULL for a schedule that captures its website.
 * Deleting the scenario deletes its schedules, as deleting a website does (ON DELETE CASCADE; SQLite accepts a
 * REFERENCES clause on ADD COLUMN when the default is NULL). The new frequencies (every_5_minutes …) fit the
 * existing varchar(16) frequency column and need no change. Plain statements, the same text on both databases.
 */
export class ScheduledScenarios1763800900000 implements MigrationInterface {
  name = 'ScheduledScenarios1763800900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE schedules ADD COLUMN scenario_id integer NULL REFERENCES scenarios (id) ON DELETE CASCADE');
    await queryRunner.query('CREATE INDEX ix_schedules_scenario ON schedules (scenario_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // TypeORM's dropColumn, not ALTER TABLE … DROP COLUMN: SQLite refuses to drop a column with a foreign key and
    // TypeORM rebuilds the table there instead.
    await queryRunner.dropIndex('schedules', 'ix_schedules_scenario');
    await queryRunner.dropColumn('schedules', 'scenario_id');
  }
}
