import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { PageServer, solidPage } from './page-server';
import { ServiceProcess, startServiceProcess } from './service-process';
import { startTestApp, TestAccount, TestApp } from './test-app';
import { createTestDatabase, LOCAL_REDIS, TestDatabase } from './test-database';

/**
 * docs/fair-slots.md, measured with real Chromium (test/e2e/fair-slots.e2e-spec.ts; bench/fairness-bench.ts runs it): a service with 6 capture slots in all — embedded (one process, CAPTURE_CONCURRENCY=6)
 * or scaled (an API process, two worker processes of 3 slots each, on PostgreSQL + Redis) — and accounts that
 * capture pages of a local server, whose hits tell in which order the captures started.
 */
const TOTAL_SLOTS = 6;

export interface FairRig {
  mode: 'embedded' | 'scaled';
  url: string;
  pages: PageServer;
  /** Page hits in order, by the account letter the page is named after. */
  hits: string[];
  /** A starter account (cap 4: docs/fair-slots.md) whose rate limits let a backlog of 60 through. */
  account(letter: string): Promise<{ account: TestAccount; websiteId: number }>;
  /** How many jobs of the account run right now (the jobs table, across every worker). */
  running(accountId: number): Promise<number>;
  unfinished(accountId: number): Promise<number>;
  close(): Promise<void>;
}

export async function startFairRig(mode: 'embedded' | 'scaled'): Promise<FairRig> {
  const hits: string[] = [];
  const route = (letter: string) => (_req: unknown, res: import('node:http').ServerResponse) => {
    hits.push(letter);
    res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage('rgb(0,128,255)'));
  };
  const pages = await new PageServer(Object.fromEntries([...'ABCD'].map((l) => [`/${l}`, route(l)]))).start();
  let db: TestDatabase | null = null;
  let api: TestApp;
  const workers: ServiceProcess[] = [];
  if (mode === 'embedded') {
    api = await startTestApp({ env: { CAPTURE_CONCURRENCY: String(TOTAL_SLOTS) } });
  } else {
    db = await createTestDatabase({ engine: 'postgres' });
    const prefix = `sss-fair-${randomBytes(6).toString('hex')}`;
    api = await startTestApp({ database: db, redisKeyPrefix: prefix, env: { REDIS_URL: LOCAL_REDIS, ROLE: 'api' } });
    const env = {
      DATABASE_URL: db.databaseUrl as string,
      REDIS_URL: LOCAL_REDIS,
      REDIS_KEY_PREFIX: prefix,
      ALLOW_PRIVATE_NETWORKS: 'true',
      DATA_DIR: db.dataDir,
      ROLE: 'worker',
      CAPTURE_CONCURRENCY: String(TOTAL_SLOTS / 2),
      CAPTURE_BROWSERS: '1',
    };
    workers.push(...(await Promise.all([startServiceProcess(env), startServiceProcess(env)])));
  }
  const accounts = api.app.get(AccountsService);
  const sql = api.app.get(DataSource);
  const count = async (accountId: number, statuses: string) => {
    const rows: { n: string | number }[] = await sql.query(
      `SELECT COUNT(*) AS n FROM jobs WHERE account_id = ${Number(accountId)} AND status IN (${statuses})`,
    );
    return Number(rows[0].n);
  };
  return {
    mode,
    url: api.url,
    pages,
    hits,
    async account(letter) {
      const account = await api.createAccount({ plan: 'starter' });
      await accounts.updateAccount(account.email, { limitPerMinute: 100_000, limitPerHour: 100_000 });
      const website = await request(api.url)
        .post('/websites')
        .set(account.auth)
        .send({ name: letter, url: `${pages.url}/${letter}` })
        .expect(201);
      return { account, websiteId: website.body.data.id as number };
    },
    running: (accountId) => count(accountId, "'running'"),
    unfinished: (accountId) => count(accountId, "'queued', 'running'"),
    async close() {
      await Promise.all(workers.map((w) => w.stop()));
      await api.close();
      if (db) await db.drop();
      await pages.stop();
    },
  };
}

export async function queueCapture(url: string, account: TestAccount, websiteId: number): Promise<string> {
  const res = await request(url).post(`/websites/${websiteId}/screenshot`).set(account.auth).send({});
  if (res.status !== 200) throw new Error(`POST screenshot answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.job_id as string;
}

/** A client asking for one capture and long-polling it (`?wait=30`) until it ends: ms from asking to the answer. */
export async function waitedCapture(url: string, account: TestAccount, websiteId: number): Promise<number> {
  const started = performance.now();
  const jobId = await queueCapture(url, account, websiteId);
  for (;;) {
    const res = await request(url).get(`/jobs/${jobId}?wait=30`).set(account.auth);
    if (res.status !== 200) throw new Error(`GET /jobs answered ${res.status}: ${JSON.stringify(res.body)}`);
    if (res.body.data.status === 'failed') throw new Error(`capture failed: ${res.body.data.error}`);
    if (res.body.data.status === 'succeeded') return performance.now() - started;
  }
}

/** Samples the account's running jobs until `stop()`; resolves the most seen at once. */
export function peakRunning(rig: FairRig, accountId: number): { stop: () => Promise<number> } {
  let peak = 0;
  let on = true;
  const sampling = (async () => {
    while (on) {
      peak = Math.max(peak, await rig.running(accountId));
      await new Promise((r) => setTimeout(r, 15));
    }
  })();
  return {
    async stop() {
      on = false;
      await sampling;
      return peak;
    },
  };
}

/** Waits until none of the accounts' jobs is queued or running any more. */
export async function settled(rig: FairRig, accountIds: number[], timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await Promise.all(accountIds.map((id) => rig.unfinished(id)));
    if (left.every((n) => n === 0)) return;
    if (Date.now() > deadline) throw new Error(`the backlogs did not drain: ${left.join(', ')} left`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
