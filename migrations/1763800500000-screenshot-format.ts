import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each screenshot's file format (API.md, Capture options: `format`): png, jpeg, webp or pdf. Screenshots stored
 * before formats existed are PNGs, which the default says.
 */
export class ScreenshotFormat1763800500000 implements MigrationInterface {
  name = 'ScreenshotFormat1763800500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER (same text on both databases), as for websites.capture_options: TypeORM's addColumn would
    // rebuild the table on SQLite.
    await queryRunner.query("ALTER TABLE screenshots ADD COLUMN format varchar(8) NOT NULL DEFAULT 'png'");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE screenshots DROP COLUMN format');
  }
}
