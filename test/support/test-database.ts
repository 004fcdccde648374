import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * A fresh, empty database per test file: a temporary SQLite directory in the embedded mode, or a new
 * PostgreSQL database (created next to the one DATABASE_URL names) when the suite runs scaled out.
 */
export interface TestDatabase {
  databaseUrl: string | null;
  dataDir: string;
  drop(): Promise<void>;
}

export function usingPostgres(): boolean {
  return Boolean(process.env.DATABASE_URL);
}

export const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';
export const LOCAL_REDIS = 'redis://127.0.0.1:6379';

/**
 * The engine follows DATABASE_URL unless a test forces one: `postgres` for tests of the scaled-out mode
 * itself, `sqlite` for tests of the embedded mode itself (both run in both CI passes).
 */
export async function createTestDatabase(options: { engine?: 'sqlite' | 'postgres' } = {}): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sss-test-'));
  const base = options.engine === 'sqlite' ? undefined : process.env.DATABASE_URL || (options.engine === 'postgres' ? LOCAL_POSTGRES : undefined);
  if (!base) {
    return { databaseUrl: null, dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `sss_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir,
    drop: async () => {
      const client = new Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
