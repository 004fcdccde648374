import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What this needs of better-sqlite3's database handle. */
interface SqliteHandle {
  prepare(sql: string): { pluck(): { get(): unknown } };
}

/**
 * A version of the accounts and api_tokens rows as this process sees them, so that the token lookup run on
 * every request (token + account, docs/benchmark.md "Per-request cost") can answer from memory while nothing
 * that could change its answer has been written — and never after.
 *
 * Two halves, both compared on every lookup:
 * - `local`: bumped by the account and token repositories of this process after each write of those rows
 *   (revoke, plan or limit change, new token, password, last-use bookkeeping).
 * - the database's: SQLite's `PRAGMA data_version`, which changes whenever ANOTHER connection has committed
 *   anything (the operator CLI's `token revoke` or `account update`, another process on the same file); it is
 *   one read of the page cache's counter, not a query of the tables.
 *
 * On PostgreSQL there is no such counter for commits made by other instances, so `current()` is null there and
 * every lookup reads the database (API.md: no cache may outlive a revoke).
 */
@Injectable()
export class AccountRowsVersion {
  private local = 0;
  private dataVersion?: { get(): unknown } | null;

  constructor(private readonly dataSource: DataSource) {}

  /** After a write of an account or token row made by this process (whether or not it committed). */
  changed(): void {
    this.local++;
  }

  /** The version now, or null when the database cannot say what other connections committed. */
  current(): string | null {
    if (this.dataVersion === undefined) this.dataVersion = this.prepare();
    if (!this.dataVersion) return null;
    return `${String(this.dataVersion.get())}:${this.local}`;
  }

  /** null: not SQLite (never asked again); undefined: SQLite not connected yet (asked again next time). */
  private prepare(): { get(): unknown } | null | undefined {
    if (this.dataSource.options.type !== 'better-sqlite3') return null;
    const handle = (this.dataSource.driver as unknown as { databaseConnection?: SqliteHandle }).databaseConnection;
    return handle?.prepare('PRAGMA data_version').pluck();
  }
}
