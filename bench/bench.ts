/**
 * npm run bench — capture throughput, latency and memory of the service against a hand-written puppeteer
 * loop (the floor), on the same local pages and the same concurrency, in one run.
 *
 *   (a) floor:   one browser, one incognito context per capture, goto(load + network idle) → screenshot
 *   (b) service: the real AppModule (embedded mode) over HTTP: POST /websites/{id}/screenshot → long-poll
 *                GET /jobs/{id}?wait=30 until succeeded (PNG stored, row written)
 *
 * Env: BENCH_CAPTURES (default 80), BENCH_CONCURRENCY (default 2 × cores).
 */
import 'reflect-metadata';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import puppeteer from 'puppeteer';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../src/app.module';
import { loadConfig } from '../src/config/app-config';
import { configureHttpApp, createFastifyAdapter, HTTP_APP_OPTIONS } from '../src/http-app';
import { AccountsService } from '../src/modules/accounts/application/accounts.service';
import { findChrome } from '../src/adapters/capture/capture-options';

const CAPTURES = Number(process.env.BENCH_CAPTURES ?? 80);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2 * cpus().length);

interface PageSpec {
  name: string;
  path: string;
  fullPage: boolean;
}

const PAGES: PageSpec[] = [
  { name: 'small', path: '/small', fullPage: false },
  { name: 'text-heavy', path: '/text', fullPage: false },
  { name: 'image-heavy', path: '/images', fullPage: false },
  { name: 'tall', path: '/tall', fullPage: true },
];

function noisePng(size: number, seed: number): Buffer {
  const png = new PNG({ width: size, height: size });
  let x = seed;
  for (let i = 0; i < png.data.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    png.data[i] = i % 4 === 3 ? 255 : x & 0xff;
  }
  return PNG.sync.write(png);
}

async function startPages(): Promise<{ server: Server; url: string }> {
  const images = Array.from({ length: 12 }, (_, i) => noisePng(160, i + 1));
  const lorem = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ';
  const html: Record<string, string> = {
    '/small': '<!doctype html><title>small</title><body style="font-family:sans-serif"><h1>Hello</h1><p>A small page.</p></body>',
    '/text': `<!doctype html><title>text</title><body style="font-family:serif;columns:3">${Array.from({ length: 400 }, (_, i) => `<p><b>${i}</b> ${lorem.repeat(3)}</p>`).join('')}</body>`,
    '/images': `<!doctype html><title>images</title><body>${images.map((_, i) => `<img src="/img/${i}.png" width="160" height="160">`).join('')}</body>`,
    '/tall': `<!doctype html><title>tall</title><body style="margin:0">${Array.from({ length: 50 }, (_, i) => `<div style="height:100px;background:hsl(${i * 7},70%,60%)">${i}</div>`).join('')}</body>`,
  };
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const img = /^\/img\/(\d+)\.png$/.exec(url);
    if (img) return void res.writeHead(200, { 'content-type': 'image/png' }).end(images[Number(img[1])]);
    const body = html[url];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** RSS of this process and all its descendants (Chromium's browser, renderer, GPU and utility processes). */
function treeRssBytes(): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      rss.set(pid, Number(fields[21]) * 4096);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      /* process exited while we looked */
    }
  }
  let total = 0;
  const stack = [process.pid];
  while (stack.length) {
    const pid = stack.pop() as number;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

interface PhaseResult {
  name: string;
  seconds: number;
  capturesPerSecond: number;
  p50: number;
  p95: number;
  peakRssMb: number;
}

async function measure(name: string, captureOne: (page: PageSpec) => Promise<void>): Promise<PhaseResult> {
  // Warm up: browsers launched, code paths hot, before the clock starts.
  await Promise.all(PAGES.map((p) => captureOne(p)));
  let peak = treeRssBytes();
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssBytes())), 100);
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CAPTURES) {
        const page = PAGES[next++ % PAGES.length];
        const t0 = performance.now();
        await captureOne(page);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, treeRssBytes());
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { name, seconds, capturesPerSecond: CAPTURES / seconds, p50: pct(0.5), p95: pct(0.95), peakRssMb: peak / 1024 / 1024 };
}

async function floor(baseUrl: string): Promise<PhaseResult> {
  const browser = await puppeteer.launch({
    executablePath: findChrome(process.env.CHROME_PATH),
    headless: 'shell',
    pipe: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  try {
    return await measure('(a) hand-written puppeteer loop', async (spec) => {
      const context = await browser.createBrowserContext();
      try {
        const page = await context.newPage();
        await page.setViewport({ width: 1280, height: 800 });
        await page.goto(baseUrl + spec.path, { waitUntil: ['load', 'networkidle0'], timeout: 30_000 });
        await page.screenshot({ fullPage: spec.fullPage, type: 'png' });
      } finally {
        await context.close();
      }
    });
  } finally {
    await browser.close();
  }
}

async function service(baseUrl: string): Promise<PhaseResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sss-bench-'));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
    CAPTURE_CONCURRENCY: String(CONCURRENCY),
    PORT: '0',
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config), createFastifyAdapter(config), {
    ...HTTP_APP_OPTIONS,
    logger: ['error'],
  });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const api = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const accounts = app.get(AccountsService);
  const { token } = await accounts.createAccount({ email: 'bench@example.com', name: 'Bench', plan: 'business' });
  // The benchmark measures captures, not the plan's request quota.
  await accounts.updateAccount('bench@example.com', { limitPerMinute: 1_000_000, limitPerHour: 1_000_000 });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const websiteIds = new Map<string, number>();
  for (const spec of PAGES) {
    const res = await fetch(`${api}/websites`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: spec.name, url: baseUrl + spec.path, full_page: spec.fullPage }),
    });
    websiteIds.set(spec.name, ((await res.json()) as { data: { id: number } }).data.id);
  }
  try {
    return await measure('(b) service end to end', async (spec) => {
      const res = await fetch(`${api}/websites/${websiteIds.get(spec.name)}/screenshot`, { method: 'POST', headers });
      const answer = (await res.json()) as { job_id: string };
      if (res.status !== 200) throw new Error(`POST screenshot answered ${res.status}: ${JSON.stringify(answer)}`);
      const { job_id } = answer;
      for (;;) {
        // Long-poll: one request that answers when the job ends (no 20 ms polling loop costing the API CPU).
        const poll = await fetch(`${api}/jobs/${job_id}?wait=30`, { headers: { authorization: headers.authorization } });
        const job = (await poll.json()) as { data: { status: string; error: string } };
        if (poll.status !== 200) throw new Error(`GET job answered ${poll.status}: ${JSON.stringify(job)}`);
        if (job.data.status === 'succeeded') return;
        if (job.data.status === 'failed') throw new Error(job.data.error);
      }
    });
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const pages = await startPages();
  console.log(`pages: ${PAGES.map((p) => p.name).join(', ')} · ${CAPTURES} captures per phase · concurrency ${CONCURRENCY} · ${cpus().length} cores`);
  const a = await floor(pages.url);
  const b = await service(pages.url);
  pages.server.close();
  const row = (r: PhaseResult) => `| ${r.name} | ${r.capturesPerSecond.toFixed(2)} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.peakRssMb.toFixed(0)} |`;
  console.log('\n| run | captures/s | p50 ms | p95 ms | peak RSS MB (node + Chromium) |\n|---|---|---|---|---|');
  console.log(row(a));
  console.log(row(b));
  console.log(`\nratio b/a (captures/s): ${(b.capturesPerSecond / a.capturesPerSecond).toFixed(2)}`);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
