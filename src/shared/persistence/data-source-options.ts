import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { AppConfig } from '../../config/app-config';

/**
 * Migrations live in the top-level migrations/ folder (compiled to dist/migrations by `npm run build`);
 * helpers sit in a subfolder so the glob skips them. Running from source (tests) loads the .ts files.
 */
const MIGRATIONS_GLOB = __filename.endsWith('.ts')
  ? join(__dirname, '..', '..', '..', 'migrations', '[0-9]*-*.ts')
  : join(__dirname, '..', '..', 'migrations', '[0-9]*-*.js');

/** SQLite file under DATA_DIR when DATABASE_URL is unset (embedded default), PostgreSQL otherwise. */
export function dataSourceOptions(config: Pick<AppConfig, 'databaseUrl' | 'dataDir'>): DataSourceOptions {
  const common = { synchronize: false, migrationsRun: false, logging: false, migrations: [MIGRATIONS_GLOB] };
  if (config.databaseUrl) {
    return { ...common, type: 'postgres', url: config.databaseUrl, extra: { max: 10, connectionTimeoutMillis: 5000 } };
  }
  mkdirSync(config.dataDir, { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: join(config.dataDir, 'app.db'),
    enableWAL: true,
    // Several writers (API + worker + ticker) share one file: wait for the lock instead of failing with SQLITE_BUSY.
    prepareDatabase: (db: { pragma(s: string): unknown }) => {
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
    },
  };
}

/**
 * Runs pending migrations at start. On PostgreSQL an advisory lock serialises instances that boot
 * together, so two of them never apply the same migration at once.
 */
export async function runMigrations(dataSource: DataSource): Promise<void> {
  if (dataSource.options.type !== 'postgres') {
    await dataSource.runMigrations({ transaction: 'each' });
    return;
  }
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock(727073690)');
    try {
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock(727073690)');
    }
  } finally {
    await runner.release();
  }
}
