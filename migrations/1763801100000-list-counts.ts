import { MigrationInterface, QueryRunner } from 'typeorm';
import { isPostgres } from './support/columns';
import { backfill, Dialect, triggers } from './support/list-counts-sql';

/**
 * A year of data (issue 45): lists and the dashboard overview that cost the same at a million screenshots as at a
 * hundred.
 *
 * - list_counts: one row per account and list (`screenshots`, `screenshots:website=12`, `jobs:status=failed`,
 *   `changes:website=12`, `websites`, …, and `bytes`, the stored bytes' running total), moved by triggers in the
 *   same transaction as every insert, delete and status change — the API's, the retention sweep's, a website's
 *   cascade — so meta.total is a primary-key read instead of a COUNT(*) over the list.
 * - usage_hours: per account and UTC hour, the jobs asked for, how many failed and the bytes of the screenshots taken
 *   (still stored): the overview's 24-hour and 30-day charts read at most 720 rows instead of the tables.
 * - Indexes for every list's filter and order, so keyset pages ((created_at, id) < cursor) are index range reads.
 *
 * Both dialects write the same statements; only the trigger wrapping and the hour's arithmetic differ. Locks on
 * PostgreSQL: usage_hours is touched before list_counts in every trigger, and a status change moves its two
 * counters in key order, so concurrent captures of one account queue on the counter rows without deadlocking.
 */

/** [name, table, columns]: every list's filter and order, the retention sweep's cutoff. */
const INDEXES: Array<[string, string, string]> = [
  ['ix_jobs_account_created', 'jobs', 'account_id, created_at, id'],
  ['ix_jobs_account_status', 'jobs', 'account_id, status, created_at, id'],
  ['ix_jobs_account_type', 'jobs', 'account_id, type, created_at, id'],
  ['ix_jobs_account_website', 'jobs', 'account_id, website_id, created_at, id'],
  ['ix_jobs_account_scenario', 'jobs', 'account_id, scenario_id, created_at, id'],
  ['ix_screenshots_account_website', 'screenshots', 'account_id, website_id, id'],
  ['ix_screenshots_account_scenario', 'screenshots', 'account_id, scenario_id, id'],
  // A website's changes (GET /websites/{id}/changes): equality on all three, then id — SQLite otherwise took the
  // (account_id, website_id, id) index and read every screenshot of a website without changes.
  ['ix_screenshots_account_changes', 'screenshots', 'account_id, website_id, changed, id'],
  ['ix_screenshots_taken', 'screenshots', 'taken_at, id'],
];

export class ListCounts1763801100000 implements MigrationInterface {
  name = 'ListCounts1763801100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const d: Dialect = isPostgres(queryRunner) ? 'postgres' : 'sqlite';
    await queryRunner.query(
      'CREATE TABLE list_counts (account_id integer NOT NULL, list varchar(100) NOT NULL, total bigint NOT NULL, PRIMARY KEY (account_id, list))',
    );
    await queryRunner.query(
      'CREATE TABLE usage_hours (account_id integer NOT NULL, hour bigint NOT NULL, jobs integer NOT NULL, failures integer NOT NULL, bytes bigint NOT NULL, ' +
        'PRIMARY KEY (account_id, hour))',
    );
    for (const sql of backfill(d)) await queryRunner.query(sql);
    for (const t of triggers(d)) {
      if (d === 'sqlite') {
        await queryRunner.query(
          `CREATE TRIGGER ${t.name} AFTER ${t.event} ON ${t.table} FOR EACH ROW${t.when ? ` WHEN ${t.when}` : ''} BEGIN ${t.body.join(' ')} END`,
        );
        continue;
      }
      await queryRunner.query(`CREATE FUNCTION ${t.name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${t.body.join(' ')} RETURN NULL; END $$`);
      await queryRunner.query(
        `CREATE TRIGGER ${t.name} AFTER ${t.event} ON ${t.table} FOR EACH ROW${t.when ? ` WHEN (${t.when})` : ''} EXECUTE FUNCTION ${t.name}()`,
      );
    }
    for (const [name, table, columns] of INDEXES) await queryRunner.query(`CREATE INDEX ${name} ON ${table} (${columns})`);
    // Same prefix as ix_jobs_account_created, which also orders by id (the keyset's tie-break).
    await queryRunner.query('DROP INDEX ix_jobs_account');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const d: Dialect = isPostgres(queryRunner) ? 'postgres' : 'sqlite';
    await queryRunner.query('CREATE INDEX ix_jobs_account ON jobs (account_id, created_at)');
    for (const [name] of INDEXES) await queryRunner.query(`DROP INDEX ${name}`);
    for (const t of triggers(d)) {
      await queryRunner.query(d === 'sqlite' ? `DROP TRIGGER ${t.name}` : `DROP TRIGGER ${t.name} ON ${t.table}`);
      if (d === 'postgres') await queryRunner.query(`DROP FUNCTION ${t.name}()`);
    }
    await queryRunner.query('DROP TABLE usage_hours');
    await queryRunner.query('DROP TABLE list_counts');
  }
}
