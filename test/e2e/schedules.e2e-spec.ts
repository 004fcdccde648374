import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { ScheduleRepository } from '../../src/modules/schedules/application/ports';
import { ScheduleTicker } from '../../src/modules/schedules/application/schedule-ticker';
import { SchedulesService } from '../../src/modules/schedules/application/schedules.service';
import { WebsiteRepository } from '../../src/modules/websites/application/ports';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';
import { createTestDatabase, LOCAL_REDIS, TestDatabase } from '../support/test-database';
import { detailFields } from '../support/assertions';

/**
 * Schedules (spec: Resources/Schedule, Endpoints/Schedules; API.md: Schedules).
 *
 * The automatic ticker is pushed out to once an hour (SCHEDULE_TICK_MS) so it never interferes; every test
 * drives it by pinning the fake clock and calling ScheduleTicker.tick(), which runs one pass and returns how
 * many captures it queued. Rate limit: every account is on Pro (20 requests per calendar minute); each test
 * uses its own accounts and sends well under 20 requests per pinned minute. Schedule-fired captures do not
 * count against the limit.
 *
 * Schedule-fired captures are real: the websites point at a local page rendered by real Chromium. Tests that
 * share an app wait for every capture to finish and remove their schedules afterwards, so one test's
 * schedules never fire during another test's ticks.
 */

const QUIET_TICKER = { SCHEDULE_TICK_MS: '3600000' };

const SCHEDULE_FIELDS = ['id', 'name', 'website_id', 'frequency', 'time', 'timezone', 'day_of_week', 'enabled', 'next_run_at', 'last_run_at', 'last_job_id'];

const NOT_FOUND = { success: false, error: expect.any(String), code: 'not_found' };

/** The set of fields named in a 422's details (each detail must be a {field, message} pair of non-empty strings). */

function expectValidationFailed(res: request.Response, fields: string[]): void {
  expect(res.status).toBe(422);
  expect(res.body).toMatchObject({ success: false, code: 'validation_failed', details: expect.any(Array) });
  expect(detailFields(res.body)).toEqual([...fields].sort());
}

function ticker(app: TestApp): ScheduleTicker {
  return app.app.get(ScheduleTicker);
}

interface JobRowView {
  id: string;
  status: string;
  source: string;
  schedule_id: number;
  website_id: number;
}

/** The jobs a schedule has queued, read from the database (never through the rate-limited API). */
async function scheduleJobs(app: TestApp, scheduleId: number): Promise<JobRowView[]> {
  const rows: JobRowView[] = await app.app
    .get(DataSource)
    .query(
      `SELECT id, status, source, schedule_id, website_id FROM jobs WHERE source = 'schedule' AND schedule_id = ${Number(scheduleId)} ORDER BY created_at`,
    );
  return rows.map((r) => ({ ...r, schedule_id: Number(r.schedule_id), website_id: Number(r.website_id) }));
}

/** Waits until no job of the app's database is queued or running (captures finish before the apps close). */
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

async function createSchedule(app: TestApp, account: TestAccount, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await request(app.url).post('/schedules').set(account.auth).send(body);
  expect(res.status).toBe(201);
  expect(res.body.success).toBe(true);
  return res.body.data;
}

async function getSchedule(app: TestApp, account: TestAccount, id: number): Promise<Record<string, any>> {
  const res = await request(app.url).get(`/schedules/${id}`).set(account.auth);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function tickAt(app: TestApp, at: string): Promise<number> {
  app.clock.set(at);
  return ticker(app).tick();
}

describe('Schedules (spec: Endpoints/Schedules; API.md: Schedules)', () => {
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
    // Let every capture this test caused finish, then forget its schedules so they cannot fire in the next test.
    await drainJobs(t);
    await t.app.get(DataSource).query('DELETE FROM schedules');
  });

  describe('CRUD', () => {
    it('create → 201 {success, data} with next_run_at the UTC instant of the local time; list → envelope; get', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-11-22T08:59:30Z');
      const website = await createWebsite(t, account, pageUrl);

      const res = await request(t.url)
        .post('/schedules')
        .set(account.auth)
        .send({ name: 'Morning', website_id: website.id, frequency: 'daily', time: '10:00', timezone: 'Europe/Berlin' });
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({ success: true, data: expect.any(Object) });
      const created = res.body.data;
      expect(Object.keys(created)).toEqual(expect.arrayContaining(SCHEDULE_FIELDS));
      expect(created).toMatchObject({
        id: expect.any(Number),
        name: 'Morning',
        website_id: website.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
        enabled: true, // default
        next_run_at: '2026-11-22T09:00:00.000Z', // 10:00 CET (UTC+1), the same day: 30 s from now
        last_run_at: null,
        last_job_id: null,
      });
      expect(Number.isInteger(created.id)).toBe(true);

      const second = await createSchedule(t, account, {
        name: 'Evening',
        website_id: website.id,
        frequency: 'daily',
        time: '08:59', // already past today in UTC → tomorrow
        timezone: 'UTC',
        enabled: true,
      });
      expect(second.next_run_at).toBe('2026-11-23T08:59:00.000Z');

      const list = await request(t.url).get('/schedules').set(account.auth);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({
        data: expect.any(Array),
        meta: { current_page: 1, last_page: 1, per_page: 15, total: 2 },
        links: {
          first: expect.stringMatching(/^http.*\/schedules\?page=1$/),
          last: expect.stringMatching(/^http.*\/schedules\?page=1$/),
          prev: null,
          next: null,
        },
      });
      expect(list.body.data).toHaveLength(2);
      expect(list.body.data).toEqual(expect.arrayContaining([created, second]));

      const got = await request(t.url).get(`/schedules/${created.id}`).set(account.auth);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ success: true, data: created });
    });

    it('weekly without day_of_week defaults to the weekday of creation in the schedule’s own time zone', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      // Saturday 23:30 UTC = Sunday 08:30 in Tokyo = Saturday 15:30 in Los Angeles.
      t.clock.set('2026-11-21T23:30:00Z');
      const website = await createWebsite(t, account, pageUrl);

      const tokyo = await createSchedule(t, account, { name: 'Tokyo', website_id: website.id, frequency: 'weekly', time: '09:00', timezone: 'Asia/Tokyo' });
      expect(tokyo).toMatchObject({ frequency: 'weekly', day_of_week: 0, next_run_at: '2026-11-22T00:00:00.000Z' }); // Sunday 09:00 JST

      const la = await createSchedule(t, account, { name: 'LA', website_id: website.id, frequency: 'weekly', time: '18:00', timezone: 'America/Los_Angeles' });
      expect(la).toMatchObject({ frequency: 'weekly', day_of_week: 6, next_run_at: '2026-11-22T02:00:00.000Z' }); // Saturday 18:00 PST

      const explicit = await createSchedule(t, account, {
        name: 'Wed',
        website_id: website.id,
        frequency: 'weekly',
        time: '09:00',
        timezone: 'Asia/Tokyo',
        day_of_week: 3,
      });
      expect(explicit).toMatchObject({ day_of_week: 3, next_run_at: '2026-11-25T00:00:00.000Z' }); // Wednesday 09:00 JST
    });

    it('update is partial: only the sent fields change, next_run_at is recomputed, enabled toggles as sent (disabled → next_run_at null)', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-11-23T06:00:00Z'); // Monday; 07:00 in Berlin, 01:00 in New York
      const website = await createWebsite(t, account, pageUrl);
      const created = await createSchedule(t, account, { name: 'Daily', website_id: website.id, frequency: 'daily', time: '10:00', timezone: 'Europe/Berlin' });
      expect(created.next_run_at).toBe('2026-11-23T09:00:00.000Z');
      const put = (body: Record<string, unknown>) => request(t.url).put(`/schedules/${created.id}`).set(account.auth).send(body);

      const renamed = await put({ name: 'Renamed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ success: true, data: expect.any(Object) });
      expect(renamed.body.data).toEqual({ ...created, name: 'Renamed', updated_at: expect.any(String) });

      const moved = await put({ time: '12:30', timezone: 'America/New_York' });
      expect(moved.status).toBe(200);
      expect(moved.body.data).toMatchObject({
        name: 'Renamed',
        frequency: 'daily',
        time: '12:30',
        timezone: 'America/New_York',
        enabled: true,
        next_run_at: '2026-11-23T17:30:00.000Z',
      });

      const weekly = await put({ frequency: 'weekly', day_of_week: 3 });
      expect(weekly.status).toBe(200);
      expect(weekly.body.data).toMatchObject({ frequency: 'weekly', day_of_week: 3, time: '12:30', next_run_at: '2026-11-25T17:30:00.000Z' }); // Wednesday

      const disabled = await put({ enabled: false });
      expect(disabled.status).toBe(200);
      expect(disabled.body.data).toEqual({ ...weekly.body.data, enabled: false, next_run_at: null, updated_at: expect.any(String) });
      expect((await getSchedule(t, account, created.id)).enabled).toBe(false);

      const enabled = await put({ enabled: true });
      expect(enabled.status).toBe(200);
      expect(enabled.body.data).toEqual({ ...weekly.body.data, enabled: true, next_run_at: '2026-11-25T17:30:00.000Z', updated_at: expect.any(String) });

      const hourly = await put({ frequency: 'hourly' });
      expect(hourly.status).toBe(200);
      expect(hourly.body.data).toMatchObject({ frequency: 'hourly', next_run_at: '2026-11-23T06:30:00.000Z' }); // minute 30 of every hour

      // Updating with enabled:false again on a disabled schedule keeps it disabled; the result is persisted.
      await put({ enabled: false }).expect(200);
      await put({ enabled: false }).expect(200);
      expect(await getSchedule(t, account, created.id)).toMatchObject({ enabled: false, next_run_at: null, frequency: 'hourly', name: 'Renamed' });
    });

    it("another account's schedule is 404 on GET/PUT/DELETE; another account's website_id is 422 (website_id); delete → 200 then 404", async () => {
      const owner = await t.createAccount({ plan: 'pro' });
      const stranger = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-11-24T10:00:00Z');
      const website = await createWebsite(t, owner, pageUrl);
      const schedule = await createSchedule(t, owner, { name: 'Mine', website_id: website.id, frequency: 'daily', time: '10:00', timezone: 'Europe/Berlin' });

      const get = await request(t.url).get(`/schedules/${schedule.id}`).set(stranger.auth);
      expect(get.status).toBe(404);
      expect(get.body).toMatchObject(NOT_FOUND);
      const put = await request(t.url).put(`/schedules/${schedule.id}`).set(stranger.auth).send({ name: 'Stolen', enabled: false });
      expect(put.status).toBe(404);
      expect(put.body).toMatchObject(NOT_FOUND);
      const del = await request(t.url).delete(`/schedules/${schedule.id}`).set(stranger.auth);
      expect(del.status).toBe(404);
      expect(del.body).toMatchObject(NOT_FOUND);
      const strangerList = await request(t.url).get('/schedules').set(stranger.auth).expect(200);
      expect(strangerList.body.data).toEqual([]);
      expect(strangerList.body.meta.total).toBe(0);
      // Untouched for its owner.
      expect(await getSchedule(t, owner, schedule.id)).toEqual(schedule);

      // A website of another account cannot be scheduled, on create or on update.
      const strangersSite = await createWebsite(t, stranger, pageUrl);
      const createForeign = await request(t.url)
        .post('/schedules')
        .set(owner.auth)
        .send({ name: 'Foreign', website_id: strangersSite.id, frequency: 'daily', time: '10:00', timezone: 'Europe/Berlin' });
      expectValidationFailed(createForeign, ['website_id']);
      const updateForeign = await request(t.url).put(`/schedules/${schedule.id}`).set(owner.auth).send({ website_id: strangersSite.id });
      expectValidationFailed(updateForeign, ['website_id']);
      expect((await getSchedule(t, owner, schedule.id)).website_id).toBe(website.id);

      const deleted = await request(t.url).delete(`/schedules/${schedule.id}`).set(owner.auth);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ success: true, message: expect.any(String) });
      await request(t.url).get(`/schedules/${schedule.id}`).set(owner.auth).expect(404);
      await request(t.url).delete(`/schedules/${schedule.id}`).set(owner.auth).expect(404);
      const ownerList = await request(t.url).get('/schedules').set(owner.auth).expect(200);
      expect(ownerList.body.meta.total).toBe(0);
    });
    it('an update that leaves the timing alone keeps a due next_run_at (echoed GET body, rename, dashboard enable): the missed occurrence still fires once', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-12-05T08:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const schedule = await createSchedule(t, account, { name: 'Kept', website_id: website.id, frequency: 'daily', time: '10:00', timezone: 'Europe/Berlin' });
      expect(schedule.next_run_at).toBe('2026-12-05T09:00:00.000Z');

      // 09:00Z passed while no ticker ran (down): the occurrence is due and not fired yet.
      t.clock.set('2026-12-05T09:30:00Z');
      const put = (body: Record<string, unknown>) => request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send(body);
      const echoed = await put(await getSchedule(t, account, schedule.id));
      expect(echoed.status).toBe(200);
      expect(echoed.body.data).toEqual({ ...schedule, updated_at: '2026-12-05T09:30:00.000Z' });
      const renamed = await put({ name: 'Kept, renamed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.data).toMatchObject({ name: 'Kept, renamed', next_run_at: '2026-12-05T09:00:00.000Z' });
      // The dashboard's "enable" button on a schedule that is already enabled.
      const enabled = await t.app.get(SchedulesService).update(account.id, schedule.id, { enabled: true });
      expect(enabled.nextRunAt?.toISOString()).toBe('2026-12-05T09:00:00.000Z');

      expect(await ticker(t).tick()).toBe(1);
      const jobs = await scheduleJobs(t, schedule.id);
      expect(jobs).toHaveLength(1);
      expect(await getSchedule(t, account, schedule.id)).toMatchObject({
        last_job_id: jobs[0].id,
        last_run_at: '2026-12-05T09:30:00.000Z',
        next_run_at: '2026-12-06T09:00:00.000Z',
      });
      expect((await waitForJob(t.url, account.auth, jobs[0].id)).status).toBe('succeeded');
    });

    it('an update racing a delete is 404 and never brings the schedule back; one racing its website’s deletion is 404, not 500', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-12-06T08:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const doomedSite = await createWebsite(t, account, pageUrl);
      const first = await createSchedule(t, account, {
        name: 'Deleted meanwhile',
        website_id: website.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
      });
      const second = await createSchedule(t, account, {
        name: 'Website deleted meanwhile',
        website_id: doomedSite.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
      });
      const db = t.app.get(DataSource);
      const repository = t.app.get(ScheduleRepository);
      const findOwned = repository.findOwned.bind(repository);
      /** The next update reads the schedule, then `meanwhile` happens before it writes. */
      const raceNextUpdateWith = (meanwhile: () => Promise<unknown>) =>
        jest.spyOn(repository, 'findOwned').mockImplementationOnce(async (accountId, id) => {
          const found = await findOwned(accountId, id);
          await meanwhile();
          return found;
        });

      try {
        raceNextUpdateWith(() => db.query(`DELETE FROM schedules WHERE id = ${Number(first.id)}`));
        const put = await request(t.url).put(`/schedules/${first.id}`).set(account.auth).send({ name: 'Renamed' });
        expect({ status: put.status, body: put.body }).toEqual({ status: 404, body: expect.objectContaining(NOT_FOUND) });
        expect(await db.query(`SELECT id FROM schedules WHERE id = ${Number(first.id)}`)).toEqual([]);

        // Deleting a website deletes its schedules (cascade); the update must not re-insert a row pointing at it.
        raceNextUpdateWith(() => db.query(`DELETE FROM websites WHERE id = ${Number(doomedSite.id)}`));
        const put2 = await request(t.url).put(`/schedules/${second.id}`).set(account.auth).send({ enabled: false });
        expect({ status: put2.status, body: put2.body }).toEqual({ status: 404, body: expect.objectContaining(NOT_FOUND) });
        expect(await db.query(`SELECT id FROM schedules WHERE id = ${Number(second.id)}`)).toEqual([]);
      } finally {
        jest.restoreAllMocks();
      }
      expect(await tickAt(t, '2026-12-06T09:00:05Z')).toBe(0);
      expect(await scheduleJobs(t, first.id)).toHaveLength(0);
    });

    it('an update racing a tick keeps what the tick wrote: last_run_at, last_job_id and next_run_at', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-12-07T08:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const schedule = await createSchedule(t, account, {
        name: 'Raced',
        website_id: website.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
      });
      const repository = t.app.get(ScheduleRepository);
      const findOwned = repository.findOwned.bind(repository);
      t.clock.set('2026-12-07T09:00:10Z');
      let queued = -1;
      jest.spyOn(repository, 'findOwned').mockImplementationOnce(async (accountId, id) => {
        const found = await findOwned(accountId, id); // read while the occurrence is due …
        queued = await ticker(t).tick(); // … then it fires before the update writes
        return found;
      });
      try {
        const put = await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ name: 'Renamed during a tick' });
        expect(put.status).toBe(200);
        expect(queued).toBe(1);
        const jobs = await scheduleJobs(t, schedule.id);
        expect(jobs).toHaveLength(1);
        const expected = {
          name: 'Renamed during a tick',
          last_job_id: jobs[0].id,
          last_run_at: '2026-12-07T09:00:10.000Z',
          next_run_at: '2026-12-08T09:00:00.000Z',
        };
        expect(put.body.data).toMatchObject(expected);
        expect(await getSchedule(t, account, schedule.id)).toMatchObject(expected);
      } finally {
        jest.restoreAllMocks();
      }
    });
  });

  describe('validation (422 validation_failed with details [{field, message}])', () => {
    it('refuses bad time, time zone, frequency, day_of_week, a missing name and unknown fields; nothing is created', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-11-24T11:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const valid = { name: 'Valid', website_id: website.id, frequency: 'weekly', time: '10:00', timezone: 'Europe/Berlin', day_of_week: 1 };

      const cases: Array<[string, Record<string, unknown>, string[]]> = [
        ['time 25:00', { ...valid, time: '25:00' }, ['time']],
        ['time 7:5', { ...valid, time: '7:5' }, ['time']],
        ['time 24:00', { ...valid, time: '24:00' }, ['time']],
        ['timezone Mars/Olympus', { ...valid, timezone: 'Mars/Olympus' }, ['timezone']],
        ['frequency monthly', { ...valid, frequency: 'monthly' }, ['frequency']],
        ['day_of_week 7', { ...valid, day_of_week: 7 }, ['day_of_week']],
        ['missing name', (({ name: _name, ...rest }) => rest)(valid), ['name']],
        ['unknown field', { ...valid, color: 'red' }, ['color']],
        ['several bad fields at once', { ...valid, time: '25:00', timezone: 'Mars/Olympus' }, ['time', 'timezone']],
      ];
      for (const [label, body, fields] of cases) {
        const res = await request(t.url).post('/schedules').set(account.auth).send(body);
        try {
          expectValidationFailed(res, fields);
        } catch (err) {
          throw new Error(`${label}: ${res.status} ${JSON.stringify(res.body)}\n${(err as Error).message}`, { cause: err });
        }
      }
      const list = await request(t.url).get('/schedules').set(account.auth).expect(200);
      expect(list.body.meta.total).toBe(0);

      // The same rules apply to an update, which then changes nothing.
      t.clock.set('2026-11-24T11:01:00Z');
      const schedule = await createSchedule(t, account, valid);
      expectValidationFailed(await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ time: '24:00' }), ['time']);
      expectValidationFailed(await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ timezone: 'Mars/Olympus' }), ['timezone']);
      expectValidationFailed(await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ frequency: 'monthly' }), ['frequency']);
      expectValidationFailed(await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ day_of_week: 7 }), ['day_of_week']);
      expectValidationFailed(await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ colour: 'red' }), ['colour']);
      expect(await getSchedule(t, account, schedule.id)).toEqual(schedule);
    });
  });

  describe('firing', () => {
    it('a due schedule produces exactly one screenshot: two ticks → one job (source schedule), a real capture, last_run_at/last_job_id set, next_run_at the next day', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-11-22T08:59:30Z');
      const website = await createWebsite(t, account, pageUrl);
      const schedule = await createSchedule(t, account, {
        name: 'Daily',
        website_id: website.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
      });
      expect(schedule.next_run_at).toBe('2026-11-22T09:00:00.000Z');

      expect(await tickAt(t, '2026-11-22T08:59:59.999Z')).toBe(0); // not due yet
      expect(await scheduleJobs(t, schedule.id)).toHaveLength(0);

      expect(await tickAt(t, '2026-11-22T09:00:05Z')).toBe(1);
      expect(await ticker(t).tick()).toBe(0); // the same occurrence never fires twice
      const jobs = await scheduleJobs(t, schedule.id);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ source: 'schedule', schedule_id: schedule.id, website_id: website.id });
      const jobId = jobs[0].id;

      // The job is the account's, visible through the Jobs API with its source.
      const listed = await request(t.url).get('/jobs').set(account.auth).expect(200);
      expect(listed.body.data).toEqual([
        expect.objectContaining({ id: jobId, type: 'screenshot', source: 'schedule', schedule_id: schedule.id, website_id: website.id }),
      ]);

      const job = await waitForJob(t.url, account.auth, jobId);
      expect(job).toMatchObject({
        id: jobId,
        status: 'succeeded',
        error: null,
        source: 'schedule',
        schedule_id: schedule.id,
        screenshot_id: expect.any(Number),
      });

      const shots = await request(t.url).get('/screenshots').query({ website_id: website.id }).set(account.auth).expect(200);
      expect(shots.body.data).toHaveLength(1);
      expect(shots.body.data[0]).toMatchObject({ id: job.screenshot_id, job_id: jobId, website_id: website.id, status: 'success', width: 1280, height: 800 });
      const png = await request(t.url)
        .get(`/screenshots/${job.screenshot_id}/download`)
        .set(account.auth)
        .buffer(true)
        .parse((res, cb) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => cb(null, Buffer.concat(chunks)));
        });
      expect(png.status).toBe(200);
      expect((png.body as Buffer).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

      expect(await getSchedule(t, account, schedule.id)).toMatchObject({
        last_run_at: '2026-11-22T09:00:05.000Z',
        last_job_id: jobId,
        next_run_at: '2026-11-23T09:00:00.000Z',
        enabled: true,
      });
    });

    it('enabled:false stops it (ticks past its time queue nothing); enabled:true resumes with a fresh next_run_at in the future', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-12-01T08:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const schedule = await createSchedule(t, account, {
        name: 'Toggle',
        website_id: website.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
      });
      expect(schedule.next_run_at).toBe('2026-12-01T09:00:00.000Z');

      const off = await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ enabled: false }).expect(200);
      expect(off.body.data).toMatchObject({ enabled: false, next_run_at: null });

      expect(await tickAt(t, '2026-12-01T09:00:00Z')).toBe(0);
      expect(await tickAt(t, '2026-12-02T09:00:30Z')).toBe(0);
      expect(await tickAt(t, '2026-12-03T12:00:00Z')).toBe(0);
      expect(await scheduleJobs(t, schedule.id)).toHaveLength(0);
      expect(await getSchedule(t, account, schedule.id)).toMatchObject({ enabled: false, next_run_at: null, last_run_at: null, last_job_id: null });

      // Resumed at 2026-12-03T12:00Z (13:00 in Berlin): the next run is tomorrow's, none of the missed ones.
      const on = await request(t.url).put(`/schedules/${schedule.id}`).set(account.auth).send({ enabled: true }).expect(200);
      expect(on.body.data).toMatchObject({ enabled: true, next_run_at: '2026-12-04T09:00:00.000Z' });
      expect(Date.parse(on.body.data.next_run_at)).toBeGreaterThan(Date.parse('2026-12-03T12:00:00Z'));
      expect(await ticker(t).tick()).toBe(0);
      expect(await scheduleJobs(t, schedule.id)).toHaveLength(0);

      expect(await tickAt(t, '2026-12-04T08:59:59Z')).toBe(0);
      expect(await tickAt(t, '2026-12-04T09:00:00Z')).toBe(1);
      const jobs = await scheduleJobs(t, schedule.id);
      expect(jobs).toHaveLength(1);
      expect((await waitForJob(t.url, account.auth, jobs[0].id)).status).toBe('succeeded');
    });

    it('a paused website never fires; once active again the schedule fires at its next occurrence', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-12-10T08:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const schedule = await createSchedule(t, account, {
        name: 'Paused',
        website_id: website.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
      });
      expect(schedule.next_run_at).toBe('2026-12-10T09:00:00.000Z');

      const paused = await request(t.url).put(`/websites/${website.id}`).set(account.auth).send({ status: 'paused' });
      expect(paused.status).toBe(200);
      expect(paused.body.data.status).toBe('paused');

      expect(await tickAt(t, '2026-12-10T09:00:30Z')).toBe(0);
      expect(await tickAt(t, '2026-12-11T09:00:00Z')).toBe(0);
      expect(await tickAt(t, '2026-12-12T09:05:00Z')).toBe(0);
      expect(await ticker(t).tick()).toBe(0);
      expect(await scheduleJobs(t, schedule.id)).toHaveLength(0);
      const shots = await request(t.url).get('/screenshots').query({ website_id: website.id }).set(account.auth).expect(200);
      expect(shots.body.data).toEqual([]);
      expect(await getSchedule(t, account, schedule.id)).toMatchObject({ enabled: true, last_job_id: null, next_run_at: '2026-12-13T09:00:00.000Z' });

      await request(t.url).put(`/websites/${website.id}`).set(account.auth).send({ status: 'active' }).expect(200);
      expect(await ticker(t).tick()).toBe(0); // the occurrences that passed while paused are not made up
      expect(await tickAt(t, '2026-12-13T09:00:00Z')).toBe(1);
      const jobs = await scheduleJobs(t, schedule.id);
      expect(jobs).toHaveLength(1);
      expect((await waitForJob(t.url, account.auth, jobs[0].id)).status).toBe('succeeded');
    });

    it('a schedule whose account loses API access stops firing, and fires again at its next occurrence after access returns', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-12-20T08:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const schedule = await createSchedule(t, account, {
        name: 'Access',
        website_id: website.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
      });
      expect(schedule.next_run_at).toBe('2026-12-20T09:00:00.000Z');
      const accounts = t.app.get(AccountsService);

      await accounts.updateAccount(account.email, { plan: 'free' });
      // The API agrees that the account has no access now.
      expect((await request(t.url).get('/test').set(account.auth)).status).toBe(403);
      expect(await tickAt(t, '2026-12-20T09:00:30Z')).toBe(0);
      expect(await tickAt(t, '2026-12-21T09:00:30Z')).toBe(0);
      expect(await scheduleJobs(t, schedule.id)).toHaveLength(0);

      await accounts.updateAccount(account.email, { plan: 'pro' });
      expect(await ticker(t).tick()).toBe(0); // nothing is made up for the occurrences without access
      expect(await getSchedule(t, account, schedule.id)).toMatchObject({ enabled: true, last_job_id: null, next_run_at: '2026-12-22T09:00:00.000Z' });
      expect(await scheduleJobs(t, schedule.id)).toHaveLength(0);

      expect(await tickAt(t, '2026-12-22T09:00:00Z')).toBe(1);
      const jobs = await scheduleJobs(t, schedule.id);
      expect(jobs).toHaveLength(1);
      expect((await waitForJob(t.url, account.auth, jobs[0].id)).status).toBe('succeeded');
      expect(await getSchedule(t, account, schedule.id)).toMatchObject({ last_job_id: jobs[0].id, next_run_at: '2026-12-23T09:00:00.000Z' });
    });
    it('a failure while checking a due schedule (its website lookup throws) does not lose the occurrence: the next tick fires it once', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-12-08T08:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const schedule = await createSchedule(t, account, {
        name: 'Hiccup',
        website_id: website.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
      });
      const websites = t.app.get(WebsiteRepository);
      const findById = websites.findById.bind(websites);
      let failed = false;
      jest.spyOn(websites, 'findById').mockImplementation(async (id) => {
        if (id !== website.id || failed) return findById(id);
        failed = true;
        throw new Error('connection reset (simulated)');
      });
      try {
        expect(await tickAt(t, '2026-12-08T09:00:05Z')).toBe(0);
        expect(failed).toBe(true);
      } finally {
        jest.restoreAllMocks();
      }
      expect(await getSchedule(t, account, schedule.id)).toMatchObject({ next_run_at: '2026-12-08T09:00:00.000Z', last_job_id: null }); // still due
      expect(await scheduleJobs(t, schedule.id)).toHaveLength(0);

      expect(await tickAt(t, '2026-12-08T09:00:10Z')).toBe(1);
      expect(await ticker(t).tick()).toBe(0);
      const jobs = await scheduleJobs(t, schedule.id);
      expect(jobs).toHaveLength(1);
      expect(await getSchedule(t, account, schedule.id)).toMatchObject({ last_job_id: jobs[0].id, next_run_at: '2026-12-09T09:00:00.000Z' });
      expect((await waitForJob(t.url, account.auth, jobs[0].id)).status).toBe('succeeded');
    });

    it('a schedule whose time zone the runtime no longer resolves fires its due occurrence, is disabled, and does not block later schedules', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-12-09T08:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const broken = await createSchedule(t, account, { name: 'Lost zone', website_id: website.id, frequency: 'daily', time: '08:30', timezone: 'UTC' });
      const healthy = await createSchedule(t, account, {
        name: 'Healthy',
        website_id: website.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
      });
      expect([broken.next_run_at, healthy.next_run_at]).toEqual(['2026-12-09T08:30:00.000Z', '2026-12-09T09:00:00.000Z']);
      // As if the runtime's tz database had dropped the zone: it is due first, so it heads every batch.
      await t.app.get(DataSource).query(`UPDATE schedules SET timezone = 'Mars/Olympus' WHERE id = ${Number(broken.id)}`);

      expect(await tickAt(t, '2026-12-09T09:00:05Z')).toBe(2);
      const brokenJobs = await scheduleJobs(t, broken.id);
      expect(brokenJobs).toHaveLength(1);
      expect(await getSchedule(t, account, broken.id)).toMatchObject({ enabled: false, next_run_at: null, last_job_id: brokenJobs[0].id });
      expect(await getSchedule(t, account, healthy.id)).toMatchObject({ enabled: true, next_run_at: '2026-12-10T09:00:00.000Z' });

      expect(await tickAt(t, '2026-12-10T09:00:05Z')).toBe(1); // the healthy one only; the disabled one does not spin
      expect(await scheduleJobs(t, broken.id)).toHaveLength(1);
      expect(await scheduleJobs(t, healthy.id)).toHaveLength(2);

      // The owner repairs it: a valid zone and enabled again.
      const repaired = await request(t.url).put(`/schedules/${broken.id}`).set(account.auth).send({ timezone: 'UTC', enabled: true });
      expect(repaired.status).toBe(200);
      expect(repaired.body.data).toMatchObject({ enabled: true, timezone: 'UTC', next_run_at: '2026-12-11T08:30:00.000Z' });
    });
  });

  describe('daylight saving time, end to end', () => {
    it('spring forward: daily 02:30 Europe/Berlin created 2026-03-28T12:00Z runs at 03:00 local (01:00Z), then at 02:30 CEST', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-03-28T12:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const schedule = await createSchedule(t, account, { name: 'DST', website_id: website.id, frequency: 'daily', time: '02:30', timezone: 'Europe/Berlin' });
      expect(schedule.next_run_at).toBe('2026-03-29T01:00:00.000Z'); // 02:30 does not exist that night: 03:00 CEST

      expect(await tickAt(t, '2026-03-29T00:59:59Z')).toBe(0);
      expect(await tickAt(t, '2026-03-29T01:00:00Z')).toBe(1);
      expect(await ticker(t).tick()).toBe(0);
      const after = await getSchedule(t, account, schedule.id);
      expect(after).toMatchObject({ last_run_at: '2026-03-29T01:00:00.000Z', next_run_at: '2026-03-30T00:30:00.000Z' }); // 02:30 CEST

      expect(await tickAt(t, '2026-03-30T00:30:00Z')).toBe(1);
      const jobs = await scheduleJobs(t, schedule.id);
      expect(jobs).toHaveLength(2);
      for (const job of jobs) expect((await waitForJob(t.url, account.auth, job.id)).status).toBe('succeeded');
    });

    it('fall back: an ambiguous 02:30 runs once, at its first occurrence', async () => {
      const account = await t.createAccount({ plan: 'pro' });
      t.clock.set('2026-10-24T12:00:00Z');
      const website = await createWebsite(t, account, pageUrl);
      const schedule = await createSchedule(t, account, {
        name: 'DST back',
        website_id: website.id,
        frequency: 'daily',
        time: '02:30',
        timezone: 'Europe/Berlin',
      });
      expect(schedule.next_run_at).toBe('2026-10-25T00:30:00.000Z'); // 02:30 CEST, the first of the two

      expect(await tickAt(t, '2026-10-25T00:30:00Z')).toBe(1);
      expect((await getSchedule(t, account, schedule.id)).next_run_at).toBe('2026-10-26T01:30:00.000Z'); // 02:30 CET the next day
      expect(await tickAt(t, '2026-10-25T01:30:00Z')).toBe(0); // the second 02:30 (CET) of the same night
      expect(await scheduleJobs(t, schedule.id)).toHaveLength(1);
    });
  });
});

describe('Schedules: catch-up after a restart', () => {
  let db: TestDatabase;
  let pages: PageServer;

  beforeAll(async () => {
    db = await createTestDatabase(); // SQLite in the embedded pass, PostgreSQL in the scaled-out one
    pages = await new PageServer({ '/page': solidPage('rgb(0,200,0)') }).start();
  });
  afterAll(async () => {
    await pages?.stop();
    await db?.drop();
  });

  it('three missed occurrences → exactly one catch-up capture on the restarted instance; next_run_at is the next future one', async () => {
    const prefix = `sss-test-${randomBytes(6).toString('hex')}`;
    const first = await startTestApp({ database: db, redisKeyPrefix: prefix, env: QUIET_TICKER });
    let account: TestAccount;
    let scheduleId: number;
    try {
      account = await first.createAccount({ plan: 'pro' });
      first.clock.set('2027-01-05T08:00:00Z');
      const website = await createWebsite(first, account, `${pages.url}/page`);
      const schedule = await createSchedule(first, account, {
        name: 'Daily',
        website_id: website.id,
        frequency: 'daily',
        time: '10:00',
        timezone: 'Europe/Berlin',
      });
      expect(schedule.next_run_at).toBe('2027-01-05T09:00:00.000Z');
      scheduleId = schedule.id;
    } finally {
      await first.close(); // down before the first occurrence; the database stays
    }

    // Down for 3 days and a bit: the occurrences of Jan 5, 6 and 7 (09:00Z) were missed.
    const second = await startTestApp({ database: db, redisKeyPrefix: prefix, env: QUIET_TICKER });
    try {
      second.clock.set('2027-01-08T08:10:00Z');
      expect(await ticker(second).tick()).toBe(1);
      const jobs = await scheduleJobs(second, scheduleId);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ source: 'schedule', schedule_id: scheduleId });
      expect(await ticker(second).tick()).toBe(0);
      expect(await scheduleJobs(second, scheduleId)).toHaveLength(1);

      const after = await getSchedule(second, account, scheduleId);
      expect(after).toMatchObject({ last_run_at: '2027-01-08T08:10:00.000Z', last_job_id: jobs[0].id, next_run_at: '2027-01-08T09:00:00.000Z' });
      expect(Date.parse(after.next_run_at)).toBeGreaterThan(Date.parse('2027-01-08T08:10:00Z'));
      expect((await waitForJob(second.url, account.auth, jobs[0].id)).status).toBe('succeeded');

      // Then it continues on its rhythm.
      expect(await tickAt(second, '2027-01-08T09:00:00Z')).toBe(1);
      expect(await scheduleJobs(second, scheduleId)).toHaveLength(2);
      await drainJobs(second);
    } finally {
      await second.close();
    }
  });
});

describe('Schedules: two instances on one PostgreSQL and Redis', () => {
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

  it('ticking concurrently, they queue exactly one job per occurrence over 20 occurrences', async () => {
    const start = Date.parse('2027-02-01T10:00:00Z');
    a.clock.set(new Date(start));
    b.clock.set(new Date(start));
    const account = await a.createAccount({ plan: 'pro' });
    const website = await createWebsite(a, account, `${pages.url}/page`);
    const schedule = await createSchedule(a, account, {
      name: 'Hourly',
      website_id: website.id,
      frequency: 'hourly',
      time: '00:15',
      timezone: 'Europe/Berlin',
    });
    expect(schedule.next_run_at).toBe('2027-02-01T10:15:00.000Z');
    const jobRows = async () => scheduleJobs(a, schedule.id);

    const firstOccurrence = Date.parse(schedule.next_run_at);
    const wins = { a: 0, b: 0 };
    for (let i = 0; i < 20; i++) {
      const at = new Date(firstOccurrence + i * 3_600_000 + 1_000); // one second past the i-th occurrence
      a.clock.set(at);
      b.clock.set(at);
      const [fromA, fromB] = await Promise.all([ticker(a).tick(), ticker(b).tick()]);
      expect({ occurrence: i, queued: fromA + fromB }).toEqual({ occurrence: i, queued: 1 });
      wins.a += fromA;
      wins.b += fromB;
      expect(await jobRows()).toHaveLength(i + 1);
      // Let this occurrence's capture finish before the fake clock jumps an hour: a capture still running then
      // would look an hour old to the other instance's sweep (its lease is CAPTURE_TIMEOUT_MS + 60 s of clock
      // time), be taken over, and after three jumps be abandoned — an artefact of moving a fake clock under
      // live work, not of the product, whose leases run on a clock that does not jump.
      await drainJobs(a, 60_000);
    }
    const rows: { n: string | number }[] = await a.app
      .get(DataSource)
      .query(`SELECT COUNT(*) AS n FROM jobs WHERE source = 'schedule' AND schedule_id = ${Number(schedule.id)}`);
    expect(Number(rows[0].n)).toBe(20);
    expect(wins.a + wins.b).toBe(20);

    const after = await getSchedule(b, account, schedule.id);
    expect(after.next_run_at).toBe(new Date(firstOccurrence + 20 * 3_600_000).toISOString());

    await drainJobs(a, 60_000);
    const statuses: { status: string }[] = await a.app.get(DataSource).query(`SELECT status FROM jobs WHERE schedule_id = ${Number(schedule.id)}`);
    expect(statuses.map((s) => s.status)).toEqual(Array(20).fill('succeeded'));
    const shots: { n: string | number }[] = await a.app.get(DataSource).query(`SELECT COUNT(*) AS n FROM screenshots WHERE website_id = ${Number(website.id)}`);
    expect(Number(shots[0].n)).toBe(20);
  }, 240_000);
});
