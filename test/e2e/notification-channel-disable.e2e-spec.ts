import { Logger } from '@nestjs/common';
import request from 'supertest';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { ChannelRepository } from '../../src/modules/notifications/application/ports';
import { DashboardClient } from '../support/dashboard-session';
import { SmtpTestServer } from '../support/smtp-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The 3-day rule for notification channels (as for webhooks), end to end on whichever database the run uses: an
 * e-mail channel whose real SMTP server (smtp-server, in its own process) refuses every message (451) is driven
 * across the 3-day boundary with the app's clock. It stays enabled just before it, is disabled at it (the API and
 * the dashboard show why and since when; a warning names it by id only), and re-enabling (PUT `enabled: true`, or
 * the dashboard's button) starts afresh and delivers again.
 */

const PASSWORD = 'channel disable dashboard password';
const T0 = Date.parse('2031-05-04T08:00:00.000Z');
const DAY = 24 * 3600 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('A notification channel whose every message failed for 3 days is disabled (real SMTP refusing)', () => {
  let smtp: SmtpTestServer;
  let t: TestApp;
  let who: TestAccount;
  const api = () => request(t.url);

  beforeAll(async () => {
    smtp = await new SmtpTestServer().start();
    t = await startTestApp({
      env: { WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_DELAYS: '1,1,1,1,1,1', SMTP_URL: smtp.url, MAIL_FROM: 'Screenshots <alerts@shots.example.com>' },
    });
    who = await t.createAccount({ plan: 'business' });
    await t.app.get(AccountsService).setPassword(who.email, PASSWORD);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
    await smtp?.stop();
  });

  async function channelData(id: number): Promise<Record<string, unknown>> {
    const res = await api().get(`/notification-channels/${id}`).set(who.auth).expect(200);
    return res.body.data as Record<string, unknown>;
  }

  /** Waits (bounded) until the channel's newest message was last tried at `at` (the pinned clock's time). */
  async function attemptedAt(id: number, at: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const data = await channelData(id);
      const last = data.last_delivery as { last_attempt_at: string | null } | null;
      if (last?.last_attempt_at === iso(at)) return data;
      if (Date.now() > deadline) throw new Error(`no attempt at ${iso(at)}; last: ${JSON.stringify(last)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Waits (bounded) until the channel's streak reads `since`: the dispatcher writes it after it records the attempt,
   * so an attempt seen recorded may not have its streak written yet.
   */
  async function failingSince(id: number, since: string | null): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const data = await channelData(id);
      if (data.failing_since === since) return data;
      if (Date.now() > deadline) throw new Error(`failing_since is ${String(data.failing_since)}, not ${String(since)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('fails for just under 3 days: still enabled; the failure at 3 days disables it; the API, the dashboard and the log show it; re-enabling delivers', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    t.clock.set(new Date(T0));
    const created = await api()
      .post('/notification-channels')
      .set(who.auth)
      .send({ name: 'Ops mail', type: 'email', target: 'ops-dead@example.com', events: ['screenshot.failed'] });
    expect(created.status).toBe(201);
    const id = created.body.data.id as number;
    expect(created.body.data).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });

    await smtp.failNext(1000);
    await api().post(`/notification-channels/${id}/test`).set(who.auth).expect(202);
    // The first attempt, refused by the server: failing since now, still enabled.
    await attemptedAt(id, T0);
    let data = await failingSince(id, iso(T0));
    expect(data).toMatchObject({ enabled: true, failing_since: iso(T0), disabled_reason: null, disabled_at: null });
    expect((data.last_delivery as { error: string }).error).toMatch(/451|mailbox busy/);

    // The retry (due a second later), one second before the 3 days are up: still enabled.
    t.clock.set(new Date(T0 + 3 * DAY - 1000));
    data = await attemptedAt(id, T0 + 3 * DAY - 1000);
    expect(data).toMatchObject({ enabled: true, failing_since: iso(T0), disabled_reason: null });

    // The next retry, at exactly 3 days of failures: disabled, with the reason and the time.
    t.clock.set(new Date(T0 + 3 * DAY));
    await attemptedAt(id, T0 + 3 * DAY);
    const deadline = Date.now() + 10_000;
    while ((await channelData(id)).enabled !== false) {
      if (Date.now() > deadline) throw new Error('the channel was not disabled');
      await new Promise((r) => setTimeout(r, 50));
    }
    data = await channelData(id);
    expect(data).toMatchObject({
      enabled: false,
      disabled_reason: 'every delivery failed for 3 days',
      disabled_at: iso(T0 + 3 * DAY),
      failing_since: iso(T0),
    });
    const listed = await api().get('/notification-channels').set(who.auth).expect(200);
    expect(listed.body.data.find((c: { id: number }) => c.id === id)).toMatchObject({ enabled: false, disabled_reason: 'every delivery failed for 3 days' });

    // Logged once at warn, by id: neither the address nor the SMTP server's URL.
    const said = warnings.mock.calls.map((args) => String(args[0])).filter((m) => m.includes(`notification channel ${id} `));
    expect(said).toEqual([`notification channel ${id} disabled: every delivery failed for 3 days`]);
    expect(warnings.mock.calls.flat().map(String).join('\n')).not.toMatch(/ops-dead@example\.com|smtp:\/\//);

    // Disabled: a further retry is not sent (the server sees no new attempt) and does not touch the streak.
    const before = smtp.received.length;
    t.clock.set(new Date(T0 + 3 * DAY + 5000));
    await attemptedAt(id, T0 + 3 * DAY + 5000);
    expect(await channelData(id)).toMatchObject({ enabled: false, disabled_at: iso(T0 + 3 * DAY), failing_since: iso(T0) });
    expect((await channelData(id)).last_delivery).toMatchObject({ error: 'the channel is disabled' });
    expect(smtp.received.length).toBe(before);

    // Its messages, as a webhook's deliveries: the one test message, tried four times, the last answer kept; the
    // attempt that met the disabled channel ended it (no retry left pending to go out once it is enabled again).
    const deliveries = await api().get(`/notification-channels/${id}/deliveries`).set(who.auth).expect(200);
    expect(deliveries.body.meta).toMatchObject({ total: 1 });
    expect(deliveries.body.data).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: 'notification.test',
        status: 'failed',
        attempt: 4,
        status_code: null,
        error: 'the channel is disabled',
        duration_ms: expect.any(Number),
        next_retry_at: null,
        source_id: null,
        last_attempt_at: iso(T0 + 3 * DAY + 5000),
        created_at: iso(T0),
      },
    ]);
    const other = await t.createAccount({ plan: 'business' });
    await api().get(`/notification-channels/${id}/deliveries`).set(other.auth).expect(404);

    // The dashboard shows it, in words, with why and since when, and a button to enable it again.
    const dashboard = await new DashboardClient(t.url).signInOk(who.email, PASSWORD);
    const page = await dashboard.get('/dashboard/notifications');
    expect(page.status).toBe(200);
    const row = new RegExp(`<tr data-channel-id="${id}">[\\s\\S]*?</tr>`).exec(page.text)?.[0] ?? '';
    expect(row).toContain('>disabled</span>');
    expect(row).toContain('every delivery failed for 3 days');
    expect(row).toContain(`datetime="${iso(T0 + 3 * DAY)}"`);
    expect(row).toContain(`action="/dashboard/notifications/${id}/enable"`);

    // Re-enabled from the dashboard: a fresh start (no reason, no streak), and messages reach the server again.
    const enabled = await dashboard.submit(`/dashboard/notifications/${id}/enable`);
    expect(enabled.status).toBe(303);
    expect(enabled.headers.location).toBe('/dashboard/notifications?notice=channel-enabled');
    expect(await channelData(id)).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });
    const after = await dashboard.get('/dashboard/notifications');
    expect(new RegExp(`<tr data-channel-id="${id}">[\\s\\S]*?</tr>`).exec(after.text)?.[0] ?? '').not.toContain('/enable"');

    await smtp.failNext(0);
    await api().post(`/notification-channels/${id}/test`).set(who.auth).expect(202);
    const mails = await smtp.until(before + 1);
    expect(mails.at(-1)!.to).toEqual(['ops-dead@example.com']);
    expect(await channelData(id)).toMatchObject({ enabled: true, failing_since: null });
  });

  it('PUT enabled: true re-enables a channel the service disabled, and clears its failure streak', async () => {
    t.clock.set(new Date(T0 + 10 * DAY));
    const created = await api()
      .post('/notification-channels')
      .set(who.auth)
      .send({ name: 'Second', type: 'email', target: 'second@example.com', events: ['screenshot.failed'] });
    const id = created.body.data.id as number;
    await smtp.failNext(1000);
    await api().post(`/notification-channels/${id}/test`).set(who.auth).expect(202);
    await attemptedAt(id, T0 + 10 * DAY);
    t.clock.set(new Date(T0 + 13 * DAY));
    await attemptedAt(id, T0 + 13 * DAY);
    const deadline = Date.now() + 10_000;
    while ((await channelData(id)).enabled !== false) {
      if (Date.now() > deadline) throw new Error('the channel was not disabled');
      await new Promise((r) => setTimeout(r, 50));
    }

    const put = await api().put(`/notification-channels/${id}`).set(who.auth).send({ enabled: true }).expect(200);
    expect(put.body.data).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });
    // A new failure starts a new streak: one failure after re-enabling does not disable it again at once.
    t.clock.set(new Date(T0 + 13 * DAY + 60_000));
    await api().post(`/notification-channels/${id}/test`).set(who.auth).expect(202);
    await attemptedAt(id, T0 + 13 * DAY + 60_000);
    expect(await failingSince(id, iso(T0 + 13 * DAY + 60_000))).toMatchObject({ enabled: true });
    await smtp.failNext(0);
  });

  it("a healthy channel's delivered message writes no streak; a failing channel's next delivered message ends its streak", async () => {
    const markHealthy = jest.spyOn(t.app.get(ChannelRepository), 'markHealthy');
    const T = T0 + 20 * DAY;
    t.clock.set(new Date(T));
    const created = await api()
      .post('/notification-channels')
      .set(who.auth)
      .send({ name: 'Healthy', type: 'email', target: 'healthy@example.com', events: ['screenshot.failed'] });
    const id = created.body.data.id as number;
    await smtp.failNext(0);
    await api().post(`/notification-channels/${id}/test`).set(who.auth).expect(202);
    expect(await attemptedAt(id, T)).toMatchObject({ enabled: true, failing_since: null, last_delivery: { status: 'succeeded' } });
    // A second message, queued once the first was recorded, goes out in a later pass: when it is recorded, the pass
    // that delivered the first (and kept its streak) is over. The healthy channel's streak was not written.
    t.clock.set(new Date(T + 1000));
    await api().post(`/notification-channels/${id}/test`).set(who.auth).expect(202);
    expect(await attemptedAt(id, T + 1000)).toMatchObject({ failing_since: null, last_delivery: { status: 'succeeded' } });
    expect(markHealthy.mock.calls.filter(([channelId]) => channelId === id)).toEqual([]);

    // Refused once: failing since then; its retry (due a second later) is delivered and ends the streak.
    await smtp.failNext(1);
    t.clock.set(new Date(T + 2000));
    await api().post(`/notification-channels/${id}/test`).set(who.auth).expect(202);
    await attemptedAt(id, T + 2000);
    await failingSince(id, iso(T + 2000));
    t.clock.set(new Date(T + 3000));
    await attemptedAt(id, T + 3000);
    expect(await failingSince(id, null)).toMatchObject({ enabled: true, failing_since: null, last_delivery: { status: 'succeeded' } });
    expect(markHealthy.mock.calls.filter(([channelId]) => channelId === id)).toEqual([[id]]);
    markHealthy.mockRestore();
  });
});
