import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Change conditions (issue 46, item 3): a website's `alert_when` (JSON object, the wire shape) and `ignore_text`
 * (JSON list of regular expressions), both NULL for none — every change counts, as before. Plain ALTERs: the same
 * text on SQLite and PostgreSQL.
 */
export class ChangeConditions1763801600000 implements MigrationInterface {
  name = 'ChangeConditions1763801600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE websites ADD COLUMN alert_when text NULL');
    await queryRunner.query('ALTER TABLE websites ADD COLUMN ignore_text text NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE websites DROP COLUMN ignore_text');
    await queryRunner.query('ALTER TABLE websites DROP COLUMN alert_when');
  }
}
