import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The capture report (API.md "Capture report"): screenshots.capture_report holds it as JSON text (HTTP status,
 * final URL, title, page height, truncated, settled, waited ms, pending requests). NULL for rows from before and
 * for scenario step shots: the API shows `capture: null`. A plain ALTER, the same text on both databases.
 */
export class CaptureReport1763800850000 implements MigrationInterface {
  name = 'CaptureReport1763800850000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE screenshots ADD COLUMN capture_report text NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE screenshots DROP COLUMN capture_report');
  }
}
