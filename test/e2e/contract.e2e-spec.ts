import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The spec's Authentication, Errors and Limits sections, asserted on every endpoint of its tables (parsed
 * from docs/spec/screenshot-api-spec.md, the verbatim copy, so a new endpoint is covered without editing
 * this file):
 * - "Missing header, invalid or expired token …: 401" with `{success: false, error: "Unauthorized"}`;
 * - "plan without API access (Free) or subscription expired or inactive": 403 with `current_plan`, before any
 *   validation of the request;
 * - Limits 3: "Every API response carries these headers" (X-RateLimit-Limit, -Remaining, -Reset);
 * - the per-minute limits of the Limits table, plan by plan, with the 429 body of the Errors table.
 */

/** `METHOD /path` of every row of the spec's endpoint tables, as in openapi.e2e-spec.ts. */
function specOperations(): Array<{ method: 'get' | 'post' | 'put' | 'delete'; path: string }> {
  const spec = readFileSync(join(__dirname, '..', '..', 'docs', 'spec', 'screenshot-api-spec.md'), 'utf8');
  const section = spec.slice(spec.indexOf('\n## Endpoints'), spec.indexOf('\n## Authentication'));
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .flatMap((row) => [...row.matchAll(/\b(GET|POST|PUT|DELETE) `(\/[^`\s]*)`/g)])
    .map((m) => ({ method: m[1].toLowerCase() as 'get' | 'post' | 'put' | 'delete', path: m[2].replace('{id}', '1') }));
}

const UNAUTHORIZED = { success: false, error: 'Unauthorized', code: 'unauthorized' };
const NO_ACCESS = (plan: string) => ({ success: false, error: 'API access is not available on your plan', code: 'plan_no_api_access', current_plan: plan });

describe('The spec’s authentication, plan and limit rules on every endpoint', () => {
  let t: TestApp;
  const operations = specOperations().filter((op) => op.path !== '/health');
  let minute = Date.parse('2033-01-10T09:00:00Z');
  const freshMinute = () => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  };
  const call = (op: { method: 'get' | 'post' | 'put' | 'delete'; path: string }, headers: Record<string, string> = {}) => {
    const req = request(t.url)[op.method](op.path);
    for (const [k, v] of Object.entries(headers)) req.set(k, v);
    // A body that would fail validation: the 401/403 must come first all the same.
    return op.method === 'post' || op.method === 'put' ? req.send({ unexpected: true }) : req;
  };
  const headersOf = (res: request.Response) => [res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining'], res.headers['x-ratelimit-reset']];

  beforeAll(async () => {
    // A high failed-authentication limit: this file sends many 401s from one address on purpose.
    t = await startTestApp({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '1000' } });
  });
  afterAll(async () => t.close());
  beforeEach(() => freshMinute());

  it('finds the spec’s endpoint tables (a broken parser must not pass with nothing to check)', () => {
    expect(operations.length).toBeGreaterThanOrEqual(23);
    expect(operations).toEqual(
      expect.arrayContaining([
        { method: 'post', path: '/screenshots/download-bulk' },
        { method: 'get', path: '/test' },
      ]),
    );
  });

  it('every endpoint: no token, a malformed header or a revoked-looking token → 401 with the spec body and the X-RateLimit-* headers', async () => {
    const reset = String(minute / 1000 + 60);
    for (const op of operations) {
      const variants: Array<Record<string, string>> = [{}, { Authorization: 'Token abc' }, { Authorization: `Bearer sst_${'x'.repeat(43)}` }];
      for (const headers of variants) {
        const res = await call(op, headers);
        expect({ op, headers, status: res.status, body: res.body }).toEqual({ op, headers, status: 401, body: UNAUTHORIZED });
        expect(headersOf(res)).toEqual(['1000', expect.stringMatching(/^\d+$/), reset]);
      }
    }
  });

  it.each([
    ['a free', { plan: 'free' }, '0'],
    ['an expired pro', { plan: 'pro', status: 'expired' }, '20'],
  ])('every endpoint: %s account → 403 with the spec body and current_plan, before validation, with its X-RateLimit-* headers', async (_, opts, limit) => {
    const account = await t.createAccount(opts);
    for (const op of operations) {
      const res = await call(op, account.auth);
      expect({ op, status: res.status, body: res.body }).toEqual({ op, status: 403, body: NO_ACCESS(opts.plan) });
      expect(headersOf(res)).toEqual([limit, limit, String(minute / 1000 + 60)]);
    }
  });

  it.each([
    ['starter', 5],
    ['pro', 20],
    ['business', 60],
  ])('Limits table: %s accepts %i requests a minute; the next is 429 with the spec body and the three headers', async (plan, limit) => {
    const account = await t.createAccount({ plan });
    for (let i = 1; i <= limit; i++) {
      const ok = await request(t.url).get('/websites').set(account.auth).expect(200);
      expect(headersOf(ok)).toEqual([String(limit), String(limit - i), String(minute / 1000 + 60)]);
    }
    const over = await request(t.url).get('/websites').set(account.auth).expect(429);
    expect(over.body).toEqual({
      success: false,
      error: 'Rate limit exceeded',
      code: 'rate_limited',
      message: `Rate limit of ${limit} requests per minute exceeded`,
      limit,
      current: limit + 1,
      reset_at: new Date(minute + 60_000).toISOString(),
    });
    expect(headersOf(over)).toEqual([String(limit), '0', String(minute / 1000 + 60)]);
    expect(over.headers['retry-after']).toBe('60');
    // Rule 2: accepted again after the reset time.
    freshMinute();
    await request(t.url).get('/websites').set(account.auth).expect(200);
  });

  it('Bulk Download (Limits 6) is open to Business too: an unknown id is a 404 naming it, not a 403', async () => {
    const account = await t.createAccount({ plan: 'business' });
    const res = await request(t.url)
      .post('/screenshots/download-bulk')
      .set(account.auth)
      .send({ screenshot_ids: [424242] });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'not_found', missing_ids: [424242] });
    expect(res.headers['x-ratelimit-limit']).toBe('60');
  });
});
