import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Text changes (API.md "Text changes"): each image capture keeps the page's visible text as a stored object beside
 * the image (`<id>.text.txt`, removed with it), so list endpoints read no text.
 * - screenshots.text_hash: a digest of that text; NULL when none was kept (PDFs, scenario step shots, rows from
 *   before). Equal to the previous capture's (and equal file bytes) = unchanged, known at insert.
 * - screenshots.text_added / text_removed: lines added and removed since the compared capture; NULL while pending,
 *   or when either capture kept no text. `changed` now means pixels over the threshold OR text changed.
 * Plain ALTERs, the same text on both databases.
 */
export class TextChanges1763800910000 implements MigrationInterface {
  name = 'TextChanges1763800910000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const column of ['text_hash varchar(64) NULL', 'text_added integer NULL', 'text_removed integer NULL']) {
      await queryRunner.query(`ALTER TABLE screenshots ADD COLUMN ${column}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const column of ['text_hash', 'text_added', 'text_removed']) await queryRunner.query(`ALTER TABLE screenshots DROP COLUMN ${column}`);
  }
}
