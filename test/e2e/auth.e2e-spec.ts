import request from 'supertest';
import { DataSource } from 'typeorm';
import { hashToken } from '../../src/modules/accounts/domain/api-token';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { startTestApp, TestApp } from '../support/test-app';

const UNAUTHORIZED = { success: false, error: 'Unauthorized', code: 'unauthorized' };

describe('Authentication and plan access (spec: Authentication, Errors)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it.each([
    ['no Authorization header', undefined],
    ['a header not of the form Bearer <token> (Basic)', 'Basic dXNlcjpwYXNz'],
    ['"Bearer" without a token', 'Bearer'],
    ['"Bearer" with two parts', 'Bearer sst_a sst_b'],
    ['an unknown, well-formed token', `Bearer sst_${'A'.repeat(43)}`],
    ['garbage', 'Bearer not-a-token'],
  ])('401 with exactly the spec body for %s', async (_, header) => {
    const req = request(t.url).get('/test');
    if (header !== undefined) req.set('Authorization', header);
    const res = await req.expect(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    // Spec, Limits 3: every API response carries the headers; with no account known they are the
    // per-address limit on failed authentications, the limit that applies to this caller.
    expect(res.headers['x-ratelimit-limit']).toBe(String(t.config.authFailureLimitPerMinute));
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(t.config.authFailureLimitPerMinute);
    expect(res.headers['x-ratelimit-reset']).toMatch(/^\d{10}$/);
  });

  it('a revoked token fails on its very next request', async () => {
    const account = await t.createAccount({ plan: 'pro' });
    await request(t.url).get('/test').set(account.auth).expect(200);
    const tokens = await t.app.get(AccountsService).listTokens(account.email);
    await t.app.get(AccountsService).revokeToken(tokens[0].id);
    const res = await request(t.url).get('/test').set(account.auth).expect(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('other tokens of the account keep working after one is revoked', async () => {
    const account = await t.createAccount({ plan: 'pro' });
    const second = await t.app.get(AccountsService).createToken(account.email, 'ci');
    const first = (await t.app.get(AccountsService).listTokens(account.email)).find((tk) => tk.id !== second.token.id)!;
    await t.app.get(AccountsService).revokeToken(first.id);
    await request(t.url).get('/test').set(account.auth).expect(401);
    await request(t.url).get('/test').set('Authorization', `Bearer ${second.secret}`).expect(200);
  });

  it.each([
    ['free plan', { plan: 'free' }, 'free', '0'],
    ['expired subscription', { plan: 'pro', status: 'expired' }, 'pro', '20'],
    ['inactive subscription', { plan: 'business', status: 'inactive' }, 'business', '60'],
    ['subscription past its expires_at', { plan: 'starter', expiresAt: new Date(Date.now() - 60_000) }, 'starter', '5'],
  ])('403 with the spec body and current_plan for a %s, with the plan’s X-RateLimit-* headers (not counted)', async (_, opts, plan, limit) => {
    const account = await t.createAccount(opts);
    for (let i = 0; i < 2; i++) {
      const res = await request(t.url).get('/test').set(account.auth).expect(403);
      expect(res.body).toEqual({ success: false, error: 'API access is not available on your plan', code: 'plan_no_api_access', current_plan: plan });
      expect(res.headers['x-ratelimit-limit']).toBe(limit);
      expect(res.headers['x-ratelimit-remaining']).toBe(limit);
      expect(res.headers['x-ratelimit-reset']).toMatch(/^\d{10}$/);
    }
  });

  it('access returns the moment the subscription is active again', async () => {
    const account = await t.createAccount({ plan: 'pro', status: 'expired' });
    await request(t.url).get('/test').set(account.auth).expect(403);
    await t.app.get(AccountsService).updateAccount(account.email, { status: 'active' });
    await request(t.url).get('/test').set(account.auth).expect(200);
  });

  it('the database holds only the SHA-256 of a token, never the secret', async () => {
    const account = await t.createAccount();
    const rows: Record<string, unknown>[] = await t.app
      .get(DataSource)
      .query('SELECT * FROM api_tokens WHERE account_id = $1'.replace('$1', String(account.id)));
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(hashToken(account.token));
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(account.token.slice(8));
    expect(account.token).toMatch(/^sst_[A-Za-z0-9_-]{43}$/);
  });

  it('records last_used_at on use', async () => {
    const account = await t.createAccount();
    await request(t.url).get('/test').set(account.auth).expect(200);
    await new Promise((r) => setTimeout(r, 100));
    const [token] = await t.app.get(AccountsService).listTokens(account.email);
    expect(token.props.lastUsedAt).not.toBeNull();
  });

  it('limits failed authentication per client address with 429', async () => {
    const limited = await startTestApp({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '3' } });
    try {
      limited.clock.set('2026-11-22T10:00:10Z');
      const reset = String(Date.parse('2026-11-22T10:01:00Z') / 1000);
      for (let i = 0; i < 3; i++) {
        const failed = await request(limited.url).get('/test').set('Authorization', 'Bearer nope').expect(401);
        expect([failed.headers['x-ratelimit-limit'], failed.headers['x-ratelimit-remaining'], failed.headers['x-ratelimit-reset']]).toEqual([
          '3',
          String(2 - i),
          reset,
        ]);
      }
      const res = await request(limited.url).get('/test').set('Authorization', 'Bearer nope').expect(429);
      expect(res.body).toMatchObject({ success: false, error: 'Rate limit exceeded', code: 'rate_limited', limit: 3, current: 4 });
      expect(res.body.reset_at).toBe('2026-11-22T10:01:00.000Z');
      expect(res.headers['retry-after']).toBe('50');
      // Spec, Errors: the 429 body "plus the three rate limit headers".
      expect([res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining'], res.headers['x-ratelimit-reset']]).toEqual(['3', '0', reset]);
      // A valid token from the same address still gets in: the limit guards guessing, not customers.
      const account = await limited.createAccount();
      await request(limited.url).get('/test').set(account.auth).expect(200);
      limited.clock.set('2026-11-22T10:01:00Z');
      await request(limited.url).get('/test').set('Authorization', 'Bearer nope').expect(401);
    } finally {
      await limited.close();
    }
  });
});
