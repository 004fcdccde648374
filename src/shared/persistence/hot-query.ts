import { EntityMetadata, EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import type { PageRequest } from '../domain/page-request';

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

  constructor(
    private readonly repository: Repository<ObjectLiteral>,
    sql: string,
  ) {
    const driver = repository.manager.connection.driver;
    const names = [...sql.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const sample = Object.fromEntries(names.map((n) => [n, null]));
    const [converted, params] = driver.escapeQueryWithParameters(sql, sample, {});
    if (params.length !== names.length) throw new Error(`HotQuery: every parameter must be used once: ${sql}`);
    this.sql = converted;
    this.order = names;
  }

  async rows(params: P): Promise<Record<string, unknown>[]> {
    return this.repository.manager.query(
      this.sql,
      this.order.map((n) => params[n]),
    );
  }
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
export function hydrate<T extends ObjectLiteral>(
  repository: Repository<ObjectLiteral>,
  target: EntityTarget<T>,
  raw: Record<string, unknown>,
  alias: string,
): T {
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
  const [raw] = await query.rows(params);
  return raw ? hydrate<T>(repo, metadata.target, raw, 'r') : null;
}

type Direction = 'ASC' | 'DESC';
interface PageQueries {
  list: HotQuery<Record<string, unknown>>;
  count: HotQuery<Record<string, unknown>>;
}
const pageQueries = new WeakMap<Repository<ObjectLiteral>, Map<string, PageQueries>>();

/**
 * One page of an entity's rows matching `where` (equality on each given property; undefined ones are left
 * out), in `order`, and how many rows match in all — what `findAndCount` answers, for the list endpoints.
 *
 * findAndCount builds both queries anew on every call and writes the values into the SQL text, so SQLite
 * prepares a new statement for every account and page; here each shape of filter gets its SQL once, with
 * placeholders, and runs as a prepared statement (docs/benchmark.md, "Per-request cost"). The total is counted only
 * when the page does not reveal it.
 */
export async function findPage<T extends ObjectLiteral>(
  repository: Repository<T>,
  where: Partial<Record<keyof T & string, unknown>>,
  order: Array<[keyof T & string, Direction]>,
  page: PageRequest,
): Promise<{ rows: T[]; total: number }> {
  const repo = repository as unknown as Repository<ObjectLiteral>;
  const metadata = repository.metadata;
  const filters = Object.entries(where).filter(([, value]) => value !== undefined);
  const shape = `${filters.map(([key]) => key).join(',')}|${order.map(([key, dir]) => `${key} ${dir}`).join(',')}`;
  let byShape = pageQueries.get(repo);
  if (!byShape) pageQueries.set(repo, (byShape = new Map<string, PageQueries>()));
  let queries = byShape.get(shape);
  if (!queries) {
    const escape = (name: string) => repository.manager.connection.driver.escape(name);
    const column = (property: string) => {
      const found = metadata.findColumnWithPropertyName(property);
      if (!found) throw new Error(`findPage: ${metadata.name} has no column ${property}`);
      return found;
    };
    const table = escape(metadata.tableName);
    const condition = filters.length ? ` WHERE ${filters.map(([key]) => `r.${escape(column(key).databaseName)} = :${key}`).join(' AND ')}` : '';
    const sort = order.map(([key, dir]) => `r.${escape(column(key).databaseName)} ${dir}`).join(', ');
    queries = {
      list: new HotQuery(
        repo,
        `SELECT ${selectColumns(repo, metadata.target, 'r')} FROM ${table} r${condition} ORDER BY ${sort} LIMIT :pageLimit OFFSET :pageOffset`,
      ),
      count: new HotQuery(repo, `SELECT COUNT(1) AS total FROM ${table} r${condition}`),
    };
    byShape.set(shape, queries);
  }
  const offset = (page.page - 1) * page.perPage;
  // One row more than the page: when it does not come, the page is the last one and says the total itself
  // (most lists fit in their first page), so the COUNT runs only for lists longer than where the page ends.
  const params: Record<string, unknown> = { pageLimit: page.perPage + 1, pageOffset: offset };
  for (const [key, value] of filters)
    params[key] = repository.manager.connection.driver.preparePersistentValue(value, metadata.findColumnWithPropertyName(key)!);
  const raw = await queries.list.rows(params);
  const rows = raw.slice(0, page.perPage).map((r) => hydrate<T>(repo, metadata.target as EntityTarget<T>, r, 'r'));
  const isLastPage = raw.length <= page.perPage && (raw.length > 0 || offset === 0);
  if (isLastPage) return { rows, total: offset + raw.length };
  const [counted] = await queries.count.rows(params);
  return { rows, total: Number(counted?.total ?? 0) };
}
