import type { DataSource } from 'typeorm';

/** The part of a better-sqlite3 statement the raw SQLite paths use. */
export interface SqliteStatement {
  run(...params: unknown[]): { lastInsertRowid: number | bigint; changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /** Rows as arrays (in `columns()` order) instead of objects, from now on. */
  raw(on: boolean): SqliteStatement;
  columns(): Array<{ name: string }>;
}

/** The part of better-sqlite3's Database the raw SQLite paths use (TypeORM's driver holds it as `databaseConnection`). */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  transaction<T>(fn: () => T): { (): T; immediate(): T };
}

/** The embedded database's one connection, for the statements that must run inside better-sqlite3's synchronous transaction. */
export function sqliteConnection(dataSource: Pick<DataSource, 'driver'>): SqliteConnection {
  return (dataSource.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;
}

const statements = new WeakMap<SqliteConnection, Map<string, SqliteStatement>>();

/**
 * `db.prepare(sql)`, compiled once per connection: better-sqlite3 parses and plans the SQL again on every prepare()
 * (~0.3 ms of node's CPU per capture for the screenshot's five statements, perf in docs/benchmark.md), and the raw
 * paths run the same few texts on every capture. For fixed SQL only — a text built from values would grow the cache.
 */
export function preparedOnce(db: SqliteConnection, sql: string): SqliteStatement {
  let byText = statements.get(db);
  if (!byText) statements.set(db, (byText = new Map<string, SqliteStatement>()));
  let statement = byText.get(sql);
  if (!statement) byText.set(sql, (statement = db.prepare(sql)));
  return statement;
}
