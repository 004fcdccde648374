import { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { ServerResponse } from 'node:http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { freePort, startRedis, stopRedis } from '../support/redis-server';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';
import { createTestDatabase, LOCAL_REDIS, TestDatabase } from '../support/test-database';

/**
 * Handing jobs over at once, scaled out (PostgreSQL + Redis, workers as real service processes): a worker
 * stopped by SIGTERM hands back what outlasted its grace (README, "Faults, as measured"), and a Redis that
 * comes back empty gets the jobs it lost again from the jobs table as soon as the workers reconnect.
 * The bounds are the issue's: 2 s, where the lock (30 s here, the default) or the sweep (30 s) took far longer.
 */

/** A page whose first request never gets an answer while `held`; every later one is answered at once. Hits are timed. */
function slowFirstPage(color: string) {
  const state = { held: true, hits: [] as number[], waiting: [] as ServerResponse[] };
  const body = solidPage(color);
  return {
    state,
    route: (_req: unknown, res: ServerResponse) => {
      state.hits.push(Date.now());
      if (state.held && state.hits.length === 1) state.waiting.push(res);
      else res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    },
    release() {
      state.held = false;
      for (const res of state.waiting.splice(0)) if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    },
  };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function captureOf(api: TestApp, account: TestAccount, url: string): Promise<string> {
  const website = await request(api.url).post('/websites').set(account.auth).send({ name: url, url }).expect(201);
  return (await request(api.url).post(`/websites/${website.body.data.id}/screenshot`).set(account.auth).expect(200)).body.job_id;
}

async function screenshotRows(api: TestApp, jobId: string): Promise<{ id: number }[]> {
  return api.app.get(DataSource).query('SELECT id FROM screenshots WHERE job_id = $1', [jobId]);
}

describe('job handover (scaled out)', () => {
  let db: TestDatabase;
  let pages: PageServer | null = null;
  let api: TestApp | null = null;
  const workers: ServiceProcess[] = [];

  beforeEach(async () => {
    db = await createTestDatabase({ engine: 'postgres' });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.crash()));
    await api?.close();
    api = null;
    await pages?.stop();
    pages = null;
    await db?.drop(); // the app was handed it: it drops only databases it made
  });

  it('SIGTERM during a capture that outlasts the grace: another worker starts the job within 2 s of the exit; it succeeds once', async () => {
    const GRACE_MS = 3_000;
    const page = slowFirstPage('rgb(0,128,255)');
    pages = await new PageServer({ '/slow': page.route }).start();
    const prefix = `sss-test-${randomBytes(6).toString('hex')}`;
    // The Bull lock at its default (30 s): a handover within 2 s cannot come from the lock running out.
    const env = {
      DATABASE_URL: db.databaseUrl!,
      REDIS_URL: LOCAL_REDIS,
      REDIS_KEY_PREFIX: prefix,
      ALLOW_PRIVATE_NETWORKS: 'true',
      DATA_DIR: db.dataDir,
      CAPTURE_TIMEOUT_MS: '120000',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      ROLE: 'worker',
    };
    api = await startTestApp({ database: db, redisKeyPrefix: prefix, env: { REDIS_URL: LOCAL_REDIS, ROLE: 'api' } });
    const a = await startServiceProcess(env);
    workers.push(a);
    const account = await api.createAccount({ plan: 'business' });
    const jobId = await captureOf(api, account, `${pages.url}/slow`);
    await until(() => page.state.hits.length === 1, 'worker A to reach the page');
    const b = await startServiceProcess(env); // idle, waiting for work, before A is told to stop
    workers.push(b);

    const sigtermAt = Date.now();
    const exitedAt = await a.terminate();
    await until(() => page.state.hits.length >= 2, 'another worker to start the job', 10_000);
    const startedAt = page.state.hits[1];

    const job = await waitForJob(api.url, account.auth, jobId, 60_000);
    expect(job).toMatchObject({ status: 'succeeded', error: null, attempts: 2 });
    const rows = await screenshotRows(api, jobId);
    expect(rows.map((r) => r.id)).toEqual([job.screenshot_id]);
    expect(page.state.hits).toHaveLength(2); // A's capture, cut off, and B's: nobody captured it a third time
    // A gave the capture its grace, then handed it over: B started it after the grace, and within 2 s of A's exit.
    expect(startedAt - sigtermAt).toBeGreaterThanOrEqual(GRACE_MS);
    expect(startedAt - exitedAt).toBeLessThanOrEqual(2_000);
    expect(a.output()).toMatch(/shutting down: 1 unfinished job\(s\) queued again, 1 handed back to the queue/);
    const claimedAt = Date.parse(job.started_at as string); // B's claim of attempt 2, before it launched a browser
    process.stdout.write(
      `handover: SIGTERM → A exited ${exitedAt - sigtermAt} ms; SIGTERM → B claimed ${claimedAt - sigtermAt} ms, → B at the page ${startedAt - sigtermAt} ms; A's exit → B at the page ${startedAt - exitedAt} ms\n`,
    );
  }, 120_000);

  describe('a Redis restarted empty', () => {
    let port: number;
    let redis: ChildProcess | null = null;

    beforeEach(async () => {
      port = await freePort();
      redis = await startRedis(port);
    });
    afterEach(async () => {
      if (redis) await stopRedis(redis);
    });

    it('the jobs its queue lost are started again within 2 s of its return, each captured once', async () => {
      const held = slowFirstPage('rgb(0,0,0)');
      const fast = slowFirstPage('rgb(0,160,80)');
      fast.state.held = false;
      pages = await new PageServer({ '/held': held.route, '/fast': fast.route }).start();
      const redisUrl = `redis://127.0.0.1:${port}`;
      const prefix = `sss-test-${randomBytes(6).toString('hex')}`;
      api = await startTestApp({ database: db, redisKeyPrefix: prefix, env: { REDIS_URL: redisUrl, ROLE: 'api' } });
      const worker = await startServiceProcess({
        DATABASE_URL: db.databaseUrl!,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: prefix,
        ALLOW_PRIVATE_NETWORKS: 'true',
        DATA_DIR: db.dataDir,
        CAPTURE_CONCURRENCY: '1',
        CAPTURE_BROWSERS: '1',
        ROLE: 'worker',
      });
      workers.push(worker);
      const account = await api.createAccount({ plan: 'business' });
      // The only capture slot busy, so the next two jobs wait in Bull's queue...
      const busy = await captureOf(api, account, `${pages.url}/held`);
      await until(() => held.state.hits.length === 1, 'the worker to reach the held page');
      const waiting = [await captureOf(api, account, `${pages.url}/fast`), await captureOf(api, account, `${pages.url}/fast`)];

      // ...when Redis goes, and comes back without its data. The busy job ends meanwhile (the database is up).
      await stopRedis(redis!);
      redis = null;
      held.release();
      const jobs = api.app.get(DataSource);
      const status = async (id: string) => (await jobs.query('SELECT status FROM jobs WHERE id = $1', [id]))[0].status as string;
      await until(async () => (await status(busy)) === 'succeeded', 'the busy job to end');
      for (const id of waiting) expect(await status(id)).toBe('queued');
      redis = await startRedis(port);
      const backAt = Date.now();

      await until(() => fast.state.hits.length >= 1, 'a lost job to start again', 10_000);
      const firstStartedAt = fast.state.hits[0];
      for (const id of waiting) {
        const job = await waitForJob(api.url, account.auth, id, 60_000);
        expect(job).toMatchObject({ status: 'succeeded', error: null, attempts: 1 });
        expect((await screenshotRows(api, id)).map((r) => r.id)).toEqual([job.screenshot_id]);
      }
      expect(fast.state.hits).toHaveLength(2);
      expect(firstStartedAt - backAt).toBeLessThanOrEqual(2_000);
      process.stdout.write(`wiped queue: Redis back → first lost job started ${firstStartedAt - backAt} ms, second ${fast.state.hits[1] - backAt} ms\n`);
    }, 120_000);
  });
});
