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

export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sss-test-'));
  const base = process.env.DATABASE_URL;
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
