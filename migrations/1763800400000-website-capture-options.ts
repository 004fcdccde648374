import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Websites' saved capture defaults (API.md, Capture options), as JSON text: the first is `wait_until`
 * (issue 16); more options join the same object without another migration. NULL: nothing saved.
 */
export class WebsiteCaptureOptions1763800400000 implements MigrationInterface {
  name = 'WebsiteCaptureOptions1763800400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER (same text on both databases): TypeORM's addColumn rebuilds the table on SQLite, and dropping
    // the old websites table with foreign keys on would cascade into every website's screenshots and scenarios.
    await queryRunner.query('ALTER TABLE websites ADD COLUMN capture_options text');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE websites DROP COLUMN capture_options');
  }
}
