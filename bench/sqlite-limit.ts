/**
 * npx ts-node --transpile-only bench/sqlite-limit.ts — what a bare `LIMIT ?` costs on the SQLite that better-sqlite3
 * bundles, against `LIMIT (? + 0)` and a literal LIMIT (shared/persistence/hot-query.ts, findPage).
 *
 * SQLite 3.47 and later plan with the value bound to a bare LIMIT parameter: binding one marks the prepared statement
 * expired, so every run compiles it again. The cost grows with the SELECT list (the compile), not with the rows read.
 * One table shaped like `websites` (16 columns), 15 rows of one account among 10,000, the page's 16 rows read as arrays.
 */
import type { SqliteConnection } from '../src/shared/persistence/sqlite-connection';

// better-sqlite3 ships no types; what this needs of it is what the service's raw SQLite paths use.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require('better-sqlite3') as new (path: string) => SqliteConnection & { exec(sql: string): void };

const db = new Database(':memory:');
const columns = Array.from({ length: 14 }, (_, i) => `c${i} TEXT`).join(', ');
db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL, ${columns}); CREATE INDEX t_account ON t (account_id)`);
const insert = db.prepare(`INSERT INTO t VALUES (${Array.from({ length: 16 }, () => '?').join(', ')})`);
db.transaction(() => {
  for (let id = 1; id <= 10_000; id++) insert.run(id, id % 667, ...Array.from({ length: 14 }, (_, i) => `value ${i} of row ${id}`));
})();
const list = Array.from({ length: 14 }, (_, i) => `c${i}`).join(', ');
const variants: Array<[string, string, unknown[]]> = [
  ['LIMIT ? OFFSET ?', `SELECT id, account_id, ${list} FROM t WHERE account_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`, [1, 16, 0]],
  ['LIMIT (? + 0) OFFSET ?', `SELECT id, account_id, ${list} FROM t WHERE account_id = ? ORDER BY id DESC LIMIT (? + 0) OFFSET ?`, [1, 16, 0]],
  ['LIMIT 16 OFFSET ?', `SELECT id, account_id, ${list} FROM t WHERE account_id = ? ORDER BY id DESC LIMIT 16 OFFSET ?`, [1, 0]],
];
const statements = variants.map(([name, sql, params]) => ({ name, statement: db.prepare(sql).raw(true), params, best: Infinity }));
const runs = 5000;
// Rounds alternate the variants, so the machine's load lands on each alike; the best round of each is kept.
for (let round = 0; round < 6; round++) {
  for (const v of statements) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) v.statement.all(...v.params);
    v.best = Math.min(v.best, Number(process.hrtime.bigint() - start) / runs / 1000);
  }
}
const { version } = db.prepare('SELECT sqlite_version() AS version').get() as { version: string };
console.log(`SQLite ${version}, ${runs} runs a round, best of 6 rounds:`);
for (const v of statements) console.log(`  ${v.name.padEnd(24)} ${v.best.toFixed(1)} µs a page`);
