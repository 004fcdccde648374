/**
 * npm run bench:data — every list endpoint and dashboard page at 1 k, 100 k and 1 M screenshots (issue 45, "A year
 * of data"), on SQLite and on PostgreSQL, over real HTTP against the real AppModule.
 *
 * One account watches 100 pages (10,000 websites in all): its screenshots and as many jobs (3 % failed, 1 in 7 of the
 * screenshots a change) are spread over the last 35 days, inserted in bulk by the database itself
 * (generate_series / a recursive CTE, 50 k rows a statement, the triggers of migration 1763801100000 running as for
 * any insert). Sizes grow in place: 1 k, then 99 k more, then 900 k more.
 *
 * At each size, each endpoint is asked BENCH_REQUESTS times (default 40) one after another; the cursor links
 * (links.last, and the prev of the last page: the deepest page there is) are taken from a first answer. Prints
 * p50 / p95 per endpoint and size, then the goal: every endpoint's p95 at the largest size within 2× its p95 at
 * the smallest, and the overview under 50 ms.
 *
 * Env: BENCH_SIZES (default 1000,100000,1000000), BENCH_ENGINES (default sqlite,postgres), BENCH_REQUESTS,
 * BENCH_POSTGRES (default postgres://postgres@127.0.0.1:5432/test: a database is created beside it and dropped),
 * BENCH_REDIS (default redis://127.0.0.1:6379, for the PostgreSQL run).
 *
 * BENCH_RETENTION=N measures retention at scale instead (issue 45): N expired screenshots (rows, and a file for
 * each) and 1,000 recent ones, then the retention sweep (RETENTION_DAYS=7, the sweeper the workers run) while
 * GET /screenshots is asked over and over; prints the sweep's time and rate and the API's p50 / p95 / max before
 * and during it, and checks what is left: the recent rows, their files, and list_counts equal to COUNT(*).
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app.module';
import { loadConfig } from '../src/config/app-config';
import { configureHttpApp, createFastifyAdapter, HTTP_APP_OPTIONS } from '../src/http-app';
import { AccountsService } from '../src/modules/accounts/application/accounts.service';
import { RetentionSweeper } from '../src/modules/screenshots/application/retention-sweeper';
import { Clock } from '../src/shared/domain/clock';
import { backfill } from '../migrations/support/list-counts-sql';

const SIZES = (process.env.BENCH_SIZES ?? '1000,100000,1000000').split(',').map(Number);
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 40);
const POSTGRES = process.env.BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = process.env.BENCH_REDIS ?? 'redis://127.0.0.1:6379';
const PASSWORD = 'benchmark passphrase';
const WEBSITES = 10_000;
const WATCHED = 100;
const SPAN_SECONDS = 35 * 24 * 3600;
const CHUNK = 50_000;
const OVERVIEW_GOAL_MS = 50;
const RETENTION = Number(process.env.BENCH_RETENTION ?? 0);
const RETENTION_SURVIVORS = 1_000;
const DAY_MS = 24 * 3600 * 1000;

type Engine = 'sqlite' | 'postgres';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Rows `from..to` (1-based, inclusive) of a series the database generates: the FROM clause and the prefix it needs. */
function series(engine: Engine, from: number, to: number): { with: string; from: string } {
  return engine === 'postgres'
    ? { with: '', from: `generate_series(${from}, ${to}) AS g(i)` }
    : { with: `WITH RECURSIVE g(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM g WHERE i < ${to}) `, from: 'g' };
}

/**
 * Row i's instant: `total` rows spread over the 35 days before `now` (seconds), row 1 the newest — so each size
 * grown in place has its rows in the last hours and days the overview shows.
 */
function instant(engine: Engine, nowSeconds: number, total: number, i = 'i'): string {
  const step = SPAN_SECONDS / total;
  const seconds = `(${nowSeconds} - ${i} * ${step})`;
  return engine === 'postgres' ? `to_timestamp(${seconds})` : `strftime('%Y-%m-%d %H:%M:%f', ${seconds}, 'unixepoch')`;
}

/** A uuid-shaped job id made from i. */
function jobId(engine: Engine): string {
  return engine === 'postgres' ? `lpad(to_hex(i), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(i), 12, '0')` : `printf('%08x-0000-4000-8000-%012x', i, i)`;
}

async function seedWebsites(dataSource: DataSource, engine: Engine, accountId: number): Promise<number> {
  const s = series(engine, 1, WEBSITES);
  const now = engine === 'postgres' ? 'now()' : `strftime('%Y-%m-%d %H:%M:%f', 'now')`;
  await dataSource.query(
    `${s.with}INSERT INTO websites (account_id, name, url, viewport_width, viewport_height, full_page, status, created_at, updated_at) ` +
      `SELECT ${accountId}, 'Site ' || i, 'https://site' || i || '.example/', 1280, 800, ${engine === 'postgres' ? 'false' : '0'}, 'active', ${now}, ${now} FROM ${s.from}`,
  );
  const [{ id }] = await dataSource.query<Array<{ id: number | string }>>(`SELECT MIN(id) AS id FROM websites WHERE account_id = ${accountId}`);
  return Number(id);
}

/**
 * Screenshots `from..to` of `total` and their jobs, as captures leave them: the job succeeded (every 33rd failed,
 * without a screenshot), the screenshot compared with the previous one (every 10th changed).
 */
async function seedShots(
  dataSource: DataSource,
  engine: Engine,
  accountId: number,
  firstWebsite: number,
  from: number,
  to: number,
  nowSeconds: number,
  total: number,
) {
  // PostgreSQL runs row triggers in PL/pgSQL (12 upserts a screenshot and its job): a bulk seed turns them off and
  // recounts both tables after, with the migration's own backfill. SQLite keeps them on (fast enough).
  if (engine === 'postgres') for (const table of ['jobs', 'screenshots']) await dataSource.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
  for (let start = from; start <= to; start += CHUNK) {
    const end = Math.min(to, start + CHUNK - 1);
    const s = series(engine, start, end);
    const website = `(${firstWebsite} + i % ${WATCHED})`;
    const at = instant(engine, nowSeconds, total);
    const bool = (sql: string) => (engine === 'postgres' ? `(${sql})` : `CASE WHEN ${sql} THEN 1 ELSE 0 END`);
    await dataSource.query(
      `${s.with}INSERT INTO jobs (id, type, account_id, website_id, status, source, options, attempts, error, created_at, started_at, finished_at, webhooks_emitted_at) ` +
        `SELECT ${jobId(engine)}, 'screenshot', ${accountId}, ${website}, CASE WHEN i % 33 = 0 THEN 'failed' ELSE 'succeeded' END, 'schedule', '{}', 1, ` +
        `CASE WHEN i % 33 = 0 THEN 'net::ERR_NAME_NOT_RESOLVED' ELSE NULL END, ${at}, ${at}, ${at}, ${at} FROM ${s.from}`,
    );
    await dataSource.query(
      `${s.with}INSERT INTO screenshots (account_id, website_id, job_id, file_path, format, file_size, width, height, status, taken_at, full_page, ` +
        `compare_key, change_status, changed, changed_ratio, compared_at) ` +
        `SELECT ${accountId}, ${website}, ${jobId(engine)}, 'screenshots/${accountId}/' || ${website} || '/' || i || '.png', 'png', 150000 + ((i % 100000) * 7919) % 100000, 1280, 800, ` +
        `'success', ${at}, ${bool('1 = 0')}, 'k', 'done', ${bool('i % 7 = 0')}, CASE WHEN i % 7 = 0 THEN 0.02 ELSE 0 END, ${at} FROM ${s.from} WHERE i % 33 <> 0`,
    );
    process.stdout.write(`  seeded ${end.toLocaleString('en')} / ${to.toLocaleString('en')}\r`);
  }
  process.stdout.write('\n');
  if (engine === 'postgres') {
    await dataSource.transaction(async (manager) => {
      await manager.query('DELETE FROM list_counts');
      await manager.query('DELETE FROM usage_hours');
      for (const sql of backfill('postgres')) await manager.query(sql);
    });
    for (const table of ['jobs', 'screenshots']) await dataSource.query(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
    await dataSource.query('VACUUM ANALYZE');
  } else await dataSource.query('ANALYZE');
}

interface Probe {
  label: string;
  /** The URL to time, found once per size (a cursor link needs a first answer). */
  url: () => Promise<string>;
  viewer?: boolean;
}

async function timed(url: string, headers: Record<string, string>): Promise<{ p50: number; p95: number }> {
  const ms: number[] = [];
  for (let i = 0; i < REQUESTS + 3; i++) {
    const start = performance.now();
    // A kept-alive connection the server closed while the next size was seeded fails once: ask again.
    const res = await fetch(url, { headers }).catch(() => fetch(url, { headers }));
    await res.arrayBuffer();
    if (res.status >= 400) throw new Error(`${url}: HTTP ${res.status}`);
    if (i >= 3) ms.push(performance.now() - start); // the first three warm the statement caches
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

interface BenchApp {
  app: NestFastifyApplication;
  base: string;
  dataDir: string;
  close: () => Promise<void>;
}

/** The real AppModule on a port, on a fresh SQLite file or a fresh PostgreSQL database (dropped by close()). */
async function startApp(engine: Engine, env: Record<string, string> = {}): Promise<BenchApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-data-'));
  let databaseUrl = '';
  const dbName = `bench_data_${randomBytes(4).toString('hex')}`;
  if (engine === 'postgres') {
    const admin = new Client({ connectionString: POSTGRES });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const url = new URL(POSTGRES);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    REDIS_URL: engine === 'postgres' ? REDIS : '',
    ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
    PORT: '0',
    DASHBOARD_LIMIT_PER_MINUTE: '1000000',
    SIGN_IN_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config), createFastifyAdapter(config), {
    ...HTTP_APP_OPTIONS,
    logger: ['error'],
  });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const base = await app.getUrl();
  const close = async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (engine === 'postgres') {
      const admin = new Client({ connectionString: POSTGRES });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    }
  };
  return { app, base, dataDir, close };
}

async function runEngine(engine: Engine): Promise<Map<string, Map<number, { p50: number; p95: number }>>> {
  const { app, base, close } = await startApp(engine);
  const results = new Map<string, Map<number, { p50: number; p95: number }>>();
  try {
    const accounts = app.get(AccountsService);
    const email = `bench-data-${engine}@example.com`;
    const { account, token } = await accounts.createAccount({ email, name: 'Bench', plan: 'business', password: PASSWORD });
    await accounts.updateAccount(email, { limitPerMinute: 1_000_000, limitPerHour: 1_000_000 });
    const auth = { Authorization: `Bearer ${token}` };
    const dataSource = app.get(DataSource);
    let started = performance.now();
    const firstWebsite = await seedWebsites(dataSource, engine, account.id);
    console.log(`${engine}: ${WEBSITES.toLocaleString('en')} websites in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const form = await fetch(`${base}/dashboard/login`);
    const csrfCookie = (form.headers.get('set-cookie') ?? '').split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
    const signedIn = await fetch(`${base}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: csrfCookie },
      body: new URLSearchParams({ _csrf: csrf, email, password: PASSWORD }).toString(),
    });
    const viewer = { Cookie: (signedIn.headers.getSetCookie().find((c) => c.startsWith('sst_session=')) ?? '').split(';')[0] };

    const json = async (url: string) =>
      (await (await fetch(url, { headers: auth })).json()) as { links: { last: string; prev: string | null; next: string | null } };
    const deep = async (path: string) => (await json((await json(`${base}${path}`)).links.last)).links.prev ?? `${base}${path}`;
    const watched = firstWebsite + 1;
    const probes: Probe[] = [
      { label: 'GET /screenshots', url: async () => `${base}/screenshots` },
      { label: 'GET /screenshots links.next (page 2)', url: async () => (await json(`${base}/screenshots`)).links.next ?? `${base}/screenshots` },
      { label: 'GET /screenshots links.last', url: async () => (await json(`${base}/screenshots`)).links.last },
      { label: 'GET /screenshots deepest (prev of last)', url: () => deep('/screenshots') },
      { label: 'GET /screenshots?page=20 (offset)', url: async () => `${base}/screenshots?page=20` },
      { label: 'GET /screenshots?website_id=', url: async () => `${base}/screenshots?website_id=${watched}` },
      { label: 'GET /screenshots?website_id= deepest', url: () => deep(`/screenshots?website_id=${watched}`) },
      { label: 'GET /websites/{id}/changes', url: async () => `${base}/websites/${watched}/changes` },
      { label: 'GET /websites/{id}/changes deepest', url: () => deep(`/websites/${watched}/changes`) },
      { label: 'GET /jobs', url: async () => `${base}/jobs` },
      { label: 'GET /jobs deepest', url: () => deep('/jobs') },
      { label: 'GET /jobs?status=failed', url: async () => `${base}/jobs?status=failed` },
      { label: 'GET /jobs?status=failed deepest', url: () => deep('/jobs?status=failed') },
      { label: 'GET /websites', url: async () => `${base}/websites` },
      { label: 'GET /websites deepest', url: () => deep('/websites') },
      { label: 'GET /scenarios', url: async () => `${base}/scenarios` },
      { label: 'GET /schedules', url: async () => `${base}/schedules` },
      { label: 'GET /webhooks', url: async () => `${base}/webhooks` },
      { label: 'GET /notification-channels', url: async () => `${base}/notification-channels` },
      { label: 'GET /render-keys', url: async () => `${base}/render-keys` },
      { label: 'dashboard overview', url: async () => `${base}/dashboard`, viewer: true },
      { label: 'dashboard gallery', url: async () => `${base}/dashboard/screenshots`, viewer: true },
      { label: 'dashboard gallery ?website_id=', url: async () => `${base}/dashboard/screenshots?website_id=${watched}`, viewer: true },
      { label: 'dashboard jobs', url: async () => `${base}/dashboard/jobs`, viewer: true },
      { label: 'dashboard websites', url: async () => `${base}/dashboard/websites`, viewer: true },
    ];
    const nowSeconds = Math.floor(Date.now() / 1000);
    const top = SIZES[SIZES.length - 1];
    let seeded = 0;
    for (const size of SIZES) {
      // Row numbers continue; instants are spread over the final size, so every size covers the last days.
      const rows = Math.round(size * (33 / 32)); // 1 in 33 jobs failed without a screenshot
      started = performance.now();
      await seedShots(dataSource, engine, account.id, firstWebsite, seeded + 1, rows, nowSeconds, Math.round(top * (33 / 32)));
      seeded = rows;
      const [{ n }] = await dataSource.query<Array<{ n: number | string }>>(`SELECT COUNT(*) AS n FROM screenshots`);
      console.log(`${engine}: ${Number(n).toLocaleString('en')} screenshots (seeded in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
      for (const probe of probes) {
        const figures = await timed(await probe.url(), probe.viewer ? viewer : auth);
        if (!results.has(probe.label)) results.set(probe.label, new Map());
        results.get(probe.label)!.set(size, figures);
        console.log(`  ${probe.label.padEnd(42)} p50 ${figures.p50.toFixed(1).padStart(7)} ms  p95 ${figures.p95.toFixed(1).padStart(7)} ms`);
      }
    }
  } finally {
    await close();
  }
  return results;
}

/** Sequential GET /screenshots until `until` says stop; each answer's time in ms. */
async function probeUntil(url: string, headers: Record<string, string>, until: () => boolean): Promise<number[]> {
  const ms: number[] = [];
  while (!until()) {
    const start = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status >= 400) throw new Error(`${url}: HTTP ${res.status}`);
    ms.push(performance.now() - start);
  }
  return ms;
}

function summary(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  return `${ms.length} requests, p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`;
}

/**
 * BENCH_RETENTION=N: N expired screenshots (and their files) swept while the API answers. The app's clock is moved
 * 40 days back while seeding (so the sweeper's own hourly run, 30 s after boot, finds nothing yet) and 40 days
 * forward for the sweep (every seeded row is then past RETENTION_DAYS=7, except 1,000 set later still).
 */
async function retentionRun(engine: Engine): Promise<void> {
  const { app, base, dataDir, close } = await startApp(engine, { RETENTION_DAYS: '7' });
  const clock = app.get(Clock);
  let offset = -40 * DAY_MS;
  clock.now = () => new Date(Date.now() + offset);
  try {
    const accounts = app.get(AccountsService);
    const { account, token } = await accounts.createAccount({
      email: `bench-retention-${engine}@example.com`,
      name: 'Bench',
      plan: 'business',
      password: PASSWORD,
    });
    await accounts.updateAccount(`bench-retention-${engine}@example.com`, { limitPerMinute: 1_000_000, limitPerHour: 1_000_000 });
    const auth = { Authorization: `Bearer ${token}` };
    const dataSource = app.get(DataSource);
    const firstWebsite = await seedWebsites(dataSource, engine, account.id);
    const rows = Math.round((RETENTION + RETENTION_SURVIVORS) * (33 / 32));
    let started = performance.now();
    await seedShots(dataSource, engine, account.id, firstWebsite, 1, rows, Math.floor(Date.now() / 1000), rows);
    const later = new Date(Date.now() + 39 * DAY_MS);
    const p = engine === 'postgres' ? '$1' : '?';
    await dataSource.query(`UPDATE screenshots SET taken_at = ${p} WHERE id IN (SELECT id FROM screenshots ORDER BY id DESC LIMIT ${RETENTION_SURVIVORS})`, [
      engine === 'postgres' ? later : later.toISOString().replace('T', ' ').replace('Z', ''),
    ]);
    const paths = await dataSource.query<Array<{ file_path: string; taken_at: Date | string }>>('SELECT file_path, taken_at FROM screenshots');
    const storageDir = join(dataDir, 'screenshots');
    const fileOf = (key: string) => join(storageDir, key.replace(/^screenshots\//, ''));
    const dirs = new Set<string>();
    for (const { file_path: key } of paths) {
      const file = fileOf(key);
      const dir = file.slice(0, file.lastIndexOf('/'));
      if (!dirs.has(dir)) mkdirSync(dir, { recursive: true });
      dirs.add(dir);
      writeFileSync(file, 'x');
    }
    const total = paths.length;
    console.log(`${engine}: ${total.toLocaleString('en')} screenshots and files seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const url = `${base}/screenshots`;
    const quietUntil = performance.now() + 5000;
    console.log(`  before the sweep:  GET /screenshots ${summary(await probeUntil(url, auth, () => performance.now() > quietUntil))}`);
    offset = 40 * DAY_MS;
    let done = false;
    started = performance.now();
    const sweep = app
      .get(RetentionSweeper)
      .sweep()
      .finally(() => (done = true));
    const during = await probeUntil(url, auth, () => done);
    const removed = await sweep;
    const seconds = (performance.now() - started) / 1000;
    console.log(`  during the sweep:  GET /screenshots ${summary(during)}`);
    console.log(
      `  swept ${removed.toLocaleString('en')} screenshots (rows and files) in ${seconds.toFixed(1)} s: ${Math.round(removed / seconds).toLocaleString('en')} a second`,
    );

    const [{ n }] = await dataSource.query<Array<{ n: number | string }>>('SELECT COUNT(*) AS n FROM screenshots');
    const [counted] = await dataSource.query<Array<{ total: number | string }>>(
      `SELECT total FROM list_counts WHERE account_id = ${account.id} AND list = 'screenshots'`,
    );
    const left = paths.filter(({ file_path: key }) => existsSync(fileOf(key))).length;
    const ok =
      Number(n) === RETENTION_SURVIVORS && Number(counted?.total) === Number(n) && left === RETENTION_SURVIVORS && removed === total - RETENTION_SURVIVORS;
    console.log(
      `  left: ${Number(n).toLocaleString('en')} rows (list_counts says ${Number(counted?.total).toLocaleString('en')}), ${left.toLocaleString('en')} files: ${ok ? 'as expected' : 'WRONG'}`,
    );
    if (!ok) process.exitCode = 1;
  } finally {
    await close();
  }
}

async function main(): Promise<void> {
  if (RETENTION > 0) {
    console.log(`bench:data retention — ${RETENTION.toLocaleString('en')} expired screenshots (node ${process.version})`);
    for (const engine of ENGINES) await retentionRun(engine);
    return;
  }
  console.log(
    `bench:data — sizes ${SIZES.join(' / ')}, ${WEBSITES.toLocaleString('en')} websites, ${REQUESTS} sequential requests each (node ${process.version})`,
  );
  let met = true;
  for (const engine of ENGINES) {
    const results = await runEngine(engine);
    const [small, large] = [SIZES[0], SIZES[SIZES.length - 1]];
    console.log(
      `\n${engine}: p95 (ms) at ${SIZES.map((s) => s.toLocaleString('en')).join(' / ')}, ratio ${large.toLocaleString('en')} : ${small.toLocaleString('en')} (goal ≤ 2×)`,
    );
    for (const [label, bySize] of results) {
      const ratio = bySize.get(large)!.p95 / bySize.get(small)!.p95;
      // Under 5 ms either way is noise on a shared machine, not growth.
      const ok = ratio <= 2 || bySize.get(large)!.p95 < 5;
      if (!ok) met = false;
      console.log(
        `  ${label.padEnd(42)} ${SIZES.map((s) => bySize.get(s)!.p95.toFixed(1).padStart(7)).join(' ')}   ${ratio.toFixed(2).padStart(5)}× ${ok ? 'met' : 'NOT MET'}`,
      );
    }
    const overview = results.get('dashboard overview')!.get(large)!.p95;
    const overviewOk = overview < OVERVIEW_GOAL_MS;
    if (!overviewOk) met = false;
    console.log(`  overview p95 at ${large.toLocaleString('en')}: ${overview.toFixed(1)} ms (goal < ${OVERVIEW_GOAL_MS} ms) ${overviewOk ? 'met' : 'NOT MET'}`);
  }
  console.log(`\ngoal ${met ? 'MET' : 'NOT MET'}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
