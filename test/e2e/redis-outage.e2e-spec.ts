import { ChildProcess } from 'node:child_process';
import request from 'supertest';
import { freePort, startRedis, stopRedis } from '../support/redis-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Redis stopped or frozen under a running API (issue: faults): every authenticated route answers 503 `unavailable`
 * within 500 ms for the whole outage, and the service recovers by itself when Redis is back. The Redis here
 * is a real redis-server of this test's own, on a port of its own, so stopping it disturbs nothing else.
 */

describe('Redis outage', () => {
  let port: number;
  let redis: ChildProcess;
  let t: TestApp;
  let alice: TestAccount;
  let websiteId: number;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    t = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    alice = await t.createAccount({ plan: 'pro' });
    websiteId = (await request(t.url).post('/websites').set(alice.auth).send({ name: 'Home', url: 'http://127.0.0.1:9/home' }).expect(201)).body.data.id;
  });
  afterAll(async () => {
    await t?.close();
    if (redis) await stopRedis(redis);
  });

  const routes: Array<[string, (r: ReturnType<typeof request>) => request.Test]> = [
    ['GET /test', (r) => r.get('/test')],
    ['GET /websites', (r) => r.get('/websites')],
    ['GET /websites/{id}', (r) => r.get(`/websites/${websiteId}`)],
    ['POST /websites', (r) => r.post('/websites').send({ name: 'During', url: 'http://127.0.0.1:9/during' })],
    ['POST /websites/{id}/screenshot', (r) => r.post(`/websites/${websiteId}/screenshot`)],
    ['GET /screenshots', (r) => r.get('/screenshots')],
    ['GET /jobs/{id}', (r) => r.get('/jobs/00000000-0000-4000-8000-000000000000')],
    ['GET /schedules', (r) => r.get('/schedules')],
    ['an unknown route', (r) => r.get('/no/such/route')],
  ];

  it('every authenticated route answers 503 unavailable within 500 ms, and nothing is half-applied', async () => {
    await request(t.url).get('/test').set(alice.auth).expect(200);
    await stopRedis(redis);
    for (const [name, send] of routes) {
      const started = Date.now();
      const res = await send(request(t.url)).set(alice.auth);
      const elapsed = Date.now() - started;
      expect({ name, status: res.status, body: res.body }).toEqual({
        name,
        status: 503,
        body: { success: false, error: expect.any(String), code: 'unavailable' },
      });
      expect({ name, fast: elapsed < 500 }).toEqual({ name, fast: true });
    }
    // A wrong token is counted per address in Redis too: refused the same way, not let through.
    expect((await request(t.url).get('/test').set('Authorization', 'Bearer sst_wrong')).status).toBe(503);
    const health = await request(t.url).get('/health');
    expect(health.status).toBe(503);
    expect(health.body.status).toBe('degraded');
  });

  it('recovers by itself once Redis is back', async () => {
    redis = await startRedis(port);
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await request(t.url).get('/test').set(alice.auth)).status;
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    // Nothing written during the outage: the website created then does not exist.
    const list = await request(t.url).get('/websites').set(alice.auth).expect(200);
    expect(list.body.data.map((w: { name: string }) => w.name)).toEqual(['Home']);
    await request(t.url).get('/health').expect(200);
  });

  it('a frozen Redis (SIGSTOP: connected, answering nothing) is a 503 within 500 ms too, and answers again on SIGCONT', async () => {
    await request(t.url).get('/test').set(alice.auth).expect(200);
    redis.kill('SIGSTOP');
    try {
      for (const [name, send] of routes.slice(0, 3)) {
        const started = Date.now();
        const res = await send(request(t.url)).set(alice.auth);
        expect({ name, status: res.status, code: res.body.code, fast: Date.now() - started < 500 }).toEqual({
          name,
          status: 503,
          code: 'unavailable',
          fast: true,
        });
      }
    } finally {
      redis.kill('SIGCONT');
    }
    await request(t.url).get('/test').set(alice.auth).expect(200);
  });

  it('/health answers 503 degraded within 500 ms while Redis is frozen (was 2.0–2.3 s), and 200 on SIGCONT', async () => {
    await request(t.url).get('/health').expect(200);
    redis.kill('SIGSTOP');
    const timings: number[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const res = await request(t.url).get('/health');
        timings.push(Date.now() - started);
        expect({ status: res.status, body: res.body.status }).toEqual({ status: 503, body: 'degraded' });
      }
    } finally {
      redis.kill('SIGCONT');
    }
    // The probe's bound is 300 ms: the promise is < 500 ms, the rest is the margin for a loaded machine.
    expect(Math.max(...timings)).toBeLessThan(500);
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) status = (await request(t.url).get('/health')).status;
    expect(status).toBe(200);
  });
});
