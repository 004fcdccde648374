import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `session_id` as a field of its own on scenarios and schedules (issue 44): the saved session their runs start
 * with, NULL for none (the website's capture_options session_id, as before). No foreign key: deleting a session is
 * refused while a scenario or a schedule names it (SessionsService.delete), and a run naming a session gone in a
 * race fails in words ("The saved session 5 does not exist") rather than being quietly captured logged out. Indexed:
 * the Sessions page and a delete look up who names a session by this column; and schedules by website, for the
 * schedules whose website's capture options name a session (nothing indexed schedules.website_id before: its
 * foreign key's cascade read the table too). Plain statements, the same text on SQLite and PostgreSQL.
 */
export class ScenarioScheduleSessions1763801800000 implements MigrationInterface {
  name = 'ScenarioScheduleSessions1763801800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE scenarios ADD COLUMN session_id integer NULL');
    await queryRunner.query('CREATE INDEX ix_scenarios_session ON scenarios (session_id)');
    await queryRunner.query('ALTER TABLE schedules ADD COLUMN session_id integer NULL');
    await queryRunner.query('CREATE INDEX ix_schedules_session ON schedules (session_id)');
    await queryRunner.query('CREATE INDEX ix_schedules_website ON schedules (website_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('schedules', 'ix_schedules_website');
    await queryRunner.dropIndex('schedules', 'ix_schedules_session');
    await queryRunner.dropColumn('schedules', 'session_id');
    await queryRunner.dropIndex('scenarios', 'ix_scenarios_session');
    await queryRunner.dropColumn('scenarios', 'session_id');
  }
}
