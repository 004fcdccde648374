import request from 'supertest';
import { DataSource } from 'typeorm';
import { ScheduleTicker } from '../../src/modules/schedules/application/schedule-ticker';
import { detailFields } from '../support/assertions';
import { waitForJob } from '../support/jobs';
import { PageServer, Route, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * One-step monitors (issue 46, API.md "Alerts people act on"): POST /websites with `monitor: {every, channel_ids}`
 * makes the website, its schedule, its channel links and its first capture in one call, or nothing at all. Real
 * captures in Chromium of a page served on localhost; the Slack channel's messages reach a local receiver (its
 * origin allowlisted, standing in for hooks.slack.com). The schedule ticker is driven by hand on the fake clock.
 */

describe('POST /websites with monitor (one call: website, schedule, channels, first capture)', () => {
  let t: TestApp;
  let pages: PageServer;
  let owner: TestAccount;
  let color = 'rgb(0,128,0)';
  /** The Slack messages each channel's hook received, by the hook's last path segment. */
  const hooks = new Map<string, Array<Record<string, unknown>>>();
  const receiver: Route = (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const name = (req.url ?? '').split('/').pop() ?? '';
      hooks.set(name, [...(hooks.get(name) ?? []), JSON.parse(body) as Record<string, unknown>]);
      res.writeHead(200).end('ok');
    });
  };
  const api = () => request(t.url);

  beforeAll(async () => {
    pages = await new PageServer({
      '/watched': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(solidPage(color)),
      ...Object.fromEntries(['mine', 'theirs', 'full', 'limited', 'everywhere'].map((name) => [`/services/T1/B1/${name}`, receiver])),
    }).start();
    t = await startTestApp({ env: { SCHEDULE_TICK_MS: '3600000', URL_ALLOWLIST: pages.url } });
    owner = await t.createAccount({ plan: 'business' });
  });
  afterAll(async () => {
    await t?.close();
    await pages?.stop();
  });

  const channel = async (account: TestAccount, body: { name: string; website_ids?: number[] | null }): Promise<Record<string, any>> => {
    const res = await api()
      .post('/notification-channels')
      .set(account.auth)
      .send({ type: 'slack', target: `${pages.url}/services/T1/B1/${body.name.toLowerCase()}`, events: ['screenshot.changed'], ...body });
    expect(res.status).toBe(201);
    return res.body.data;
  };
  const counts = async (account: TestAccount) => ({
    websites: (await api().get('/websites').set(account.auth)).body.meta.total as number,
    schedules: ((await api().get('/schedules').set(account.auth)).body.data as unknown[]).length,
  });

  it('refuses a bad every, an unknown or another account’s channel, a refused URL — 422 naming the field, and nothing is created', async () => {
    const stranger = await t.createAccount({ plan: 'business' });
    const theirs = await channel(stranger, { name: 'Theirs', website_ids: null });
    const mine = await channel(owner, { name: 'Mine' });
    const before = await counts(owner);
    const attempts: Array<[Record<string, unknown>, string[]]> = [
      [{ every: 'sometimes', channel_ids: [mine.id] }, ['monitor.every']],
      [{ every: 'every_7_minutes' }, ['monitor.every']],
      [{ channel_ids: [mine.id] }, ['monitor.every']],
      [{ every: '1h', channel_ids: ['3'] }, ['monitor.channel_ids']],
      [{ every: '1h', channel_ids: [mine.id], colour: 'red' }, ['monitor.colour']],
    ];
    for (const [monitor, fields] of attempts) {
      const res = await api()
        .post('/websites')
        .set(owner.auth)
        .send({ name: 'Bad', url: `${pages.url}/watched`, monitor });
      expect({ monitor, status: res.status, code: res.body.code }).toEqual({ monitor, status: 422, code: 'validation_failed' });
      expect(detailFields(res.body)).toEqual(fields);
    }
    // Ids are checked against the account's channels: another account's channel is not found among them.
    for (const ids of [[theirs.id], [mine.id, 999_999]]) {
      const res = await api()
        .post('/websites')
        .set(owner.auth)
        .send({ name: 'Bad', url: `${pages.url}/watched`, monitor: { every: '1h', channel_ids: ids } });
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual([{ field: 'monitor.channel_ids', message: expect.stringContaining(`not found: ${ids[ids.length - 1]}`) }]);
    }
    // The website's own rules still apply, with the monitor's in the same 422 where the DTO sees both.
    const both = await api()
      .post('/websites')
      .set(owner.auth)
      .send({ name: 'Bad', url: 'ftp://example.com/', monitor: { every: 'never' } });
    expect(detailFields(both.body)).toEqual(['monitor.every', 'url']);
    expect(await counts(owner)).toEqual(before);
    expect((await api().get(`/notification-channels/${theirs.id}`).set(stranger.auth)).body.data.website_ids).toBeNull();
    expect((await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM jobs')).map((r: { n: unknown }) => Number(r.n))).toEqual([0]);
  });

  it('a channel that already names 100 websites cannot take one more: 422 naming it, nothing created', async () => {
    const site = (
      await api()
        .post('/websites')
        .set(owner.auth)
        .send({ name: 'Site', url: `${pages.url}/watched`, status: 'paused' })
    ).body.data;
    const full = await channel(owner, { name: 'Full', website_ids: [site.id] });
    await t.app
      .get(DataSource)
      .query(`UPDATE notification_channels SET website_ids = '${Array.from({ length: 100 }, (_, i) => 50_000 + i).join(',')}' WHERE id = ${Number(full.id)}`);
    const before = await counts(owner);
    const res = await api()
      .post('/websites')
      .set(owner.auth)
      .send({ name: 'Full', url: `${pages.url}/watched`, monitor: { every: '1h', channel_ids: [full.id] } });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([
      { field: 'monitor.channel_ids', message: expect.stringContaining(`channel ${full.id} (Full) already names 100 websites`) },
    ]);
    expect(await counts(owner)).toEqual(before);
  });

  it('makes the website, its schedule, its channel links and its first capture; a later change reaches the channel', async () => {
    t.clock.set('2030-03-04T09:07:30Z');
    const other = (
      await api()
        .post('/websites')
        .set(owner.auth)
        .send({ name: 'Other', url: `${pages.url}/watched`, status: 'paused' })
    ).body.data;
    const limited = await channel(owner, { name: 'Limited', website_ids: [other.id] });
    const everywhere = await channel(owner, { name: 'Everywhere' });
    const res = await api()
      .post('/websites')
      .set(owner.auth)
      .send({
        name: 'Pricing',
        url: `${pages.url}/watched`,
        viewport_width: 800,
        monitor: { every: 'every_15_minutes', channel_ids: [limited.id, everywhere.id, limited.id] },
      });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({ name: 'Pricing', viewport_width: 800, status: 'active' }),
      monitor: { schedule_id: expect.any(Number), every: '15m', channel_ids: [limited.id, everywhere.id], first_job_id: expect.any(String) },
    });
    expect(res.body.data).not.toHaveProperty('last_screenshot_at'); // the spec's create body
    const website = res.body.data;
    const { monitor } = res.body;

    const schedule = (await api().get(`/schedules/${monitor.schedule_id}`).set(owner.auth)).body.data;
    expect(schedule).toMatchObject({
      website_id: website.id,
      scenario_id: null,
      name: 'Monitor: Pricing',
      frequency: 'every_15_minutes',
      time: '00:07',
      timezone: 'UTC',
      enabled: true,
      next_run_at: '2030-03-04T09:22:00.000Z', // every 15 minutes from the minute it was made
      last_job_id: monitor.first_job_id,
    });
    // The limited channel now names the website too; the one for every website is left as it was.
    expect((await api().get(`/notification-channels/${limited.id}`).set(owner.auth)).body.data.website_ids).toEqual([other.id, website.id]);
    expect((await api().get(`/notification-channels/${everywhere.id}`).set(owner.auth)).body.data.website_ids).toBeNull();

    const first = await waitForJob(t.url, owner.auth, monitor.first_job_id);
    expect(first).toMatchObject({ status: 'succeeded', website_id: website.id, schedule_id: monitor.schedule_id, source: 'api' });

    // The page changes; the schedule's next occurrence captures it; the change reaches the channels.
    color = 'rgb(200,0,0)';
    t.clock.set('2030-03-04T09:22:00Z');
    expect(await t.app.get(ScheduleTicker).tick()).toBe(1);
    const next = (await api().get(`/schedules/${monitor.schedule_id}`).set(owner.auth)).body.data;
    expect(next.last_job_id).not.toBe(monitor.first_job_id);
    expect(await waitForJob(t.url, owner.auth, next.last_job_id)).toMatchObject({ status: 'succeeded' });
    const deadline = Date.now() + 20_000;
    while ((hooks.get('limited')?.length ?? 0) + (hooks.get('everywhere')?.length ?? 0) < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    for (const name of ['limited', 'everywhere']) {
      expect(hooks.get(name)).toHaveLength(1);
      expect(JSON.stringify(hooks.get(name))).toContain('Pricing changed');
    }
  });

  it('without monitor the answer is the spec’s, as before; a paused website gets its monitor but no first capture', async () => {
    const plain = await api()
      .post('/websites')
      .set(owner.auth)
      .send({ name: 'Plain', url: `${pages.url}/watched` });
    expect(plain.status).toBe(201);
    expect(Object.keys(plain.body).sort()).toEqual(['data', 'success']);
    const paused = await api()
      .post('/websites')
      .set(owner.auth)
      .send({ name: 'Paused', url: `${pages.url}/watched`, status: 'paused', monitor: { every: '1d' } });
    expect(paused.status).toBe(201);
    expect(paused.body.monitor).toEqual({ schedule_id: expect.any(Number), every: '1d', channel_ids: [], first_job_id: null });
  });
});
