/**
 * npm run bench — the service's capture throughput, latency, CPU and memory against the real floor, in one run
 * on the same machine and pages (README "Benchmark"):
 *
 *   (a) bare loop: puppeteer on the same headless shell, as many browsers as the service starts, a fresh context
 *       per capture, `goto` until `load` only, PNG — at concurrency 4, 8 and 16; the best is the floor;
 *   (b) the service on its defaults (`node dist/main.js`, embedded mode): a batch of jobs submitted at once
 *       (POST /websites/{id}/screenshot), each observed with one long-poll GET /jobs/{id}?wait=30;
 *   (c) one capture at a time through the API: POST, then GET /jobs/{id}?wait=30;
 *   (d) a page whose content arrives 1 s after `load`: does each capture show it?
 *   (e) the service at CAPTURE_CONCURRENCY = 4, 8, 16 (its cap; it sizes itself below it) on the 4-page mix.
 *
 * CPU per capture is the process tree's (node + every Chromium process) user + system time over the timed
 * section, from /proc; peak RSS is the tree's, sampled every 100 ms. Each runner is its own process tree, so
 * neither pays for the other or for this client.
 *
 * Env: BENCH_CAPTURES (per timed run, default 80), BENCH_SOAK (captures through the service on its defaults,
 * printing the tree's RSS every 100; off by default).
 */
import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { findChrome } from '../src/adapters/capture/capture-options';
import { LATE, MIX, PageSpec, showsLateContent, SMALL, startPages } from './pages';
import { percentile, peakRss, treeStats } from './proc-stats';

const CAPTURES = Number(process.env.BENCH_CAPTURES ?? 80);
const SOAK = Number(process.env.BENCH_SOAK ?? 0);
const CORES = cpus().length;
const ROOT = join(__dirname, '..');

interface Result {
  capturesPerSecond: number;
  p50: number;
  p95: number;
  cpuMsPerCapture: number;
  peakRssMb: number;
  complete?: number;
}

// ---------------------------------------------------------------------------------------------------------
// (a) the bare loop, in a child process
// ---------------------------------------------------------------------------------------------------------

/** Asynchronous on purpose: the pages are served by this process, whose event loop must keep running. */
async function bareLoop(base: string, pages: PageSpec[], concurrency: number, captures: number): Promise<Result> {
  const spec = pages.map((p) => `${p.path}:${p.fullPage ? 1 : 0}`).join(',');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', join(__dirname, 'bare-loop.ts'), base, String(concurrency), String(captures), String(CORES), spec],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return JSON.parse(stdout.trim().split('\n').pop() as string) as Result;
}

// ---------------------------------------------------------------------------------------------------------
// (b)–(e) the service, as `node dist/main.js`
// ---------------------------------------------------------------------------------------------------------

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

class Service {
  private constructor(
    readonly process: ChildProcess,
    readonly api: string,
    private readonly token: string,
    private readonly dataDir: string,
    private readonly websites: Map<string, number>,
  ) {}

  static async start(pagesUrl: string, env: Record<string, string> = {}): Promise<Service> {
    const dataDir = mkdtempSync(join(tmpdir(), 'sss-bench-'));
    const port = await freePort();
    const fullEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      ALLOW_PRIVATE_NETWORKS: 'true',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      ...env,
    };
    const cli = (...args: string[]) => execFileSync(process.execPath, [join(ROOT, 'dist/cli.js'), ...args], { env: fullEnv, encoding: 'utf8' });
    const { token } = JSON.parse(cli('account', 'create', '--email', 'bench@example.com', '--name', 'Bench', '--plan', 'business')) as { token: string };
    // The benchmark measures captures, not the plan's request quota.
    cli('account', 'update', '--email', 'bench@example.com', '--limit-per-minute', '1000000', '--limit-per-hour', '1000000');
    const child = spawn(process.execPath, [join(ROOT, 'dist/main.js')], { env: fullEnv, stdio: ['ignore', 'ignore', 'inherit'] });
    const api = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
      const up = await fetch(`${api}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (i > 300) throw new Error('the service did not answer /health within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const websites = new Map<string, number>();
    const service = new Service(child, api, token, dataDir, websites);
    for (const page of [...MIX, LATE]) {
      const created = await service.call('POST', '/websites', { name: page.name, url: pagesUrl + page.path, full_page: page.fullPage });
      websites.set(page.path, (created as { data: { id: number } }).data.id);
    }
    return service;
  }

  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(this.api + path, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer: unknown = await res.json();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(answer)}`);
    return answer;
  }

  /** POST a capture, then long-poll its job until it ends; returns the screenshot id. */
  async capture(page: PageSpec): Promise<number> {
    const { job_id } = (await this.call('POST', `/websites/${this.websites.get(page.path)}/screenshot`)) as { job_id: string };
    for (;;) {
      const { data } = (await this.call('GET', `/jobs/${job_id}?wait=30`)) as { data: { status: string; error: string | null; screenshot_id: number } };
      if (data.status === 'succeeded') return data.screenshot_id;
      if (data.status === 'failed') throw new Error(`job ${job_id} failed: ${data.error}`);
    }
  }

  async download(screenshotId: number): Promise<Buffer> {
    const res = await fetch(`${this.api}/screenshots/${screenshotId}/download`, { headers: { authorization: `Bearer ${this.token}` } });
    return Buffer.from(await res.arrayBuffer());
  }

  /** `captures` jobs submitted at once (round-robin over `pages`), each observed by its own long-poll. */
  async batch(pages: PageSpec[], captures: number): Promise<Result> {
    for (const page of pages) await this.capture(page); // warm-up
    return this.timed(captures, (latency) =>
      Promise.all(Array.from({ length: captures }, (_, i) => latency(() => this.capture(pages[i % pages.length])))).then(() => undefined),
    );
  }

  /** One capture at a time: the latency a client sees, POST → long-poll answered. */
  async oneAtATime(page: PageSpec, captures: number): Promise<Result> {
    await this.capture(page); // warm-up
    return this.timed(captures, async (latency) => {
      for (let i = 0; i < captures; i++) await latency(() => this.capture(page));
    });
  }

  /** Runs `work` (which times each capture through `latency`) and measures the service's tree around it. */
  private async timed(captures: number, work: (latency: (capture: () => Promise<unknown>) => Promise<void>) => Promise<void>): Promise<Result> {
    const pid = this.process.pid as number;
    const before = treeStats(pid);
    const rss = peakRss(pid);
    const latencies: number[] = [];
    const started = performance.now();
    await work(async (capture) => {
      const t0 = performance.now();
      await capture();
      latencies.push(performance.now() - t0);
    });
    const seconds = (performance.now() - started) / 1000;
    const peak = rss.stop();
    const after = treeStats(pid);
    latencies.sort((x, y) => x - y);
    return {
      capturesPerSecond: captures / seconds,
      p50: percentile(latencies, 0.5),
      p95: percentile(latencies, 0.95),
      cpuMsPerCapture: (after.cpuMs - before.cpuMs) / captures,
      peakRssMb: peak / 1024 / 1024,
    };
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.process.once('exit', resolve));
    this.process.kill('SIGTERM');
    await exited;
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------------------

const HEADER = '| run | captures/s | p50 ms | p95 ms | CPU ms/capture | peak RSS MB |\n|---|---|---|---|---|---|';
const row = (name: string, r: Result) =>
  `| ${name} | ${r.capturesPerSecond.toFixed(2)} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.cpuMsPerCapture.toFixed(0)} | ${r.peakRssMb.toFixed(0)} |`;
const best = (results: Result[]) => results.reduce((a, b) => (b.capturesPerSecond > a.capturesPerSecond ? b : a));

async function main(): Promise<void> {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  const chrome = findChrome(process.env.CHROME_PATH);
  const version = execFileSync(chrome, ['--version'], { encoding: 'utf8' }).trim();
  const pages = await startPages();
  const services: Service[] = [];
  const cleanUp = () => services.forEach((s) => s.process.kill('SIGKILL'));
  process.once('exit', cleanUp);
  try {
    console.log(`${CORES} cores · ${version} · ${CAPTURES} captures per timed run\n`);

    const bare = { small: [] as [number, Result][], mix: [] as [number, Result][] };
    for (const c of [4, 8, 16]) {
      bare.small.push([c, await bareLoop(pages.url, [SMALL], c, CAPTURES)]);
      bare.mix.push([c, await bareLoop(pages.url, MIX, c, CAPTURES)]);
    }
    const floorSmall = best(bare.small.map(([, r]) => r));
    const floorMix = best(bare.mix.map(([, r]) => r));

    const service = await Service.start(pages.url);
    services.push(service);
    const small = await service.batch([SMALL], CAPTURES);
    const mix = await service.batch(MIX, CAPTURES);
    const single = await service.oneAtATime(SMALL, 30);
    const lateIds = [await service.capture(LATE), await service.capture(LATE), await service.capture(LATE)];
    let serviceComplete = 0;
    for (const id of lateIds) if (showsLateContent(await service.download(id))) serviceComplete++;
    await service.stop();
    const bareLate = await bareLoop(pages.url, [LATE], 1, 3);

    console.log('## (a) bare loop vs (b) the service on its defaults, jobs submitted in a batch\n');
    console.log(HEADER);
    for (const [c, r] of bare.small) console.log(row(`(a) bare loop, small page, concurrency ${c}`, r));
    console.log(row('**(b) service, small page**', small));
    for (const [c, r] of bare.mix) console.log(row(`(a) bare loop, 4-page mix, concurrency ${c}`, r));
    console.log(row('**(b) service, 4-page mix**', mix));
    console.log(row('(c) service, small page one at a time (`?wait=30`)', single));
    console.log('\nratios b/a against the best bare run:');
    console.log(`- captures/s, small page: ${(small.capturesPerSecond / floorSmall.capturesPerSecond).toFixed(2)} (target ≥ 0.9)`);
    console.log(`- captures/s, 4-page mix: ${(mix.capturesPerSecond / floorMix.capturesPerSecond).toFixed(2)} (target ≥ 0.9)`);
    console.log(`- CPU per capture, small page: ${(small.cpuMsPerCapture / floorSmall.cpuMsPerCapture).toFixed(2)} (target ≤ 1.15)`);
    console.log(`- CPU per capture, 4-page mix: ${(mix.cpuMsPerCapture / floorMix.cpuMsPerCapture).toFixed(2)} (target ≤ 1.15)`);
    console.log(`- p50 one at a time, small page: ${single.p50.toFixed(0)} ms (target ≤ 250)`);

    console.log('\n## (d) a page whose content arrives 1 s after load\n');
    console.log(`- service (wait_until stable, the default): ${serviceComplete}/3 captures show the content`);
    console.log(`- bare loop (load only): ${bareLate.complete ?? 0}/3 captures show the content (the rest show "Loading…")`);

    console.log('\n## (e) the service at CAPTURE_CONCURRENCY = 4, 8, 16 (its cap), 4-page mix\n');
    console.log(HEADER);
    for (const cap of [4, 8, 16]) {
      const capped = await Service.start(pages.url, { CAPTURE_CONCURRENCY: String(cap) });
      services.push(capped);
      console.log(row(`service, CAPTURE_CONCURRENCY=${cap}`, await capped.batch(MIX, CAPTURES)));
      await capped.stop();
    }

    if (SOAK > 0) {
      console.log(`\n## soak: ${SOAK} captures of the 4-page mix through the service on its defaults\n`);
      const soaked = await Service.start(pages.url);
      services.push(soaked);
      console.log('| captures | RSS MB (node + Chromium) |\n|---|---|');
      for (let done = 0; done < SOAK; done += 100) {
        await Promise.all(Array.from({ length: Math.min(100, SOAK - done) }, (_, i) => soaked.capture(MIX[i % MIX.length])));
        console.log(`| ${done + Math.min(100, SOAK - done)} | ${(treeStats(soaked.process.pid as number).rssBytes / 1024 / 1024).toFixed(0)} |`);
      }
      await soaked.stop();
    }
  } finally {
    pages.server.close();
    cleanUp();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
