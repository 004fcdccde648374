/**
 * npm run bench:api — what one API request costs, against the floor of a bare Fastify server in the same run.
 *
 * Three processes besides this one: a bare Fastify (the Fastify our NestJS adapter uses) answering a "hello world"
 * and a static file (the PNG of the render below, read from disk with a stream — what a user would write to serve a
 * file), and the built service (`node dist/main.js`, embedded mode, its own data directory, logging at the default
 * `info` level, as `npm start` runs it) holding 15 websites. autocannon, in this process, sends 10 connections to:
 *
 *   bare `GET /`                          the floor of GET /test and GET /websites
 *   `GET /test`, `GET /websites` (15 rows)  with the bearer token
 *   bare `GET /static.png`                the floor of a cached render
 *   `GET /render?…&signature=` (a HIT)    a signed link to a render already in the cache: the `<img>` on a busy page
 *   `GET /screenshots/{id}/download`      with the bearer token: a stored screenshot of the same page (its floor is
 *                                         the static file too)
 *
 * The machine this runs on is shared, so the targets are measured in interleaved slices (1 s each, round-robin,
 * BENCH_SECONDS per target in all): a change in the machine's load lands on every target alike, and each ratio
 * compares rates measured within the same seconds. Besides req/s, each target's server CPU per request is read from
 * /proc/<pid>/stat (user + system, all threads), which the other tenants of the machine move much less than rates.
 * The load average is printed with the figures.
 *
 * The benchmark account gets operator-set limits high enough that every answer is a 200 (as a self-hoster would set
 * for such a client): the rate limiter still counts every request.
 *
 * Env: BENCH_SECONDS (per target, default 10), BENCH_CONNECTIONS (default 10), LOG_LEVEL for the service (default info),
 * BENCH_CPU_PROF (a directory: the service's V8 CPU profile is written there when it stops), BENCH_ONLY (a regular
 * expression: only the service's targets whose name matches are measured, beside both floors, so that a profile holds
 * one kind of request; e.g. BENCH_ONLY=websites).
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SLICE_SECONDS = 1;
const ROOT = join(__dirname, '..');
const CLOCK_TICKS = 100; // getconf CLK_TCK on Linux

const BARE_FASTIFY = `
const { createReadStream, statSync } = require('node:fs');
const fastify = require(require.resolve('fastify', { paths: [require.resolve('@nestjs/platform-fastify')] }))({ logger: false });
const file = process.env.STATIC_FILE;
fastify.get('/', async () => ({ hello: 'world' }));
fastify.get('/static.png', (request, reply) => {
  reply.header('content-type', 'image/png').header('content-length', statSync(file).size);
  return reply.send(createReadStream(file));
});
fastify.listen({ port: 0, host: '127.0.0.1' }).then((address) => console.log('listening on ' + address));
`;

function start(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`did not start: ${out}`)), 60_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout.removeAllListeners('data');
        // The service logs one line per request at info level; they go nowhere here, as to a log shipper's pipe.
        child.stdout.resume();
        resolve({ child, url: m[1].replace('localhost', '127.0.0.1') });
      }
    });
  });
}

/** CPU seconds (user + system, every thread) the process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  pid: number;
  requests: number;
  seconds: number;
  cpu: number;
  non2xx: number;
  latencies: number[];
}

async function slice(target: Target): Promise<void> {
  const before = cpuSeconds(target.pid);
  const result = await autocannon({ url: target.url, connections: CONNECTIONS, duration: SLICE_SECONDS, headers: target.headers });
  target.cpu += cpuSeconds(target.pid) - before;
  target.requests += result.requests.total;
  target.seconds += result.duration;
  target.non2xx += result.non2xx;
  target.latencies.push(result.latency.p99);
}

/** A screenshot of the website (Take Screenshot, then its job waited for): the download target's file. */
async function screenshotOf(url: string, auth: Record<string, string>, websiteId: number): Promise<number> {
  const taken = await fetch(`${url}/websites/${websiteId}/screenshot`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: '{}',
  });
  if (taken.status !== 200) throw new Error(`taking a screenshot: HTTP ${taken.status} ${await taken.text()}`);
  const { job_id: jobId } = (await taken.json()) as { job_id: string };
  for (const giveUpAt = Date.now() + 60_000; Date.now() < giveUpAt;) {
    const job = (
      (await (await fetch(`${url}/jobs/${jobId}?wait=10`, { headers: auth })).json()) as {
        data: { status: string; screenshot_id: number | null; error: string | null };
      }
    ).data;
    if (job.status === 'succeeded' && job.screenshot_id) return job.screenshot_id;
    if (job.status === 'failed') throw new Error(`the screenshot failed: ${job.error}`);
  }
  throw new Error('the screenshot did not finish within 60 s');
}

/** A page for the captures the render cache and the download need. */
function startPage(): Promise<{ url: string; close: () => void }> {
  const server = createServer((_, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>bench</title><h1 style="font:48px sans-serif">A cached render</h1>');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() })),
  );
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-api-'));
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    ALLOW_PRIVATE_NETWORKS: 'true',
  };
  const cli = (...args: string[]) => execFileSync(process.execPath, ['dist/cli.js', ...args], { cwd: ROOT, env: { ...process.env, ...env } }).toString();
  const { token } = JSON.parse(cli('account', 'create', '--email', 'bench@example.com', '--name', 'Bench', '--plan', 'business'));
  cli('account', 'update', '--email', 'bench@example.com', '--limit-per-minute', '1000000', '--limit-per-hour', '1000000');
  const page = await startPage();
  // BENCH_CPU_PROF=<dir>: the service writes a V8 CPU profile there when it stops (open it in Chrome DevTools).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const service = await start([...profile, 'dist/main.js'], env);
  const auth = { Authorization: `Bearer ${token}` };
  let bare: { child: ChildProcess; url: string } | undefined;
  let firstWebsite = 0;
  try {
    for (let i = 0; i < 15; i++) {
      const res = await fetch(`${service.url}/websites`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        // The first is the page served here (its screenshot is the download target); the others are never captured.
        body: JSON.stringify({ name: `Site ${i}`, url: i === 0 ? page.url : `https://93.184.215.${i + 1}/` }),
      });
      if (res.status !== 201) throw new Error(`creating a website: HTTP ${res.status} ${await res.text()}`);
      if (i === 0) firstWebsite = ((await res.json()) as { data: { id: number } }).data.id;
    }
    const shotId = await screenshotOf(service.url, auth, firstWebsite);
    // A signed link (docs/render-keys.md) to a render of the page; its first request captures, the others hit.
    const key = await fetch(`${service.url}/render-keys`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{}' });
    if (key.status !== 201) throw new Error(`creating a render key: HTTP ${key.status} ${await key.text()}`);
    const { access_key: accessKey, secret } = ((await key.json()) as { data: { access_key: string; secret: string } }).data;
    const query = `url=${encodeURIComponent(page.url)}&access_key=${accessKey}`;
    const signedPath = `/render?${query}&signature=${createHmac('sha256', secret).update(query).digest('hex')}`;
    const first = await fetch(`${service.url}${signedPath}`);
    if (first.status !== 200) throw new Error(`the first render: HTTP ${first.status} ${await first.text()}`);
    const png = Buffer.from(await first.arrayBuffer());
    const again = await fetch(`${service.url}${signedPath}`);
    await again.arrayBuffer();
    if (again.headers.get('x-cache') !== 'HIT') throw new Error(`the second render was not a cache hit (X-Cache: ${again.headers.get('x-cache')})`);
    const shotBytes = (await (await fetch(`${service.url}/screenshots/${shotId}/download`, { headers: auth })).arrayBuffer()).byteLength;
    const staticFile = join(dataDir, 'static.png');
    writeFileSync(staticFile, png);
    bare = await start(['-e', BARE_FASTIFY], { STATIC_FILE: staticFile });

    const target = (name: string, url: string, pid: number, headers: Record<string, string> = {}): Target => ({
      name,
      url,
      headers,
      pid,
      requests: 0,
      seconds: 0,
      cpu: 0,
      non2xx: 0,
      latencies: [],
    });
    const targets = [
      target('bare Fastify `GET /`', `${bare.url}/`, bare.child.pid!),
      target('`GET /test`', `${service.url}/test`, service.child.pid!, auth),
      target('`GET /websites` (15 rows)', `${service.url}/websites`, service.child.pid!, auth),
      target(`bare Fastify static file (${png.length} B PNG)`, `${bare.url}/static.png`, bare.child.pid!),
      target('signed `GET /render`, cache HIT', `${service.url}${signedPath}`, service.child.pid!),
      target(`\`GET /screenshots/{id}/download\` (${shotBytes} B PNG)`, `${service.url}/screenshots/${shotId}/download`, service.child.pid!, auth),
    ];
    const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
    const measured = targets.filter((t) => t.name.startsWith('bare') || !only || only.test(t.name));
    // Warm-up (JIT, connection pools), not reported.
    for (const t of measured) await autocannon({ url: t.url, connections: CONNECTIONS, duration: 1, headers: t.headers });
    const loadBefore = loadavg()[0];
    const rounds = Math.max(1, Math.round(SECONDS / SLICE_SECONDS));
    for (let round = 0; round < rounds; round++) for (const t of measured) await slice(t);
    const loadAfter = loadavg()[0];

    const rps = (t: Target) => t.requests / t.seconds;
    const cpuUs = (t: Target) => (t.cpu * 1e6) / Math.max(1, t.requests);
    const floors = new Map<Target, Target>([
      [targets[0], targets[0]],
      [targets[1], targets[0]],
      [targets[2], targets[0]],
      [targets[3], targets[3]],
      [targets[4], targets[3]],
      [targets[5], targets[3]],
    ]);
    console.log(
      `\n${CONNECTIONS} connections, ${rounds} interleaved ${SLICE_SECONDS}-s slices per target, LOG_LEVEL=${env.LOG_LEVEL}, ` +
        `load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} (${new Date().toISOString()})\n`,
    );
    console.log('| target | req/s | worst slice p99 ms | non-2xx | server CPU µs/req | req/s vs its floor | CPU vs its floor |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const t of measured) {
      const floor = floors.get(t)!;
      console.log(
        `| ${t.name} | ${Math.round(rps(t))} | ${Math.max(...t.latencies)} | ${t.non2xx} | ${Math.round(cpuUs(t))} | ` +
          `${(rps(t) / rps(floor)).toFixed(3)}× | ${(cpuUs(floor) / cpuUs(t)).toFixed(3)}× |`,
      );
    }
    if (!only)
      console.log(
        `\nGoals (issue 45): GET /test ≥ 0.3×, GET /websites ≥ 0.1× bare GET /; a cached signed render ≥ 0.3× the bare static file ` +
          `(req/s vs its floor: ${(rps(targets[1]) / rps(targets[0])).toFixed(2)}× / ${(rps(targets[2]) / rps(targets[0])).toFixed(2)}× / ` +
          `${(rps(targets[4]) / rps(targets[3])).toFixed(2)}×).`,
      );
  } finally {
    bare?.child.kill();
    page.close();
    service.child.kill('SIGTERM');
    await new Promise((r) => service.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
