import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ScheduleTicker } from '../../src/modules/schedules/application/schedule-ticker';
import { detailFields } from '../support/assertions';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';
import { createTestDatabase, LOCAL_REDIS, TestDatabase } from '../support/test-database';

/**
 * Schedules, issue 31: every 5, 15 or 30 minutes; Run now (POST /schedules/{id}/run); schedules that run a scenario.
 *
 * As in schedules.e2e-spec.ts: the automatic ticker is pushed out to once an hour and every test drives it by
 * pinning the fake clock and calling ScheduleTicker.tick(). Every account is on Pro (20 requests per calendar
 * minute, counted by the pinned clock); tests move the clock on between phases. Captures and scenario runs are
 * real: Chromium loads a page served on localhost.
 */

const QUIET_TICKER = { SCHEDULE_TICK_MS: '3600000' };

interface JobRowView {
  id: string;
  type: string;
  status: string;
  source: string;
  schedule_id: number;
  scenario_id: number | null;
  website_id: number;
}

function ticker(app: TestApp): ScheduleTicker {
  return app.app.get(ScheduleTicker);
}

/** Every job that names the schedule (occurrences and Run now), read from the database, oldest first. */
async function jobsOf(app: TestApp, scheduleId: number): Promise<JobRowView[]> {
  const rows: JobRowView[] = await app.app
    .get(DataSource)
    .query(`SELECT id, type, status, source, schedule_id, scenario_id, website_id FROM jobs WHERE schedule_id = ${Number(scheduleId)} ORDER BY created_at`);
  return rows.map((r) => ({
    ...r,
    schedule_id: Number(r.schedule_id),
    website_id: Number(r.website_id),
    scenario_id: r.scenario_id === null ? null : Number(r.scenario_id),
  }));
}

async function drainJobs(app: TestApp, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ n }] = await app.app.get(DataSource).query(`SELECT COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running')`);
    if (Number(n) === 0) return;
    if (Date.now() > deadline) throw new Error(`${n} jobs still queued or running after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function createWebsite(app: TestApp, account: TestAccount, url: string): Promise<Record<string, any>> {
  const res = await request(app.url).post('/websites').set(account.auth).send({ name: 'Scheduled site', url });
  expect(res.status).toBe(201);
  return res.body.data;
}

async function createScenario(app: TestApp, account: TestAccount, websiteId: number): Promise<Record<string, any>> {
  const res = await request(app.url)
    .post('/scenarios')
    .set(account.auth)
    .send({ name: 'Check the page', website_id: websiteId, steps: [{ type: 'wait_for', selector: 'body' }, { type: 'screenshot' }] });
  expect(res.status).toBe(201);
  return res.body.data;
}

async function createSchedule(app: TestApp, account: TestAccount, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await request(app.url).post('/schedules').set(account.auth).send(body);
  if (res.status !== 201) throw new Error(`POST /schedules answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function getSchedule(app: TestApp, account: TestAccount, id: number): Promise<Record<string, any>> {
  const res = await request(app.url).get(`/schedules/${id}`).set(account.auth);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function tickAt(app: TestApp, at: string | Date): Promise<number> {
  app.clock.set(at);
  return ticker(app).tick();
}

function expectValidationFailed(res: request.Response, fields: string[]): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 422, body: { success: false, code: 'validation_failed' } });
  expect(detailFields(res.body)).toEqual([...fields].sort());
}

describe('Schedules: every N minutes, Run now, scenario schedules (issue 31)', () => {
  let t: TestApp;
  let pages: PageServer;
  let pageUrl: string;

  beforeAll(async () => {
    pages = await new PageServer({ '/page': solidPage('rgb(0,128,255)') }).start();
    pageUrl = `${pages.url}/page`;
    t = await startTestApp({ env: QUIET_TICKER });
  });
  afterAll(async () => {
    await t?.close();
    await pages?.stop();
  });
  afterEach(async () => {
    await drainJobs(t);
    await t.app.get(DataSource).query('DELETE FROM schedules');
  });

  describe('every 5, 15 or 30 minutes', () => {
    it('next_run_at sits on the local clock grid shifted by the minutes of time; one job per occurrence; a missed stretch fires once', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-11-22T08:07:30Z');
      const website = await createWebsite(t, account, pageUrl);

      const five = await createSchedule(t, account, { name: '5', website_id: website.id, frequency: 'every_5_minutes', time: '00:00', timezone: 'UTC' });
      const quarter = await createSchedule(t, account, {
        name: '15',
        website_id: website.id,
        frequency: 'every_15_minutes',
        time: '00:05',
        timezone: 'Europe/Berlin',
      });
      // Kathmandu is UTC+05:45: its :00 and :30 are :15 and :45 UTC.
      const half = await createSchedule(t, account, {
        name: '30',
        website_id: website.id,
        frequency: 'every_30_minutes',
        time: '00:00',
        timezone: 'Asia/Kathmandu',
      });
      expect([five.frequency, quarter.frequency, half.frequency]).toEqual(['every_5_minutes', 'every_15_minutes', 'every_30_minutes']);
      expect([five.next_run_at, quarter.next_run_at, half.next_run_at]).toEqual([
        '2026-11-22T08:10:00.000Z',
        '2026-11-22T08:20:00.000Z', // :05, :20, :35, :50 local (Berlin is a whole hour off UTC)
        '2026-11-22T08:15:00.000Z',
      ]);

      expect(await tickAt(t, '2026-11-22T08:09:59.999Z')).toBe(0);
      expect(await tickAt(t, '2026-11-22T08:10:01Z')).toBe(1);
      expect(await ticker(t).tick()).toBe(0); // the same occurrence never fires twice
      expect((await getSchedule(t, account, five.id)).next_run_at).toBe('2026-11-22T08:15:00.000Z');
      expect(await tickAt(t, '2026-11-22T08:15:00Z')).toBe(2); // the 5-minute one and the Kathmandu one
      expect(await tickAt(t, '2026-11-22T08:20:00Z')).toBe(2); // the 5-minute one and the Berlin one
      expect(await ticker(t).tick()).toBe(0);

      // Down for 40 minutes: each schedule fires once for everything it missed, then keeps its grid.
      expect(await tickAt(t, '2026-11-22T09:01:00Z')).toBe(3);
      expect((await getSchedule(t, account, five.id)).next_run_at).toBe('2026-11-22T09:05:00.000Z');
      expect((await getSchedule(t, account, quarter.id)).next_run_at).toBe('2026-11-22T09:05:00.000Z');
      expect((await getSchedule(t, account, half.id)).next_run_at).toBe('2026-11-22T09:15:00.000Z');

      const jobs = [...(await jobsOf(t, five.id)), ...(await jobsOf(t, quarter.id)), ...(await jobsOf(t, half.id))];
      expect(jobs.map((j) => j.source)).toEqual(Array(8).fill('schedule'));
      expect(await jobsOf(t, five.id)).toHaveLength(4); // 08:10, 08:15, 08:20, the catch-up at 09:01
      expect(await jobsOf(t, quarter.id)).toHaveLength(2); // 08:20, the catch-up
      expect(await jobsOf(t, half.id)).toHaveLength(2); // 08:15, the catch-up
      for (const job of jobs) expect((await waitForJob(t.url, account.auth, job.id)).status).toBe('succeeded');
    });

    it('an update to every_5_minutes recomputes next_run_at; other values (every_10_minutes, 5min) are 422 naming frequency', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-11-23T10:01:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const schedule = await createSchedule(t, account, { name: 'Daily', website_id: website.id, frequency: 'daily', time: '09:00', timezone: 'UTC' });
      expect(schedule.next_run_at).toBe('2026-11-24T09:00:00.000Z');

      const put = await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ frequency: 'every_5_minutes' });
      expect(put.status).toBe(200);
      expect(put.body.data).toMatchObject({ frequency: 'every_5_minutes', time: '09:00', next_run_at: '2026-11-23T10:05:00.000Z' });

      for (const frequency of ['every_10_minutes', '5min', 'EVERY_5_MINUTES']) {
        expectValidationFailed(await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ frequency }), ['frequency']);
        expectValidationFailed(
          await request(t.url).post('/schedules').set(account.auth).send({ name: 'x', website_id: website.id, frequency, time: '00:00', timezone: 'UTC' }),
          ['frequency'],
        );
      }
    });
  });

  describe('Run now', () => {
    it('202 with job_id, a real capture naming the schedule; last_run_at/last_job_id record it; next_run_at does not move; counts for the rate limit', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-11-25T08:00:10Z');
      const website = await createWebsite(t, account, pageUrl);
      const schedule = await createSchedule(t, account, {
        name: 'Daily',
        website_id: website.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
      });
      expect(schedule.next_run_at).toBe('2026-11-25T09:00:00.000Z');

      const before = await request(t.url).get(`/schedules/${schedule.id}`).set(account.auth).expect(200);
      const remaining = Number(before.headers['x-ratelimit-remaining']);
      t.clock.set('2026-11-25T08:00:20Z');
      const res = await request(t.url).post(`/schedules/${schedule.id}/run`).set(account.auth);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ success: true, message: 'Screenshot job queued', job_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(Number(res.headers['x-ratelimit-remaining'])).toBe(remaining - 1);

      const job = await waitForJob(t.url, account.auth, res.body.job_id);
      expect(job).toMatchObject({ type: 'screenshot', status: 'succeeded', source: 'api', schedule_id: schedule.id, website_id: website.id });
      const after = await getSchedule(t, account, schedule.id);
      expect(after).toMatchObject({
        last_run_at: '2026-11-25T08:00:20.000Z',
        last_job_id: res.body.job_id,
        next_run_at: '2026-11-25T09:00:00.000Z',
        enabled: true,
      });

      // The occurrence still fires as planned, with its own job.
      expect(await tickAt(t, '2026-11-25T09:00:01Z')).toBe(1);
      const jobs = await jobsOf(t, schedule.id);
      expect(jobs.map((j) => j.source)).toEqual(['api', 'schedule']);

      // A disabled schedule runs by hand too, and stays disabled.
      t.clock.set('2026-11-25T09:01:00Z');
      await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ enabled: false }).expect(200);
      const manual = await request(t.url).post(`/schedules/${schedule.id}/run`).set(account.auth);
      expect(manual.status).toBe(202);
      expect(await getSchedule(t, account, schedule.id)).toMatchObject({ enabled: false, next_run_at: null, last_job_id: manual.body.job_id });
    });

    it('Idempotency-Key returns the same job; another account’s schedule and unknown ids are 404; over the limit it is 429 and queues nothing', async () => {
      const owner = await t.createAccount({ plan: 'pro' });
      const other = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-11-26T08:00:00Z');
      const website = await createWebsite(t, owner, pageUrl);
      const schedule = await createSchedule(t, owner, { name: 'Mine', website_id: website.id, frequency: 'hourly', time: '00:30', timezone: 'UTC' });

      t.clock.set('2026-11-26T08:01:00Z');
      const key = `run-${randomBytes(4).toString('hex')}`;
      const first = await request(t.url).post(`/schedules/${schedule.id}/run`).set(owner.auth).set('Idempotency-Key', key);
      const retry = await request(t.url).post(`/schedules/${schedule.id}/run`).set(owner.auth).set('Idempotency-Key', key);
      expect([first.status, retry.status]).toEqual([202, 202]);
      expect(retry.body.job_id).toBe(first.body.job_id);
      // The same key for another request (a plain Take Screenshot) is 409, never this job.
      const reused = await request(t.url).post(`/websites/${website.id}/screenshot`).set(owner.auth).set('Idempotency-Key', key);
      expect(reused.status).toBe(409);

      for (const res of [
        await request(t.url).post(`/schedules/${schedule.id}/run`).set(other.auth),
        await request(t.url).post('/schedules/999999/run').set(owner.auth),
        await request(t.url).post('/schedules/0x10/run').set(owner.auth),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ success: false, code: 'not_found' });
      }
      expect(await jobsOf(t, schedule.id)).toHaveLength(1);

      // Use up the minute, then Run now is refused with the spec's 429 body before anything is queued.
      t.clock.set('2026-11-26T08:02:00Z');
      for (let i = 0; i < 20; i++) await request(t.url).get(`/schedules/${schedule.id}`).set(owner.auth);
      const limited = await request(t.url).post(`/schedules/${schedule.id}/run`).set(owner.auth);
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ success: false, error: 'Rate limit exceeded', limit: 20 });
      expect(await jobsOf(t, schedule.id)).toHaveLength(1);
    });
  });

  describe('schedules that run a scenario', () => {
    it('scenario_id: website_id is the scenario’s, ownership checked (422), each occurrence one real execution, Run now answers execution_id', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      const stranger = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-12-01T07:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const otherSite = await createWebsite(t, account, pageUrl);
      const scenario = await createScenario(t, account, website.id);
      const strangersSite = await createWebsite(t, stranger, pageUrl);
      const strangersScenario = await createScenario(t, stranger, strangersSite.id);

      const base = { name: 'Scenario every 15', frequency: 'every_15_minutes', time: '00:00', timezone: 'UTC' };
      expectValidationFailed(
        await request(t.url)
          .post('/schedules')
          .set(account.auth)
          .send({ ...base, scenario_id: strangersScenario.id }),
        ['scenario_id'],
      );
      expectValidationFailed(
        await request(t.url)
          .post('/schedules')
          .set(account.auth)
          .send({ ...base, scenario_id: 999999 }),
        ['scenario_id'],
      );
      expectValidationFailed(
        await request(t.url)
          .post('/schedules')
          .set(account.auth)
          .send({ ...base, scenario_id: 'one' }),
        ['scenario_id'],
      );
      expectValidationFailed(
        await request(t.url)
          .post('/schedules')
          .set(account.auth)
          .send({ ...base, scenario_id: scenario.id, website_id: otherSite.id }),
        ['website_id'],
      );
      expectValidationFailed(await request(t.url).post('/schedules').set(account.auth).send(base), ['website_id']); // neither
      expect((await request(t.url).get('/schedules').set(account.auth)).body.meta.total).toBe(0);

      const schedule = await createSchedule(t, account, { ...base, scenario_id: scenario.id });
      expect(schedule).toMatchObject({ scenario_id: scenario.id, website_id: website.id, next_run_at: '2026-12-01T07:15:00.000Z' });
      // An echoed body with the scenario's own website is fine.
      expect((await createSchedule(t, account, { ...base, name: 'Echo', scenario_id: scenario.id, website_id: website.id })).scenario_id).toBe(scenario.id);
      const listed = await request(t.url).get('/schedules').set(account.auth).expect(200);
      expect(listed.body.data.map((s: Record<string, unknown>) => s.scenario_id)).toEqual([scenario.id, scenario.id]);
      expect(await getSchedule(t, account, schedule.id)).toEqual(schedule);

      expect(await tickAt(t, '2026-12-01T07:15:02Z')).toBe(2);
      expect(await ticker(t).tick()).toBe(0);
      const [fired] = await jobsOf(t, schedule.id);
      expect(fired).toMatchObject({ type: 'scenario', source: 'schedule', scenario_id: scenario.id, website_id: website.id });
      const execution = await request(t.url).get(`/executions/${fired.id}`).set(account.auth).expect(200);
      expect(execution.body.data).toMatchObject({ id: fired.id, scenario_id: scenario.id });
      expect((await waitForJob(t.url, account.auth, fired.id)).status).toBe('succeeded');
      const done = await request(t.url).get(`/executions/${fired.id}`).set(account.auth).expect(200);
      expect(done.body.data.status).toBe('succeeded');
      expect(done.body.data.screenshot_ids.length).toBeGreaterThanOrEqual(1);
      expect(await getSchedule(t, account, schedule.id)).toMatchObject({ last_job_id: fired.id, next_run_at: '2026-12-01T07:30:00.000Z' });

      t.clock.set('2026-12-01T07:16:00Z');
      const run = await request(t.url).post(`/schedules/${schedule.id}/run`).set(account.auth);
      expect(run.status).toBe(202);
      expect(run.body).toEqual({ success: true, message: 'Scenario execution queued', job_id: expect.any(String), execution_id: run.body.job_id });
      expect((await waitForJob(t.url, account.auth, run.body.execution_id)).status).toBe('succeeded');

      // Back to a capture of the website: scenario_id null keeps the website unless another is named.
      const back = await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ scenario_id: null });
      expect(back.status).toBe(200);
      expect(back.body.data).toMatchObject({ scenario_id: null, website_id: website.id, next_run_at: '2026-12-01T07:30:00.000Z' });
      const moved = await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ website_id: otherSite.id });
      expect(moved.body.data).toMatchObject({ scenario_id: null, website_id: otherSite.id });
      // And to a scenario again; a website_id other than the scenario's in the same update is 422 and changes nothing.
      expectValidationFailed(
        await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ scenario_id: scenario.id, website_id: otherSite.id }),
        ['website_id'],
      );
      expectValidationFailed(await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ scenario_id: strangersScenario.id }), [
        'scenario_id',
      ]);
      t.clock.set('2026-12-01T07:17:00Z');
      const again = await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ scenario_id: scenario.id });
      expect(again.body.data).toMatchObject({ scenario_id: scenario.id, website_id: website.id });
      // The scenario moves to another website: the schedule shows it, and its runs go there.
      await request(t.url).put(`/scenarios/${scenario.id}`).set(account.auth).send({ website_id: otherSite.id }).expect(200);
      expect(await getSchedule(t, account, schedule.id)).toMatchObject({ scenario_id: scenario.id, website_id: otherSite.id });
      t.clock.set('2026-12-01T07:18:00Z');
      const moved2 = await request(t.url).post(`/schedules/${schedule.id}/run`).set(account.auth).expect(202);
      expect((await waitForJob(t.url, account.auth, moved2.body.job_id)).website_id).toBe(otherSite.id);
      // Any update stores it (a rename here), so deleting the old website no longer concerns the schedule.
      await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ name: 'Renamed' }).expect(200);
      const [{ website_id: stored }] = await t.app.get(DataSource).query(`SELECT website_id FROM schedules WHERE id = ${Number(schedule.id)}`);
      expect(Number(stored)).toBe(otherSite.id);
      await request(t.url).put(`/scenarios/${scenario.id}`).set(account.auth).send({ website_id: website.id }).expect(200);
      // A website_id on a scenario schedule that is not its scenario's is 422.
      expectValidationFailed(await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ website_id: otherSite.id }), ['website_id']);
    });

    it('a paused scenario website lets occurrences pass; deleting the scenario deletes its schedules', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-12-02T07:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const scenario = await createScenario(t, account, website.id);
      const schedule = await createSchedule(t, account, { name: 'S', scenario_id: scenario.id, frequency: 'every_5_minutes', time: '00:00', timezone: 'UTC' });

      await request(t.url).put(`/websites/${website.id}`).set(account.auth).send({ status: 'paused' }).expect(200);
      expect(await tickAt(t, '2026-12-02T07:05:00Z')).toBe(0);
      expect(await jobsOf(t, schedule.id)).toHaveLength(0);
      expect((await getSchedule(t, account, schedule.id)).next_run_at).toBe('2026-12-02T07:10:00.000Z');

      await request(t.url).delete(`/scenarios/${scenario.id}`).set(account.auth).expect(200);
      expect((await request(t.url).get(`/schedules/${schedule.id}`).set(account.auth)).status).toBe(404);
      expect(await tickAt(t, '2026-12-02T07:10:00Z')).toBe(0);
    });
  });
});

describe('Schedules every 5 minutes running a scenario: two instances on one PostgreSQL and Redis', () => {
  let db: TestDatabase;
  let pages: PageServer;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    db = await createTestDatabase({ engine: 'postgres' });
    pages = await new PageServer({ '/page': solidPage('rgb(200,0,0)') }).start();
    const prefix = `sss-test-${randomBytes(6).toString('hex')}`;
    a = await startTestApp({ database: db, redisKeyPrefix: prefix, env: { ...QUIET_TICKER, REDIS_URL: LOCAL_REDIS } });
    b = await startTestApp({ database: db, redisKeyPrefix: prefix, env: { ...QUIET_TICKER, REDIS_URL: LOCAL_REDIS } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await pages?.stop();
    await db?.drop();
  });

  it('ticking concurrently, they queue exactly one execution per occurrence over 8 occurrences', async () => {
    const start = new Date('2027-02-01T10:01:00Z');
    a.clock.set(start);
    b.clock.set(start);
    const account = await a.createAccount({ plan: 'pro' });
    const website = await createWebsite(a, account, `${pages.url}/page`);
    const scenario = await createScenario(a, account, website.id);
    const schedule = await createSchedule(a, account, {
      name: 'Every 5',
      scenario_id: scenario.id,
      frequency: 'every_5_minutes',
      time: '00:00',
      timezone: 'UTC',
    });
    expect(schedule.next_run_at).toBe('2027-02-01T10:05:00.000Z');

    const first = Date.parse(schedule.next_run_at);
    let queued = 0;
    for (let i = 0; i < 8; i++) {
      const at = new Date(first + i * 300_000 + 1_000);
      a.clock.set(at);
      b.clock.set(at);
      const [fromA, fromB] = await Promise.all([ticker(a).tick(), ticker(b).tick()]);
      expect({ occurrence: i, queued: fromA + fromB }).toEqual({ occurrence: i, queued: 1 });
      queued += fromA + fromB;
      expect(await jobsOf(a, schedule.id)).toHaveLength(i + 1);
      // A run's 120 s budget is measured on the app's clock: let it finish before the clock jumps 5 minutes on.
      await drainJobs(a, 60_000);
    }
    expect(queued).toBe(8);
    expect((await getSchedule(b, account, schedule.id)).next_run_at).toBe(new Date(first + 8 * 300_000).toISOString());

    await drainJobs(a, 150_000);
    const jobs = await jobsOf(a, schedule.id);
    expect(jobs.map((j) => [j.type, j.source, j.status])).toEqual(Array(8).fill(['scenario', 'schedule', 'succeeded']));
  }, 240_000);
});
