import { DataSource, DataSourceOptions } from 'typeorm';
import { dataSourceOptions, runMigrations } from '../../src/shared/persistence/data-source-options';
import type { TestDatabase } from './test-database';

/**
 * A DataSource on a fresh test database (createTestDatabase: SQLite, or PostgreSQL in the scaled-out pass) with
 * every migration run and only `entities` mapped: what a repository's int spec works on.
 */
export async function migratedDataSource(db: TestDatabase, entities: NonNullable<DataSourceOptions['entities']>): Promise<DataSource> {
  const options = { ...dataSourceOptions({ databaseUrl: db.databaseUrl, dataDir: db.dataDir }), entities } as DataSourceOptions;
  const dataSource = await new DataSource(options).initialize();
  await runMigrations(dataSource);
  return dataSource;
}

/** A paying account row written directly (no account entity needed), for the rows a spec needs to belong to one. */
export async function insertAccount(dataSource: DataSource, email: string, at: Date, name = email): Promise<number> {
  await dataSource
    .createQueryBuilder()
    .insert()
    .into('accounts', ['name', 'email', 'plan', 'subscription_status', 'created_at', 'updated_at'])
    .values({ name, email, plan: 'pro', subscription_status: 'active', created_at: at, updated_at: at })
    .execute();
  const row: { id: number | string } | undefined = await dataSource
    .createQueryBuilder()
    .select('a.id', 'id')
    .from('accounts', 'a')
    .where('a.email = :email', { email })
    .getRawOne();
  if (!row) throw new Error(`account ${email} was not written`);
  // PostgreSQL's driver may hand an integer column back as a string.
  return Number(row.id);
}
