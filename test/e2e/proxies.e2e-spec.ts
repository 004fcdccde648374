import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { DashboardClient } from '../support/dashboard-session';
import { waitForJob } from '../support/jobs';
import { PageServer, solidPage } from '../support/page-server';
import { deadPort, startHttpProxy, startSocksProxy, type RunningProxy } from '../support/proxy-servers';
import { startServiceProcess } from '../support/service-process';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * Proxies (issue 44, API.md fourth round): the `proxy` option (sealed, masked), proxy pools (/proxy-pools, rotation,
 * a dead proxy skipped for a cool-down, per-pool counters in /metrics), CAPTURE_PROXY with CAPTURE_PROXY_BYPASS, the
 * report's `proxy`. Real Chromium, real proxy servers from npm (proxy-chain, simple-socks) on 127.0.0.1, and the URL
 * policy on: only the page's origin and the proxies' are allowlisted.
 *
 * The last test runs the built service (`npm run build` first) to read its log output.
 */

const CREDENTIALS = { username: 'shooter', password: 'Pr0xy-Pa55-w0rd-9f3c' };
const DASHBOARD_PASSWORD = 'correct horse battery staple';

function originOf(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/** Every file under `dir`, as bytes (the SQLite file and its WAL, screenshots, the secrets key). */
function filesUnder(dir: string): Array<{ path: string; bytes: Buffer }> {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, bytes: readFileSync(path) }];
  });
}

describe('Proxies (real Chromium, real proxies)', () => {
  let t: TestApp;
  let pages: PageServer;
  let http: RunningProxy;
  let http2: RunningProxy;
  let socks: RunningProxy;
  let unlisted: RunningProxy;
  let dead: number;
  let account: TestAccount;
  let minute = Date.parse('2034-09-01T08:00:00Z');
  /** Every answer's text, to look for the password in. */
  const answers: string[] = [];
  const api = () => request(t.url);

  async function call(method: 'get' | 'post' | 'put' | 'delete', path: string, body?: unknown, auth = account.auth) {
    const res = await api()
      [method](path)
      .set(auth)
      .send(body as object);
    answers.push(res.text);
    return res;
  }

  async function website(body: Record<string, unknown> = {}): Promise<number> {
    const res = await call('post', '/websites', { name: 'proxied', url: `${pages.url}/`, ...body });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  async function job(websiteId: number, body: Record<string, unknown> = {}) {
    const take = await call('post', `/websites/${websiteId}/screenshot`, body);
    expect(take.status).toBe(200);
    const done = await waitForJob(t.url, account.auth, take.body.job_id);
    answers.push(JSON.stringify(done));
    return done;
  }

  async function shot(websiteId: number, body: Record<string, unknown> = {}) {
    const done = await job(websiteId, body);
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    return (await call('get', `/screenshots/${done.screenshot_id}`)).body.data;
  }

  beforeAll(async () => {
    pages = await new PageServer({ '/': solidPage('rgb(0,128,0)') }).start();
    http = await startHttpProxy(CREDENTIALS);
    http2 = await startHttpProxy(CREDENTIALS);
    socks = await startSocksProxy(CREDENTIALS);
    unlisted = await startHttpProxy();
    dead = await deadPort();
    t = await startTestApp({
      env: {
        ALLOW_PRIVATE_NETWORKS: 'false',
        URL_ALLOWLIST: [pages.url, ...[http, http2, socks].map((p) => originOf(p.port)), originOf(dead)].join(','),
      },
    });
    account = await t.createAccount({ plan: 'business' });
  });
  afterAll(async () => {
    await t?.close();
    for (const proxy of [http, http2, socks, unlisted]) await proxy?.stop();
    await pages?.stop();
  });
  beforeEach(() => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  });

  it('a website’s proxy (HTTP, credentials): saved sealed, shown masked, the page requested through it, the report names it', async () => {
    const id = await website({ capture_options: { proxy: http.url } });
    const shown = (await call('get', `/websites/${id}`)).body.data;
    expect(shown.capture_options.proxy).toBe(`http://********@127.0.0.1:${http.port}`);
    const seen = http.seen.length;
    const data = await shot(id);
    expect(http.seen.slice(seen)).toContain(`${pages.url}/`);
    expect(data.capture.proxy).toBe(`http://********@127.0.0.1:${http.port}`);
    // Sent back as GET shows it, the stored proxy is kept.
    const put = await call('put', `/websites/${id}`, { name: 'proxied', url: `${pages.url}/`, capture_options: shown.capture_options });
    expect(put.status).toBe(200);
    const again = await shot(id);
    expect(again.capture.proxy).toBe(`http://********@127.0.0.1:${http.port}`);

    // The dashboard's screenshot page says which proxy, masked.
    await t.app.get(AccountsService).setPassword(account.email, DASHBOARD_PASSWORD);
    const dashboard = await new DashboardClient(t.url).signInOk(account.email, DASHBOARD_PASSWORD);
    const page = await dashboard.get(`/dashboard/screenshots/${data.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`through proxy <code>http://********@127.0.0.1:${http.port}</code>`);
    answers.push(page.text);
  });

  it('a request’s SOCKS5 proxy; a direct capture reports proxy null', async () => {
    const id = await website();
    const data = await shot(id, { proxy: socks.url });
    expect(socks.seen).toContain(`127.0.0.1:${new URL(pages.url).port}`);
    expect(data.capture.proxy).toBe(`socks5://********@127.0.0.1:${socks.port}`);
    expect((await shot(id)).capture.proxy).toBeNull();
  });

  it('wrong credentials fail the job proxy_failed, in words naming the masked proxy', async () => {
    const id = await website();
    const done = await job(id, { proxy: http.url.replace(CREDENTIALS.password, 'not-the-password') });
    expect(done.status).toBe('failed');
    expect(done.error).toBe(
      `The proxy http://********@127.0.0.1:${http.port} rejected its credentials (HTTP 407 Proxy Authentication Required) (proxy_failed)`,
    );
  });

  it('a loopback proxy the URL allowlist does not name is refused before anything reaches it', async () => {
    const id = await website();
    const done = await job(id, { proxy: unlisted.url });
    expect(done.status).toBe('failed');
    expect(done.error).toBe(`The proxy http://127.0.0.1:${unlisted.port} is refused by the URL policy: url resolves to a loopback address (proxy_failed)`);
    expect(unlisted.seen).toEqual([]);
  });

  it('refuses what is not a proxy URL with 422 naming the field', async () => {
    const id = await website();
    for (const proxy of ['ftp://127.0.0.1:21', 'http://127.0.0.1:8080/path', 'not a url', 42]) {
      const res = await call('post', `/websites/${id}/screenshot`, { proxy });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain('proxy');
    }
  });

  describe('proxy pools', () => {
    it('CRUD: proxies masked in every answer, another account’s pool is 404, a duplicate name 409, bad input 422', async () => {
      const created = await call('post', '/proxy-pools', { name: 'crud', proxies: [http.url, socks.url], rotation: 'sticky' });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({
        name: 'crud',
        rotation: 'sticky',
        proxies: [`http://********@127.0.0.1:${http.port}`, `socks5://********@127.0.0.1:${socks.port}`],
      });
      const id = created.body.data.id;
      expect((await call('get', `/proxy-pools/${id}`)).body.data.proxies).toEqual(created.body.data.proxies);
      expect((await call('get', '/proxy-pools')).body.data.map((p: { id: number }) => p.id)).toContain(id);
      // Sent back masked, the stored URLs are kept; a new one is added.
      const put = await call('put', `/proxy-pools/${id}`, { name: 'crud', proxies: [...created.body.data.proxies, http2.url], rotation: 'random' });
      expect(put.status).toBe(200);
      expect(put.body.data.proxies).toHaveLength(3);
      // Partial, like every PUT: a field left out is kept.
      const renamed = await call('put', `/proxy-pools/${id}`, { name: 'crud-renamed' });
      expect(renamed.body.data).toMatchObject({ name: 'crud-renamed', rotation: 'random' });
      expect(renamed.body.data.proxies).toEqual(put.body.data.proxies);

      const other = await t.createAccount({ plan: 'business' });
      expect((await call('get', `/proxy-pools/${id}`, undefined, other.auth)).status).toBe(404);
      expect((await call('put', `/proxy-pools/${id}`, { name: 'x', proxies: [http.url] }, other.auth)).status).toBe(404);
      expect((await call('delete', `/proxy-pools/${id}`, undefined, other.auth)).status).toBe(404);

      expect((await call('post', '/proxy-pools', { name: 'crud-renamed', proxies: [http.url] })).status).toBe(409);
      const bad = await call('post', '/proxy-pools', { name: 'bad', proxies: ['gopher://x'], rotation: 'sometimes' });
      expect(bad.status).toBe(422);
      expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['proxies', 'rotation']);

      expect((await call('delete', `/proxy-pools/${id}`)).status).toBe(200);
      expect((await call('get', `/proxy-pools/${id}`)).status).toBe(404);
    });

    it('a dead proxy is skipped (the next one serves the capture) and then cooled down; counters in /metrics', async () => {
      const pool = (await call('post', '/proxy-pools', { name: 'with-dead', proxies: [`http://u:p@127.0.0.1:${dead}`, socks.url], rotation: 'round_robin' }))
        .body.data;
      const id = await website({ capture_options: { proxy_pool: 'with-dead' } });
      const first = await shot(id);
      expect(first.capture.proxy).toBe(`socks5://********@127.0.0.1:${socks.port}`);
      // Its turn again (round robin), but cooling down: the live one goes first, without trying the dead one.
      const second = await shot(id);
      expect(second.capture.proxy).toBe(`socks5://********@127.0.0.1:${socks.port}`);
      const metrics = await api().get('/metrics');
      expect(metrics.text).toContain(`screenshot_proxy_pool_captures_total{pool_id="${pool.id}",outcome="failure"} 1`);
      expect(metrics.text).toContain(`screenshot_proxy_pool_captures_total{pool_id="${pool.id}",outcome="success"} 2`);
    });

    it('every proxy failing: the job fails proxy_failed naming the (last) proxy, masked', async () => {
      await call('post', '/proxy-pools', { name: 'all-bad', proxies: [`http://u:p@127.0.0.1:${dead}`, http.url.replace(CREDENTIALS.password, 'nope')] });
      const id = await website();
      const done = await job(id, { proxy_pool: 'all-bad' });
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(/^The proxy http:\/\/\*{8}@127\.0\.0\.1:\d+ (rejected its credentials|could not be reached).*\(proxy_failed\)$/);
    });

    it('round_robin spreads captures over the pool', async () => {
      await call('post', '/proxy-pools', { name: 'spread', proxies: [http.url, http2.url], rotation: 'round_robin' });
      const id = await website({ capture_options: { proxy_pool: 'spread' } });
      const used = [];
      for (let i = 0; i < 4; i++) used.push((await shot(id)).capture.proxy);
      expect(used.filter((p) => p === `http://********@127.0.0.1:${http.port}`)).toHaveLength(2);
      expect(used.filter((p) => p === `http://********@127.0.0.1:${http2.port}`)).toHaveLength(2);
    });

    it('an unknown pool fails the job in words', async () => {
      const id = await website();
      const done = await job(id, { proxy_pool: 'nowhere' });
      expect(done).toMatchObject({ status: 'failed', error: "The proxy pool 'nowhere' does not exist" });
    });
  });

  it('the password is in no answer and nowhere in the data dir in clear (the SQLite file, its WAL, the files; PostgreSQL’s rows)', async () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const text of answers) expect(text).not.toContain(CREDENTIALS.password);
    const files = filesUnder(t.database.dataDir);
    expect(files.length).toBeGreaterThan(0);
    for (const { path, bytes } of files) {
      if (bytes.includes(Buffer.from(CREDENTIALS.password))) throw new Error(`the proxy password is in ${path} in clear`);
    } // On PostgreSQL the rows are not files here: every row of the tables a proxy is kept in, as text.
    const db = t.app.get(DataSource);
    for (const table of ['proxy_pools', 'websites', 'jobs']) {
      const rows: unknown[] = await db.query(`SELECT * FROM ${table}`);
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(CREDENTIALS.password);
    }
  });

  it('CAPTURE_PROXY is the default for every capture but CAPTURE_PROXY_BYPASS hosts; the password is in no log line', async () => {
    const service = await startServiceProcess({
      DATA_DIR: t.database.dataDir,
      DATABASE_URL: t.database.databaseUrl ?? '',
      REDIS_URL: process.env.REDIS_URL ?? '',
      ALLOW_PRIVATE_NETWORKS: 'false',
      URL_ALLOWLIST: [pages.url, `http://localhost:${new URL(pages.url).port}`, originOf(http2.port)].join(','),
      CAPTURE_PROXY: http2.url,
      CAPTURE_PROXY_BYPASS: 'localhost,*.internal.example',
      LOG_LEVEL: 'debug',
    });
    try {
      const svc = () => request(service.url);
      const take = async (url: string) => {
        const site = await svc().post('/websites').set(account.auth).send({ name: 'default proxy', url });
        expect(site.status).toBe(201);
        const started = await svc().post(`/websites/${site.body.data.id}/screenshot`).set(account.auth).send({});
        const done = await waitForJob(service.url, account.auth, started.body.job_id);
        expect(done).toMatchObject({ status: 'succeeded' });
        return (await svc().get(`/screenshots/${done.screenshot_id}`).set(account.auth)).body.data.capture.proxy;
      };
      const seen = http2.seen.length;
      expect(await take(`${pages.url}/`)).toBe(`http://********@127.0.0.1:${http2.port}`);
      expect(http2.seen.length).toBeGreaterThan(seen);
      const afterProxied = http2.seen.length;
      expect(await take(`http://localhost:${new URL(pages.url).port}/`)).toBeNull();
      expect(http2.seen.length).toBe(afterProxied);
      // /render names no proxy of its own, but CAPTURE_PROXY applies to it too.
      const rendered = await svc()
        .get('/render')
        .query({ url: `${pages.url}/?render=1` })
        .set(account.auth);
      expect(rendered.status).toBe(200);
      expect(http2.seen.slice(afterProxied)).toContain(`${pages.url}/?render=1`);
      // A failing capture through a proxy is logged too: its line names the proxy masked.
      const site = await svc()
        .post('/websites')
        .set(account.auth)
        .send({ name: 'bad creds', url: `${pages.url}/` });
      const started = await svc()
        .post(`/websites/${site.body.data.id}/screenshot`)
        .set(account.auth)
        .send({ proxy: http.url.replace(CREDENTIALS.password, `${CREDENTIALS.password}-x`) });
      expect(started.status).toBe(200);
      expect((await waitForJob(service.url, account.auth, started.body.job_id)).status).toBe('failed');
    } finally {
      await service.stop();
    }
    const log = service.output();
    expect(log.split('\n').length).toBeGreaterThan(3);
    expect(log).not.toContain(CREDENTIALS.password);
  });
});
