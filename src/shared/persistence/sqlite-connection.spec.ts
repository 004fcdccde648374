import { DataSource } from 'typeorm';
import { preparedOnce, sqliteConnection } from './sqlite-connection';

describe('preparedOnce', () => {
  const opened: DataSource[] = [];
  afterAll(() => Promise.all(opened.map((source) => source.destroy())));

  /** An in-memory database through TypeORM's driver, as the service opens it, with its prepare() calls recorded. */
  async function counted() {
    const source = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    opened.push(source);
    const db = sqliteConnection(source);
    const prepares: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = (sql: string) => (prepares.push(sql), prepare(sql));
    return { db, prepares };
  }

  it('compiles each text once per connection, and the statement it keeps still runs with new values', async () => {
    const a = await counted();
    const b = await counted();
    for (const { db } of [a, b]) preparedOnce(db, 'CREATE TABLE t (n INTEGER)').run();
    for (const n of [1, 2, 3]) preparedOnce(a.db, 'INSERT INTO t (n) VALUES (?)').run(n);
    expect(preparedOnce(a.db, 'SELECT SUM(n) AS s FROM t').get()).toEqual({ s: 6 });
    expect(preparedOnce(b.db, 'SELECT COUNT(*) AS c FROM t').get()).toEqual({ c: 0 });
    expect(a.prepares).toEqual(['CREATE TABLE t (n INTEGER)', 'INSERT INTO t (n) VALUES (?)', 'SELECT SUM(n) AS s FROM t']);
    expect(b.prepares).toEqual(['CREATE TABLE t (n INTEGER)', 'SELECT COUNT(*) AS c FROM t']);
  });
});
