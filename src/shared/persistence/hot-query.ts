import { Driver, EntityMetadata, EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ValidationFailedError } from '../domain/domain-error';
import type { PageEdges, PageRequest } from '../domain/page-request';
import { SqliteConnection, sqliteConnection, SqliteStatement } from './sqlite-connection';

/** `LIMIT :name`: refused by HotQuery (see its constructor). */
const BARE_LIMIT_PARAMETER = /\bLIMIT\s+:\w/i;

/**
 * One fixed SELECT run on every request, written once in SQL and hydrated exactly as TypeORM hydrates the
 * same entities (dates, booleans and nulls per driver), without building the query anew each time.
 *
 * Why not the query builder: on the one query every authenticated request runs (token + account), building,
 * aliasing and transforming took most of that query's time (profile in docs/benchmark.md "Per-request cost"); the SQL
 * it produced never changes. Everything else keeps using repositories and the builder: this is for a query
 * run thousands of times a second, not a second way to write queries.
 *
 * The SQL names parameters `:name`; they are turned into the driver's placeholders once, at construction.
 */
export class HotQuery<P extends Record<string, unknown>> {
  private readonly sql: string;
  private readonly order: (keyof P)[];
  /** SQLite: this text prepared on the connection, once as objects and once as arrays (better-sqlite3 `raw`). */
  private sqlite?: { db: SqliteConnection; objects?: SqliteStatement; arrays?: SqliteStatement };
  /** SQLite: where each entity's columns sit in a row (a HotQuery's SELECT fixes its parts). */
  private reader?: RowReader;

  constructor(
    private readonly repository: Repository<ObjectLiteral>,
    sql: string,
  ) {
    const driver = repository.manager.connection.driver;
    const names = [...sql.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const sample = Object.fromEntries(names.map((n) => [n, null]));
    const [converted, params] = driver.escapeQueryWithParameters(sql, sample, {});
    if (params.length !== names.length) throw new Error(`HotQuery: every parameter must be used once: ${sql}`);
    // SQLite (3.47 on) plans with the value bound to a bare LIMIT parameter, so binding one marks the prepared
    // statement expired and every run compiled it again: a third of reading a page of websites
    // (bench/sqlite-limit.ts, docs/benchmark.md). `LIMIT (:n + 0)` is an expression it does not look into, and
    // PostgreSQL folds it with the bound value as before.
    if (BARE_LIMIT_PARAMETER.test(sql)) throw new Error(`HotQuery: write LIMIT (:name + 0), not a bare parameter: ${sql}`);
    this.sql = converted;
    this.order = names;
  }

  async rows(params: P): Promise<Record<string, unknown>[]> {
    const values = this.order.map((n) => params[n]);
    const statement = this.statement('objects');
    if (statement) return statement.all(...values) as Record<string, unknown>[];
    return this.repository.manager.query(this.sql, values);
  }

  /**
   * The rows as entities: for each row, one entity per `[target, alias]` of `parts` (the SELECT names its columns
   * `alias__column`, see selectColumns), hydrated as TypeORM hydrates them.
   *
   * On SQLite the rows are read as arrays, straight from the connection: better-sqlite3 builds an object per row
   * property by property (a 16-row page of websites: 56 µs as objects, 39 µs as arrays), and TypeORM's query runner
   * added ~40 µs more around it (events, logging, its result object). Nothing of that applies to a fixed SELECT: the
   * driver's connection is the one TypeORM uses (transactions included). Values are hydrated by the driver itself,
   * as TypeORM does.
   */
  async entities(params: P, parts: ReadonlyArray<readonly [EntityTarget<ObjectLiteral>, string]>): Promise<ObjectLiteral[][]> {
    const values = this.order.map((n) => params[n]);
    const statement = this.statement('arrays');
    if (!statement) {
      const raw = await this.repository.manager.query<Record<string, unknown>[]>(this.sql, values);
      return raw.map((row) => parts.map(([target, alias]) => hydrate(this.repository, target, row, alias)));
    }
    this.reader ??= rowReader(this.repository, statement.columns(), parts);
    return (statement.all(...values) as unknown[][]).map(this.reader);
  }

  /** The SQLite statement of this text (null on other databases), prepared on first use per connection. */
  private statement(mode: 'objects' | 'arrays'): SqliteStatement | null {
    const dataSource = this.repository.manager.connection;
    if (dataSource.options.type !== 'better-sqlite3') return null;
    const db = sqliteConnection(dataSource);
    if (this.sqlite?.db !== db) this.sqlite = { db };
    let statement = this.sqlite[mode];
    if (!statement) {
      statement = db.prepare(this.sql);
      if (mode === 'arrays') statement.raw(true);
      this.sqlite[mode] = statement;
    }
    return statement;
  }
}

type RowReader = (row: unknown[]) => ObjectLiteral[];

/** Per `[target, alias]` of `parts`, which array positions hold which of its columns; then one row's entities. */
function rowReader(
  repository: Repository<ObjectLiteral>,
  columns: Array<{ name: string }>,
  parts: ReadonlyArray<readonly [EntityTarget<ObjectLiteral>, string]>,
): RowReader {
  const connection = repository.manager.connection;
  const at = new Map(columns.map((c, i) => [c.name, i]));
  const plans = parts.map(([target, alias]) => {
    const metadata = connection.getMetadata(target);
    const fields = metadata.columns.map((column) => {
      const index = at.get(`${alias}__${column.databaseName}`);
      if (index === undefined) throw new Error(`HotQuery: the SELECT has no ${alias}__${column.databaseName}`);
      return { index, column, hydrate: valueHydrator(connection.driver, column) };
    });
    return { metadata, fields };
  });
  return (row) =>
    plans.map(({ metadata, fields }) => {
      const entity = metadata.create() as ObjectLiteral;
      for (const { index, column, hydrate } of fields) column.setEntityValue(entity, hydrate(row[index]));
      return entity;
    });
}

/** A datetime as TypeORM writes it to SQLite: UTC, `2026-12-07 14:11:13.123`. */
const SQLITE_DATETIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/;

/**
 * How one column's stored value becomes the entity's: the driver's `prepareHydratedValue`, as TypeORM does — but for
 * a SQLite datetime in the shape TypeORM writes, the driver's own two steps for that shape (the space becomes `T`, a
 * `Z` is added) without its two regular expressions and replace, which took half of hydrating a page of websites
 * (two dates a row; 1.1 → 0.6 µs a date). Anything else, or a column with a transformer, goes through the driver.
 */
function valueHydrator(driver: Driver, column: ColumnMetadata): (value: unknown) => unknown {
  const general = (value: unknown): unknown => driver.prepareHydratedValue(value, column) as unknown;
  const sqliteDate = driver.options.type === 'better-sqlite3' && !column.transformer && (column.type === 'datetime' || column.type === Date);
  if (!sqliteDate) return general;
  return (value) => (typeof value === 'string' && SQLITE_DATETIME.test(value) ? new Date(`${value.slice(0, 10)}T${value.slice(11)}Z`) : general(value));
}

/**
 * `"alias"."column" AS "alias__column", …` for every column of the entity, for a HotQuery's SELECT list; the
 * result is read back with `hydrate(target, raw, alias)`.
 */
export function selectColumns(repository: Repository<ObjectLiteral>, target: EntityTarget<ObjectLiteral>, alias: string): string {
  const metadata = repository.manager.connection.getMetadata(target);
  const escape = (name: string) => repository.manager.connection.driver.escape(name);
  return metadata.columns.map((c) => `${escape(alias)}.${escape(c.databaseName)} AS ${escape(`${alias}__${c.databaseName}`)}`).join(', ');
}

/** The entity object TypeORM would have built from the `alias__column` values of one raw row. */
function hydrate<T extends ObjectLiteral>(repository: Repository<ObjectLiteral>, target: EntityTarget<T>, raw: Record<string, unknown>, alias: string): T {
  const connection = repository.manager.connection;
  const metadata: EntityMetadata = connection.getMetadata(target);
  const entity = metadata.create() as T;
  for (const column of metadata.columns) {
    const value: unknown = connection.driver.prepareHydratedValue(raw[`${alias}__${column.databaseName}`], column);
    column.setEntityValue(entity, value);
  }
  return entity;
}

const oneQueries = new WeakMap<Repository<ObjectLiteral>, Map<string, HotQuery<Record<string, unknown>>>>();

/** The column behind an entity property, for the SQL these helpers write once per shape. */
function columnOf(repository: Repository<ObjectLiteral>, property: string) {
  const found = repository.metadata.findColumnWithPropertyName(property);
  if (!found) throw new Error(`hot query: ${repository.metadata.name} has no column ${property}`);
  return found;
}

/**
 * The row matching `where` (equality on each property), or null — what `findOneBy` answers, for the reads a
 * capture makes on its way (its job when claimed and long-polled, its website): findOneBy builds and aliases
 * the query anew on every call, about a tenth of the service's own CPU per capture (docs/benchmark.md,
 * "Where node's time goes"). Each shape of `where` gets its SQL once and runs as a prepared statement.
 */
export async function findOne<T extends ObjectLiteral>(repository: Repository<T>, where: Partial<Record<keyof T & string, unknown>>): Promise<T | null> {
  const repo = repository as unknown as Repository<ObjectLiteral>;
  const metadata = repository.metadata;
  const keys = Object.keys(where);
  const shape = keys.join(',');
  let byShape = oneQueries.get(repo);
  if (!byShape) oneQueries.set(repo, (byShape = new Map<string, HotQuery<Record<string, unknown>>>()));
  let query = byShape.get(shape);
  if (!query) {
    const escape = (name: string) => repository.manager.connection.driver.escape(name);
    const condition = keys.map((key) => `r.${escape(columnOf(repo, key).databaseName)} = :${key}`).join(' AND ');
    query = new HotQuery(repo, `SELECT ${selectColumns(repo, metadata.target, 'r')} FROM ${escape(metadata.tableName)} r WHERE ${condition} LIMIT 1`);
    byShape.set(shape, query);
  }
  const params: Record<string, unknown> = {};
  const driver = repository.manager.connection.driver;
  // An undefined value matches nothing (findOneBy would drop the condition and answer any row).
  for (const key of keys) params[key] = driver.preparePersistentValue((where as Record<string, unknown>)[key] ?? null, columnOf(repo, key));
  const [found] = await query.entities(params, [[metadata.target, 'r']]);
  return found ? (found[0] as T) : null;
}

type Direction = 'ASC' | 'DESC';
type Mode = 'offset' | 'after' | 'before' | 'end';
const pageQueries = new WeakMap<Repository<ObjectLiteral>, Map<string, HotQuery<Record<string, unknown>>>>();

/**
 * Where a list's total is kept (the list_counts table: one row per account and list, moved by triggers in the
 * same transaction as every insert and delete, cascades and retention included; see migrations/1763801100000).
 * Absent for lists without a counter: those are counted.
 */
export interface PageCounter {
  accountId: number;
  list: string;
}

/** `websites`, `screenshots:website=12`, …: the name of a list_counts row (the triggers write the same names). */
export function counterName(list: string, filter?: Record<string, string | number>): string {
  const [entry] = Object.entries(filter ?? {});
  return entry ? `${list}:${entry[0]}=${entry[1]}` : list;
}

function badCursor(): ValidationFailedError {
  return ValidationFailedError.of('cursor', 'cursor is not a cursor of this list (use the links as given)');
}

const DATE_TYPES = new Set(['datetime', 'timestamp', 'timestamptz', 'timestamp with time zone', 'date']);
const INTEGER_TYPES = new Set(['integer', 'int', 'bigint', 'smallint']);

/** A cursor's key for `column`, as the driver stores it; a key of the wrong kind is a 422 naming `cursor`. */
function cursorKey(repository: Repository<ObjectLiteral>, column: ColumnMetadata, raw: unknown): unknown {
  const type = column.type as unknown;
  let value: unknown;
  if (type === Date || DATE_TYPES.has(String(type))) {
    if (typeof raw !== 'string' || raw.length > 40 || Number.isNaN(Date.parse(raw))) throw badCursor();
    value = new Date(raw);
  } else if (type === Number || INTEGER_TYPES.has(String(type))) {
    if (typeof raw !== 'number' || !Number.isSafeInteger(raw)) throw badCursor();
    value = raw;
  } else {
    if (typeof raw !== 'string' || raw.length > 255) throw badCursor();
    value = raw;
  }
  return repository.manager.connection.driver.preparePersistentValue(value, column);
}

/** The page's rows' order keys as a cursor carries them (dates as ISO strings). */
function keysOf(row: ObjectLiteral, order: ReadonlyArray<[string, Direction]>): unknown[] {
  return order.map(([key]) => {
    const value: unknown = row[key];
    return value instanceof Date ? value.toISOString() : value;
  });
}

/**
 * One page of an entity's rows matching `where` (equality on each given property; undefined ones are left
 * out), in `order`, and how many rows match in all — what `findAndCount` answers, for the list endpoints.
 *
 * Keyset paging: a page asked for by a link's cursor (`page.from`) starts right after (or ends right before)
 * the row whose order keys the cursor carries — `WHERE (created_at, id) < (…) ORDER BY … LIMIT n`, an index
 * range read of n rows at any depth — and the last page is read backwards from the end. A bare `page=N` is still
 * an OFFSET. The order always ends with the primary key (appended when missing), so positions are unique.
 *
 * The total comes from the list's counter when it has one (`counter`: a primary-key read), else from a COUNT —
 * run only when the page does not reveal it.
 *
 * findAndCount builds both queries anew on every call and writes the values into the SQL text, so SQLite
 * prepares a new statement for every account and page; here each shape of filter gets its SQL once, with
 * placeholders, and runs as a prepared statement (docs/benchmark.md, "Per-request cost").
 */
export async function findPage<T extends ObjectLiteral>(
  repository: Repository<T>,
  where: Partial<Record<keyof T & string, unknown>>,
  order: Array<[keyof T & string, Direction]>,
  page: PageRequest,
  counter?: PageCounter,
): Promise<{ rows: T[]; total: number; edges?: PageEdges }> {
  const repo = repository as unknown as Repository<ObjectLiteral>;
  const metadata = repository.metadata;
  const driver = repository.manager.connection.driver;
  const primary = metadata.primaryColumns[0].propertyName;
  const direction = order[order.length - 1][1];
  if (order.some(([, dir]) => dir !== direction)) throw new Error(`findPage: ${metadata.name}: one direction for every order key`);
  const keys: Array<[string, Direction]> = order.some(([key]) => key === primary) ? order : [...order, [primary, direction]];
  const filters = Object.entries(where).filter(([, value]) => value !== undefined);
  const from = page.from;
  const mode: Mode = !from ? 'offset' : 'after' in from ? 'after' : 'before' in from ? 'before' : 'end';
  const column = (property: string) => {
    const found = metadata.findColumnWithPropertyName(property);
    if (!found) throw new Error(`findPage: ${metadata.name} has no column ${property}`);
    return found;
  };
  const escape = (name: string) => driver.escape(name);
  const table = escape(metadata.tableName);
  const conditions = filters.map(([key]) => `r.${escape(column(key).databaseName)} = :${key}`);
  const query = (kind: Mode | 'count'): HotQuery<Record<string, unknown>> => {
    const shape = `${kind}|${filters.map(([key]) => key).join(',')}|${keys.map(([key, dir]) => `${key} ${dir}`).join(',')}`;
    let byShape = pageQueries.get(repo);
    if (!byShape) pageQueries.set(repo, (byShape = new Map<string, HotQuery<Record<string, unknown>>>()));
    let found = byShape.get(shape);
    if (found) return found;
    const where = [...conditions];
    const columns = keys.map(([key]) => `r.${escape(column(key).databaseName)}`);
    // Read backwards (before a row, or from the end): the reversed order, turned round once read.
    const backwards = kind === 'before' || kind === 'end';
    const dir = backwards ? (direction === 'ASC' ? 'DESC' : 'ASC') : direction;
    if (kind === 'after' || kind === 'before') {
      const bound = keys.map((_, i) => `:cursor${i}`);
      const op = dir === 'DESC' ? '<' : '>';
      where.push(keys.length === 1 ? `${columns[0]} ${op} ${bound[0]}` : `(${columns.join(', ')}) ${op} (${bound.join(', ')})`);
    }
    const condition = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    const sql =
      kind === 'count'
        ? `SELECT COUNT(1) AS total FROM ${table} r${condition}`
        : `SELECT ${selectColumns(repo, metadata.target, 'r')} FROM ${table} r${condition} ORDER BY ${columns.map((c) => `${c} ${dir}`).join(', ')} ` +
          `LIMIT (:pageLimit + 0)${kind === 'offset' ? ' OFFSET :pageOffset' : ''}`;
    found = new HotQuery(repo, sql);
    byShape.set(shape, found);
    return found;
  };
  const parts = [[metadata.target, 'r']] as const;
  const filterParams: Record<string, unknown> = {};
  for (const [key, value] of filters) filterParams[key] = driver.preparePersistentValue(value, column(key));
  const countAll = async (): Promise<number> => {
    if (counter) {
      const [kept] = await counterQuery(repo).rows({ account: counter.accountId, list: counter.list });
      return Math.max(0, Number(kept?.total ?? 0));
    }
    const [counted] = await query('count').rows(filterParams);
    return Number(counted?.total ?? 0);
  };

  let raw: ObjectLiteral[][];
  let total: number | null = null;
  const offset = (page.page - 1) * page.perPage;
  if (mode === 'offset') {
    // One row more than the page: when it does not come, the page is the last one and says the total itself.
    raw = await query('offset').entities({ ...filterParams, pageLimit: page.perPage + 1, pageOffset: offset }, parts);
    if (raw.length <= page.perPage && (raw.length > 0 || offset === 0) && !counter) total = offset + raw.length;
  } else if (mode === 'end') {
    total = await countAll();
    const onLast = total - (Math.max(1, Math.ceil(total / page.perPage)) - 1) * page.perPage;
    raw = (await query('end').entities({ ...filterParams, pageLimit: Math.max(1, onLast) }, parts)).reverse();
  } else {
    const given = 'after' in from! ? from.after : (from as { before: readonly unknown[] }).before;
    if (given.length !== keys.length) throw badCursor();
    const params: Record<string, unknown> = { ...filterParams, pageLimit: page.perPage + (mode === 'after' ? 1 : 0) };
    keys.forEach(([key], i) => (params[`cursor${i}`] = cursorKey(repo, column(key), given[i])));
    raw = await query(mode).entities(params, parts);
    if (mode === 'before') raw.reverse();
    else if (raw.length <= page.perPage && !counter) total = offset + raw.length;
  }
  const rows = raw.slice(0, page.perPage).map((r) => r[0] as T);
  if (total === null) total = await countAll();
  const edges = rows.length ? { first: keysOf(rows[0], keys), last: keysOf(rows[rows.length - 1], keys) } : undefined;
  return { rows, total, edges };
}

const counterQueries = new WeakMap<Repository<ObjectLiteral>, HotQuery<Record<string, unknown>>>();

/** The kept total of one of an account's lists (no row: none yet). */
function counterQuery(repository: Repository<ObjectLiteral>): HotQuery<Record<string, unknown>> {
  let found = counterQueries.get(repository);
  if (!found) {
    found = new HotQuery(repository, 'SELECT total FROM list_counts WHERE account_id = :account AND list = :list');
    counterQueries.set(repository, found);
  }
  return found;
}
