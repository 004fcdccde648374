/**
 * npm run bench:dashboard — how fast the dashboard answers, measured over real HTTP against the real
 * AppModule (embedded mode) holding real captures: sign-in (dominated by scrypt), the overview, a gallery
 * page of 24 screenshots, one thumbnail (served from storage) and the API's GET /screenshots for comparison.
 *
 * Env: BENCH_REQUESTS (default 200 per page, sequential: latency, not throughput).
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from '../src/app.module';
import { loadConfig } from '../src/config/app-config';
import { configureHttpApp, createFastifyAdapter, HTTP_APP_OPTIONS } from '../src/http-app';
import { AccountsService } from '../src/modules/accounts/application/accounts.service';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const PASSWORD = 'benchmark passphrase';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(label: string, n: number, call: () => Promise<Response>): Promise<void> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const res = await call();
    await res.arrayBuffer();
    if (res.status >= 400) throw new Error(`${label}: HTTP ${res.status}`);
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(44)} n=${String(n).padStart(4)}  p50 ${percentile(ms, 50).toFixed(1).padStart(6)} ms  p95 ${percentile(ms, 95).toFixed(1).padStart(6)} ms`,
  );
}

async function main(): Promise<void> {
  const page = createServer((_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><h1 style="font:48px sans-serif;background:#2454d6;color:#fff;padding:40px">Bench</h1>'),
  );
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  const pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-dashboard-'));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
    PORT: '0',
    DASHBOARD_LIMIT_PER_MINUTE: '1000000',
    SIGN_IN_LIMIT_PER_MINUTE: '1000000',
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config), createFastifyAdapter(config), {
    ...HTTP_APP_OPTIONS,
    logger: ['error'],
  });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const base = await app.getUrl();
  const accounts = app.get(AccountsService);
  const { token } = await accounts.createAccount({ email: 'bench@example.com', name: 'Bench', plan: 'business', password: PASSWORD });
  await accounts.updateAccount('bench@example.com', { limitPerMinute: 1_000_000, limitPerHour: 1_000_000 });
  const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  try {
    const website = await (await fetch(`${base}/websites`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench', url: pageUrl }) })).json();
    const jobs: string[] = [];
    for (let i = 0; i < 24; i++)
      jobs.push((await (await fetch(`${base}/websites/${website.data.id}/screenshot`, { method: 'POST', headers: auth })).json()).job_id);
    for (const id of jobs) {
      for (;;) {
        const job = (await (await fetch(`${base}/jobs/${id}`, { headers: auth })).json()).data;
        if (job.status === 'succeeded') break;
        if (job.status === 'failed') throw new Error(`capture failed: ${job.error}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const shots = (await (await fetch(`${base}/screenshots?per_page=1`, { headers: auth })).json()).data;

    // Sign in once for the cookie (and the form's CSRF cookie first).
    const signIn = async (): Promise<Response> => {
      const form = await fetch(`${base}/dashboard/login`);
      const csrfCookie = (form.headers.get('set-cookie') ?? '').split(';')[0];
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
      return fetch(`${base}/dashboard/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: csrfCookie },
        body: new URLSearchParams({ _csrf: csrf, email: 'bench@example.com', password: PASSWORD }).toString(),
      });
    };
    const session = ((await signIn()).headers.getSetCookie().find((c) => c.startsWith('sst_session=')) ?? '').split(';')[0];
    const asViewer = { Cookie: session };

    console.log(`dashboard latency, sequential requests, ${shots.length ? '24 screenshots stored' : 'no screenshots'} (node ${process.version})`);
    await timed('sign in (GET form + POST, scrypt verify)', Math.min(20, REQUESTS), signIn);
    await timed('GET /dashboard (overview)', REQUESTS, () => fetch(`${base}/dashboard`, { headers: asViewer }));
    await timed('GET /dashboard/screenshots (24 thumbnails)', REQUESTS, () => fetch(`${base}/dashboard/screenshots`, { headers: asViewer }));
    await timed('GET /dashboard/websites', REQUESTS, () => fetch(`${base}/dashboard/websites`, { headers: asViewer }));
    await timed('GET /dashboard/screenshots/{id}/thumbnail', REQUESTS, () =>
      fetch(`${base}/dashboard/screenshots/${shots[0].id}/thumbnail`, { headers: asViewer }),
    );
    await timed('GET /screenshots (API, for comparison)', REQUESTS, () => fetch(`${base}/screenshots`, { headers: auth }));
  } finally {
    await app.close();
    page.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
