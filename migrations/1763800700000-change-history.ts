import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { isPostgres } from './support/columns';

/**
 * Visual change history (API.md, Change history): each capture is compared with the previous one of its website
 * taken with comparable settings.
 * - screenshots.full_page: how it was taken (the gallery's badge; part of what makes two captures comparable).
 * - screenshots.compare_key: a digest of the settings that make captures comparable (viewport, scale, device,
 *   full_page, selector, clip); NULL for what is never compared (scenario shots, PDFs, rows from before).
 * - screenshots.content_hash: a digest of the file's bytes; a capture whose bytes equal its previous one's is
 *   recorded unchanged (ratio 0) in the transaction that inserts it, without any comparison work.
 * - screenshots.ignore_boxes: JSON boxes, in the image's pixels, of the website's change_ignore_selectors when
 *   the capture was taken (masked out of comparisons).
 * - screenshots.previous_id .. compared_at: the comparison; change_status 'pending' until it is done ('done'),
 *   NULL when there was nothing to compare with. compare_claimed_until holds a pending comparison for the worker
 *   doing it. change_emitted_at: the screenshot.changed webhook event was emitted.
 * - websites.change_threshold / change_ignore_selectors: the website's comparison settings.
 * Plain ALTERs (same text on both databases but the types) as in the earlier column additions.
 */
export class ChangeHistory1763800700000 implements MigrationInterface {
  name = 'ChangeHistory1763800700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const pg = isPostgres(queryRunner);
    const timestamp = pg ? 'timestamptz' : 'datetime';
    const real = pg ? 'double precision' : 'real';
    for (const column of [
      'full_page boolean NOT NULL DEFAULT false',
      'compare_key varchar(64) NULL',
      'content_hash varchar(64) NULL',
      'ignore_boxes text NULL',
      'previous_id integer NULL',
      'change_status varchar(8) NULL',
      `changed_ratio ${real} NULL`,
      'changed boolean NULL',
      `compared_at ${timestamp} NULL`,
      `compare_claimed_until ${timestamp} NULL`,
      `change_emitted_at ${timestamp} NULL`,
    ]) {
      await queryRunner.query(`ALTER TABLE screenshots ADD COLUMN ${column}`);
    }
    await queryRunner.query(`ALTER TABLE websites ADD COLUMN change_threshold ${real} NOT NULL DEFAULT 0.001`);
    await queryRunner.query('ALTER TABLE websites ADD COLUMN change_ignore_selectors text NULL');
    // The previous comparable capture of a website; GET /websites/{id}/changes; pending comparisons.
    await queryRunner.createIndex('screenshots', new TableIndex({ name: 'ix_screenshots_comparable', columnNames: ['website_id', 'compare_key', 'id'] }));
    await queryRunner.createIndex('screenshots', new TableIndex({ name: 'ix_screenshots_changes', columnNames: ['website_id', 'changed', 'id'] }));
    await queryRunner.createIndex('screenshots', new TableIndex({ name: 'ix_screenshots_change_status', columnNames: ['change_status'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const index of ['ix_screenshots_comparable', 'ix_screenshots_changes', 'ix_screenshots_change_status'])
      await queryRunner.dropIndex('screenshots', index);
    for (const column of [
      'full_page',
      'compare_key',
      'content_hash',
      'ignore_boxes',
      'previous_id',
      'change_status',
      'changed_ratio',
      'changed',
      'compared_at',
      'compare_claimed_until',
      'change_emitted_at',
    ]) {
      await queryRunner.query(`ALTER TABLE screenshots DROP COLUMN ${column}`);
    }
    await queryRunner.query('ALTER TABLE websites DROP COLUMN change_threshold');
    await queryRunner.query('ALTER TABLE websites DROP COLUMN change_ignore_selectors');
  }
}
