import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import type { AppConfig } from '../config/app-config';
import { errorMessage } from '../shared/domain/error-message';

/** The database the CLI would open, said the way an operator recognises it, and whether it is there yet. */
export interface DatabaseLocation {
  /** The SQLite file's absolute path, or the PostgreSQL URL with its password masked. */
  where: string;
  /** SQLite: the file exists; PostgreSQL: the service's tables do (its migrations have run). */
  exists: boolean;
  /** Hint for a missing one: the setting that chose it. */
  setting: 'DATA_DIR' | 'DATABASE_URL';
  /** Removes a database this run created (SQLite only), when the command that created it failed. */
  discard(): void;
}

/** A PostgreSQL URL fit to print: the password replaced by `****`, nothing else changed. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '****';
    return parsed.toString();
  } catch {
    return '(an unreadable DATABASE_URL)';
  }
}

/** Where the service's tables would be, without creating anything (opening SQLite would make the file). */
export async function locateDatabase(config: Pick<AppConfig, 'databaseUrl' | 'dataDir'>): Promise<DatabaseLocation> {
  if (!config.databaseUrl) {
    const file = join(config.dataDir, 'app.db');
    return {
      where: file,
      exists: existsSync(file),
      setting: 'DATA_DIR',
      discard: () => {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
      },
    };
  }
  const where = redactDatabaseUrl(config.databaseUrl);
  const client = new Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    // TypeORM's own table: present once the service (or this CLI) has run its migrations there.
    const { rows } = await client.query<{ migrated: boolean }>(`SELECT to_regclass('migrations') IS NOT NULL AS migrated`);
    return { where, exists: rows[0].migrated, setting: 'DATABASE_URL', discard: () => undefined };
  } catch (err) {
    throw new Error(`cannot open the database ${where}: ${errorMessage(err)}`, { cause: err });
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The one line that refuses a missing database, with what to do about it. */
export function missingDatabaseMessage(location: DatabaseLocation): string {
  const what =
    location.setting === 'DATA_DIR'
      ? `no database in DATA_DIR (${location.where} does not exist)`
      : `the database ${location.where} has none of the service's tables (its migrations never ran)`;
  return (
    `${what}: is this the ${location.setting} the server runs with? Run the CLI with the server's ${location.setting} ` +
    `(start the server once to create its database), or add --create to make a new, empty database here`
  );
}
