import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { ServerResponse } from 'node:http';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { waitForJob } from '../support/jobs';
import { liveDescendants } from '../support/process-tree';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestApp } from '../support/test-app';
import { createTestDatabase } from '../support/test-database';

const TIMEOUT_MS = 5000;

const html = (body: string) => (_req: unknown, res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);

/** Pages that fight back: each must end within the capture timeout and leave the browser healthy. */
const HOSTILE: Record<string, (req: unknown, res: ServerResponse) => void> = {
  '/dialogs': html(`<body style="background:rgb(0,0,255)"><script>alert(1); confirm('sure?'); prompt('name?');</script>`),
  '/beforeunload': html(
    `<body style="background:rgb(0,0,255)"><script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'stay'; });</script>`,
  ),
  '/popup': html(`<body style="background:rgb(0,0,255)"><script>for (let i = 0; i < 20; i++) window.open('/popup-target-' + i);</script>`),
  '/download': (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="evil.bin"' })
      .end(Buffer.alloc(1024 * 1024, 1)),
  '/auto-download': html(
    `<body style="background:rgb(0,0,255)"><a id="a" href="/download" download>x</a><script>document.getElementById('a').click()</script>`,
  ),
  '/busy-loop': html(`<script>while (true) {}</script>`),
  '/never-loads': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<!doctype html><body>still loading');
  },
  '/memory-hog': html(`<script>const hog = []; for (;;) hog.push(new Array(1e7).fill(Math.random()));</script>`),
  '/tall-100k': html(`<body style="margin:0;background:rgb(0,128,0)"><div style="height:100000px"></div>`),
  '/normal': html(solidPage('rgb(255,0,0)')),
};

/** Chromium processes this test process started (other processes on the machine do not count). */
function chromiumProcessCount(): number {
  return liveDescendants().length;
}

describe('hostile pages (capture hardening)', () => {
  let t: TestApp;
  let pages: PageServer;
  let auth: Record<string, string>;
  const downloadDirsBefore = new Set(readdirSync('/tmp'));

  beforeAll(async () => {
    t = await startTestApp({ env: { CAPTURE_TIMEOUT_MS: String(TIMEOUT_MS), CAPTURE_BROWSERS: '1', CAPTURE_CONCURRENCY: '2' } });
    pages = await new PageServer(HOSTILE).start();
    const account = await t.createAccount({ plan: 'business' });
    const { AccountsService } = await import('../../src/modules/accounts/application/accounts.service');
    await t.app.get(AccountsService).updateAccount(account.email, { limitPerMinute: 10_000, limitPerHour: 100_000 });
    auth = account.auth;
  });
  afterAll(async () => {
    await t.close();
    await pages.stop();
  });

  async function capture(path: string, fullPage = false) {
    const website = await request(t.url)
      .post('/websites')
      .set(auth)
      .send({ name: path, url: `${pages.url}${path}`, full_page: fullPage })
      .expect(201);
    const started = Date.now();
    const { body } = await request(t.url).post(`/websites/${website.body.data.id}/screenshot`).set(auth).expect(200);
    const job = await waitForJob(t.url, auth, body.job_id, 60_000);
    return { job, elapsed: Date.now() - started };
  }

  it.each(Object.keys(HOSTILE).filter((p) => p !== '/normal' && p !== '/download'))(
    '%s ends within its timeout and a normal capture right after succeeds',
    async (path) => {
      const { job, elapsed } = await capture(path, path === '/tall-100k');
      expect(['succeeded', 'failed']).toContain(job.status);
      if (job.status === 'failed') expect(job.error).toEqual(expect.any(String));
      // The budget is per capture; allow the job's own bookkeeping and one retry-free pass on top.
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 8000);
      const normal = await capture('/normal');
      expect(normal.job.status).toBe('succeeded');
    },
  );

  it('dialogs are dismissed and the page is captured', async () => {
    expect((await capture('/dialogs')).job.status).toBe('succeeded');
  });

  it('a 100,000 px page obeys the height cap', async () => {
    const { job } = await capture('/tall-100k', true);
    const shot = await request(t.url).get(`/screenshots/${job.screenshot_id}`).set(auth).expect(200);
    expect([shot.body.data.width, shot.body.data.height]).toEqual([1280, 32768]);
    expect(shot.body.data.capture).toMatchObject({ http_status: 200, page_height: 100000, truncated: true });
  });

  it('a page stuck in a script loop fails with a readable timeout and the browser keeps working', async () => {
    const { job } = await capture('/busy-loop');
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/timeout|did not finish/i);
  });

  it('downloads are denied: nothing is written to disk', async () => {
    await capture('/auto-download');
    const created = readdirSync('/tmp').filter((f) => !downloadDirsBefore.has(f));
    for (const dir of created) {
      let listing: string[] = [];
      try {
        listing = execFileSync('find', [`/tmp/${dir}`, '-name', 'evil.bin*'], { encoding: 'utf8' })
          .split('\n')
          .filter(Boolean);
      } catch {
        /* vanished */
      }
      expect(listing).toEqual([]);
    }
    expect(execFileSync('find', [t.config.dataDir, '-name', 'evil.bin*'], { encoding: 'utf8' }).trim()).toBe('');
  });

  it('no Chromium process outlives the service', async () => {
    const other = await startTestApp({ env: { CAPTURE_BROWSERS: '1' } });
    const before = chromiumProcessCount();
    const account = await other.createAccount();
    const website = await request(other.url)
      .post('/websites')
      .set(account.auth)
      .send({ name: 'n', url: `${pages.url}/normal` })
      .expect(201);
    const { body } = await request(other.url).post(`/websites/${website.body.data.id}/screenshot`).set(account.auth).expect(200);
    expect((await waitForJob(other.url, account.auth, body.job_id)).status).toBe('succeeded');
    expect(chromiumProcessCount()).toBeGreaterThan(before);
    await other.close();
    // Give the kernel a moment to reap what the pool killed.
    const deadline = Date.now() + 5000;
    while (chromiumProcessCount() > before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(chromiumProcessCount()).toBeLessThanOrEqual(before);
  });
});

/**
 * Shutting down (SIGTERM, app.close()) with captures in progress: the job dispatcher stops taking jobs and
 * gives the running ones SHUTDOWN_GRACE_MS (15 s), then queues the rest again and hands their deliveries back;
 * only then do the browsers close. A capture cut off so is queued for the next start (or another worker) — our
 * own shutdown never fails a job. Pages here are held open by the test (hits counted), with a capture timeout
 * long enough that only the shutdown can end them.
 */
describe('graceful shutdown with captures in progress', () => {
  /** A page that hangs while held, and answers every request (also the waiting ones) once released. */
  function heldPage(color: string) {
    const state = { hits: 0, held: true, waiting: [] as ServerResponse[] };
    const body = solidPage(color);
    const answer = (res: ServerResponse) => {
      if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    };
    return {
      state,
      route: (_req: unknown, res: ServerResponse) => {
        state.hits += 1;
        if (state.held) state.waiting.push(res);
        else answer(res);
      },
      release() {
        state.held = false;
        for (const res of state.waiting.splice(0)) answer(res);
      },
    };
  }

  async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The job's row straight from the database, for after the app (and its connection) has closed. */
  async function jobRow(database: TestApp['database'], id: string): Promise<{ status: string; attempts: number; error: string | null }> {
    const connection = new DataSource(
      database.databaseUrl ? { type: 'postgres', url: database.databaseUrl } : { type: 'better-sqlite3', database: join(database.dataDir, 'app.db') },
    );
    await connection.initialize();
    try {
      const row = await connection
        .createQueryBuilder()
        .select(['j.status AS status', 'j.attempts AS attempts', 'j.error AS error'])
        .from('jobs', 'j')
        .where('j.id = :id', { id })
        .getRawOne();
      return { status: row.status, attempts: Number(row.attempts), error: row.error };
    } finally {
      await connection.destroy();
    }
  }

  async function requestCapture(app: TestApp, auth: Record<string, string>, url: string): Promise<string> {
    const website = await request(app.url).post('/websites').set(auth).send({ name: url, url }).expect(201);
    const { body } = await request(app.url).post(`/websites/${website.body.data.id}/screenshot`).set(auth).expect(200);
    return body.job_id;
  }

  it('a capture running when the service shuts down finishes before the browsers close: the job succeeds', async () => {
    const page = heldPage('rgb(0,128,255)');
    const pages = await new PageServer({ '/held': page.route }).start();
    const app = await startTestApp({ env: { CAPTURE_TIMEOUT_MS: '60000', CAPTURE_BROWSERS: '1' } });
    let closed = false;
    try {
      const account = await app.createAccount({ plan: 'business' });
      const jobId = await requestCapture(app, account.auth, `${pages.url}/held`);
      await until(() => page.state.hits > 0, 'the capture to reach the page');

      const closing = app.app.close();
      // Well into the shutdown (the transport is draining), the page answers.
      await new Promise((r) => setTimeout(r, 1_000));
      page.release();
      await closing;
      closed = true;

      expect(await jobRow(app.database, jobId)).toEqual({ status: 'succeeded', attempts: 1, error: null });
    } finally {
      if (!closed) await app.app.close();
      await app.database.drop();
      await pages.stop();
    }
  }, 90_000);

  it('a capture cut off by the shutdown is not failed, even on its last attempt; at the next start it runs again', async () => {
    // Embedded mode on purpose: a cut-off capture stays where it was when the process stops, and Bull would
    // hold it (with its Redis connection) until this test process exits, which a real worker does at once.
    const database = await createTestDatabase({ engine: 'sqlite' });
    const embedded = { DATABASE_URL: '', REDIS_URL: '', CAPTURE_TIMEOUT_MS: '60000', CAPTURE_BROWSERS: '1', CAPTURE_CONCURRENCY: '2' };
    const first = heldPage('rgb(0,128,255)');
    const last = heldPage('rgb(255,128,0)');
    const blocker = heldPage('rgb(0,0,0)');
    const pages = await new PageServer({ '/first': first.route, '/last': last.route, '/blocker': blocker.route }).start();
    let app: TestApp | null = await startTestApp({ database, env: embedded });
    let restarted: TestApp | null = null;
    try {
      const account = await app.createAccount({ plan: 'business' });
      // A job on its first attempt, running.
      const firstJob = await requestCapture(app, account.auth, `${pages.url}/first`);
      await until(() => first.state.hits > 0, 'the first capture to reach its page');
      // Both capture slots busy, so the next job waits in the transport, unclaimed...
      await requestCapture(app, account.auth, `${pages.url}/blocker`);
      await until(() => blocker.state.hits > 0, 'the blocking capture to reach its page');
      const lastJob = await requestCapture(app, account.auth, `${pages.url}/last`);
      const jobs = app.app.get(JobRepository);
      expect((await jobs.findById(lastJob))?.status).toBe('queued');
      // ...where it becomes a job whose two earlier attempts hit browser crashes: its next attempt is its last.
      await app.app.get(DataSource).query('UPDATE jobs SET attempts = 2 WHERE id = ?', [lastJob]);
      blocker.release();
      await until(() => last.state.hits > 0, 'the last-attempt capture to reach its page');
      expect(await jobs.findById(lastJob)).toMatchObject({ status: 'running', attempts: 3 });

      // Neither page ever answers while the service runs: both captures are cut off by the shutdown.
      await app.close();
      app = null;

      for (const [id, attempts] of [
        [firstJob, 1],
        [lastJob, 3],
      ] as const) {
        const row = await jobRow(database, id);
        // Queued again by the shutdown itself, on the attempt it had: the next start takes it at once.
        expect({ id, status: row.status, error: row.error }).toEqual({ id, status: 'queued', error: null });
        expect(row.attempts).toBe(attempts);
      }

      // The next start finds the first job unfinished and completes it, with exactly one screenshot.
      first.release();
      last.release();
      restarted = await startTestApp({ database, env: embedded });
      const done = await waitForJob(restarted.url, account.auth, firstJob, 60_000);
      expect(done).toMatchObject({ status: 'succeeded', error: null, screenshot_id: expect.any(Number) });
      const rows: { id: number }[] = await restarted.app.get(DataSource).query('SELECT id FROM screenshots WHERE job_id = ?', [firstJob]);
      expect(rows.map((r) => r.id)).toEqual([done.screenshot_id]);
    } finally {
      await app?.app.close();
      await restarted?.app.close();
      await database.drop();
      await pages.stop();
    }
  }, 150_000);
});
