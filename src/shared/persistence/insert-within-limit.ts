import { DeepPartial, FindOptionsWhere, ObjectLiteral, Repository } from 'typeorm';
import { sqliteConnection } from './sqlite-connection';

/**
 * A per-account count limit ("at most `limit` per account"): counts the account's rows of the repository's table
 * and inserts `row` only when there are fewer than `limit`, under one write lock, so concurrent creates of one
 * account cannot both pass at `limit - 1` (a count then an insert, each on its own, lets them). Returns the inserted
 * row as the repository reads it, or null when the account is at its limit (the caller answers with its own error).
 *
 * SQLite: better-sqlite3's synchronous transaction, BEGIN IMMEDIATE (the database's write lock, taken before the
 * count; nothing else runs on the connection meanwhile, unlike TypeORM's async transaction, which shares its one
 * connection with unrelated statements). PostgreSQL: the account's row locked FOR UPDATE first, which serializes
 * the account's creates on every instance (readers and other accounts are not held).
 *
 * The entity needs an `accountId` property; the row's other columns are converted as TypeORM converts them.
 */
export async function insertWithinLimit<T extends ObjectLiteral & { accountId: number }>(
  repository: Repository<T>,
  { limit, row }: { limit: number; row: DeepPartial<T> & { accountId: number } },
): Promise<T | null> {
  const { metadata, manager } = repository;
  const accountId = row.accountId;
  const type = manager.connection.options.type;
  if (type === 'postgres') {
    return manager.transaction(async (tx) => {
      const rows = tx.getRepository<T>(metadata.target);
      await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      if ((await rows.countBy({ accountId } as FindOptionsWhere<T>)) >= limit) return null;
      return rows.save(rows.create(row));
    });
  }
  if (type !== 'better-sqlite3') throw new Error(`insertWithinLimit: unsupported database type ${type}`);

  const driver = manager.connection.driver;
  const entity = repository.create(row);
  const columns = metadata.columns.filter((c) => c.getEntityValue(entity) !== undefined);
  const accountColumn = metadata.findColumnWithPropertyName('accountId');
  const primary = metadata.primaryColumns[0];
  if (!accountColumn || !primary) throw new Error(`insertWithinLimit: ${metadata.name} needs an accountId column and a primary key`);
  const table = driver.escape(metadata.tableName);
  const countSql = `SELECT COUNT(*) AS n FROM ${table} WHERE ${driver.escape(accountColumn.databaseName)} = ?`;
  const insertSql = `INSERT INTO ${table} (${columns.map((c) => driver.escape(c.databaseName)).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
  const values = columns.map((c) => driver.preparePersistentValue(c.getEntityValue(entity), c) as unknown);

  const db = sqliteConnection(manager.connection);
  const id = db
    .transaction(() => {
      const { n } = db.prepare(countSql).get(accountId) as { n: number };
      if (n >= limit) return null;
      return Number(db.prepare(insertSql).run(...values).lastInsertRowid);
    })
    .immediate();
  return id === null ? null : repository.findOneByOrFail({ [primary.propertyName]: id } as FindOptionsWhere<T>);
}
