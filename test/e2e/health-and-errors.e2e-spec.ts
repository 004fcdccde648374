import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

describe('Health Check, Test Connection and the error shape', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('GET /health is public, answers the spec body and carries no rate-limit headers', async () => {
    const res = await request(t.url).get('/health').expect(200);
    expect(res.body).toEqual({ status: 'ok', timestamp: expect.any(String), api_version: '1.0.0' });
    expect(res.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('GET /health is not counted against any limit', async () => {
    const account = await t.createAccount({ plan: 'starter' });
    t.clock.set('2026-11-22T09:00:10Z');
    for (let i = 0; i < 10; i++) await request(t.url).get('/health').set(account.auth).expect(200);
    const res = await request(t.url).get('/test').set(account.auth).expect(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('GET /test returns the caller and rate_limit values equal to the headers', async () => {
    const account = await t.createAccount({ plan: 'pro', name: 'Ada Lovelace', email: 'ada@example.com' });
    t.clock.set('2026-11-22T09:30:05Z');
    const res = await request(t.url).get('/test').set(account.auth).expect(200);
    expect(res.body).toEqual({
      success: true,
      message: expect.any(String),
      user: { id: account.id, name: 'Ada Lovelace', email: 'ada@example.com', subscription_tier: 'pro' },
      rate_limit: { limit: 20, remaining: 19, reset: Date.parse('2026-11-22T09:31:00Z') / 1000 },
    });
    expect(res.headers['x-ratelimit-limit']).toBe(String(res.body.rate_limit.limit));
    expect(res.headers['x-ratelimit-remaining']).toBe(String(res.body.rate_limit.remaining));
    expect(res.headers['x-ratelimit-reset']).toBe(String(res.body.rate_limit.reset));
  });

  it('unknown routes are 404 in the error shape', async () => {
    const res = await request(t.url).get('/no/such/route').expect(404);
    expect(res.body).toEqual({ success: false, error: expect.any(String), code: 'not_found' });
  });

  it('never leaks a stack trace', async () => {
    const res = await request(t.url)
      .get('/%E0%A4%A')
      .expect((r) => expect(r.status).toBeLessThan(500));
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js):\d+/);
  });
});
