import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { startTestApp, TestApp } from '../support/test-app';

const unix = (iso: string): string => String(Date.parse(iso) / 1000);

describe('Rate limits (spec: Limits; API.md: Rate limits)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it("Starter's 6th request in a minute gets 429 with the exact body and headers; Remaining counts down", async () => {
    const account = await t.createAccount({ plan: 'starter' });
    t.clock.set('2026-11-22T10:00:05Z');
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await request(t.url).get('/test').set(account.auth).expect(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-reset']).toBe(unix('2026-11-22T10:01:00Z'));
      remaining.push(res.headers['x-ratelimit-remaining']);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    t.clock.set('2026-11-22T10:00:30Z');
    const res = await request(t.url).get('/test').set(account.auth).expect(429);
    expect(res.body).toEqual({
      success: false,
      error: 'Rate limit exceeded',
      code: 'rate_limited',
      message: 'Rate limit of 5 requests per minute exceeded',
      limit: 5,
      current: 6,
      reset_at: '2026-11-22T10:01:00.000Z',
    });
    expect(res.headers['x-ratelimit-limit']).toBe('5');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(res.headers['x-ratelimit-reset']).toBe(unix('2026-11-22T10:01:00Z'));
    expect(res.headers['retry-after']).toBe('30');
    // Rejected requests are counted in `current`.
    const again = await request(t.url).get('/test').set(account.auth).expect(429);
    expect(again.body.current).toBe(7);
  });

  it('the window resets at the next full minute, not 60 s after the first request', async () => {
    const account = await t.createAccount({ plan: 'starter' });
    t.clock.set('2026-11-22T11:00:50Z');
    for (let i = 0; i < 5; i++) await request(t.url).get('/test').set(account.auth).expect(200);
    t.clock.set('2026-11-22T11:00:59.999Z');
    await request(t.url).get('/test').set(account.auth).expect(429);
    t.clock.set('2026-11-22T11:01:00Z'); // 10 s after the first request, yet a new minute
    const res = await request(t.url).get('/test').set(account.auth).expect(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('4');
    expect(res.headers['x-ratelimit-reset']).toBe(unix('2026-11-22T11:02:00Z'));
  });

  it('errors carry the headers too (404 of an authenticated caller)', async () => {
    const account = await t.createAccount({ plan: 'pro' });
    t.clock.set('2026-11-22T12:00:00Z');
    const res = await request(t.url).get('/websites/999999').set(account.auth);
    expect(res.status).toBe(404);
    expect(res.headers['x-ratelimit-limit']).toBe('20');
    expect(res.headers['x-ratelimit-remaining']).toBe('19');
  });

  it("Starter's hourly limit of 300 is enforced across minutes, with a message naming the hour", async () => {
    const account = await t.createAccount({ plan: 'starter' });
    for (let minute = 0; minute < 60; minute++) {
      t.clock.set(new Date(Date.parse('2026-11-22T13:00:00Z') + minute * 60_000));
      for (let i = 0; i < 5; i++) await request(t.url).get('/test').set(account.auth).expect(200);
    }
    t.clock.set('2026-11-22T13:59:30Z');
    const minuteHit = await request(t.url).get('/test').set(account.auth).expect(429);
    expect(minuteHit.body.message).toBe('Rate limit of 5 requests per minute exceeded');
    // Plenty of minute quota left in a fresh account limit, yet the hour is used up:
    await t.app.get(AccountsService).updateAccount(account.email, { limitPerMinute: 100 });
    const res = await request(t.url).get('/test').set(account.auth).expect(429);
    expect(res.body).toEqual({
      success: false,
      error: 'Rate limit exceeded',
      code: 'rate_limited',
      message: 'Rate limit of 300 requests per hour exceeded',
      limit: 300,
      current: 301,
      reset_at: '2026-11-22T14:00:00.000Z',
    });
    expect(res.headers['retry-after']).toBe('30');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    // On a 429 the reset is when requests are accepted again: the end of the hour that was used up.
    expect(res.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-11-22T14:00:00Z') / 1000));
    t.clock.set('2026-11-22T14:00:00Z');
    await request(t.url).get('/test').set(account.auth).expect(200);
  });

  it('operator overrides replace the plan limits', async () => {
    const account = await t.createAccount({ plan: 'starter' });
    await t.app.get(AccountsService).updateAccount(account.email, { limitPerMinute: 2 });
    t.clock.set('2026-11-22T15:00:00Z');
    const res = await request(t.url).get('/test').set(account.auth).expect(200);
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    await request(t.url).get('/test').set(account.auth).expect(200);
    await request(t.url).get('/test').set(account.auth).expect(429);
  });

  it('counts per account, across all its tokens', async () => {
    const account = await t.createAccount({ plan: 'starter' });
    const second = await t.app.get(AccountsService).createToken(account.email, 'second');
    t.clock.set('2026-11-22T16:00:00Z');
    for (let i = 0; i < 3; i++) await request(t.url).get('/test').set(account.auth).expect(200);
    for (let i = 0; i < 2; i++) await request(t.url).get('/test').set('Authorization', `Bearer ${second.secret}`).expect(200);
    await request(t.url).get('/test').set('Authorization', `Bearer ${second.secret}`).expect(429);
    const other = await t.createAccount({ plan: 'starter' });
    await request(t.url).get('/test').set(other.auth).expect(200);
  });
});

describe('Rate limits shared through Redis by two instances', () => {
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const prefix = `sss-test-${randomBytes(6).toString('hex')}`;
    a = await startTestApp({ env: { REDIS_URL: redisUrl }, redisKeyPrefix: prefix });
    b = await startTestApp({ env: { REDIS_URL: redisUrl }, redisKeyPrefix: prefix, database: a.database });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('no more than the limit succeed when many requests run concurrently against both', async () => {
    const account = await a.createAccount({ plan: 'pro' }); // 20 per minute
    a.clock.set('2026-11-22T17:00:20Z');
    b.clock.set('2026-11-22T17:00:20Z');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        request(i % 2 ? a.url : b.url)
          .get('/test')
          .set(account.auth),
      ),
    );
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429).length;
    expect(ok).toBe(20);
    expect(limited).toBe(30);
    const remaining = results
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers['x-ratelimit-remaining']))
      .sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
});
