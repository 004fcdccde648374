/**
 * Where the service's node spends its CPU in a batch of small-page captures, beside the bare loop's node: both
 * recorded with `perf record -e cpu-clock` (on-CPU samples of every thread: the main thread, libuv's pool, V8's
 * compiler and GC threads) and each sample put in one category by the frames of its stack (docs/benchmark.md,
 * "Where node's CPU goes"). Not a test, not part of `npm run bench`; needs `perf` (Debian's linux-perf).
 *
 *   npx ts-node --transpile-only bench/node-profile.ts            (BATCH=120 captures each; COUNT_CDP=1 also counts
 *                                                                    the DevTools protocol commands per capture)
 *
 * Why perf and not the inspector's profiler: the inspector samples the main thread by wall time, so a thread
 * preempted inside a syscall (a pipe write that wakes Chromium, on 2 busy cores) is charged to that syscall — in such
 * a profile the pipe writes to Chromium looked like a quarter of node's time. cpu-clock samples only what runs.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMALL, startPages } from './pages';
import { children, cleanUp, ensureBuilt, Service } from './service';

const BATCH = Number(process.env.BATCH ?? 120);
const WORK = mkdtempSync(join(tmpdir(), 'node-profile-'));

/** Categories, first match wins, tested against a sample's whole stack (leaf first). */
const CATEGORIES: Array<[string, RegExp]> = [
  ["V8's optimizing compiler (its threads)", /OptimizingCompileDispatcher|CompileTask/],
  ['egress proxy', /egress-proxy/],
  ['HTTP API (Fastify, Nest)', /fastify|@nestjs|_http_server|parserOnIncoming/],
  ['SQL (TypeORM, better-sqlite3)', /typeorm|better-sqlite3|hot-query/],
  ['stored files', /screenshot-keeper|local-disk-storage|fs\/promises|uv__work/],
  ['DevTools protocol (puppeteer)', /puppeteer-core/],
  ['garbage collector', /Scavenge|MarkCompact|Heap::|GCTracer/],
  ["the service's own code", /\/dist\//],
  ['pipes, sockets, streams', /node:net|stream|LibuvStreamWrap/],
  ['timers, promise jobs', /processImmediate|processTimers|RunMicrotasks/],
];

function categorize(script: string, captures: number): Map<string, number> {
  const samples = script.split('\n\n').filter((s) => s.trim());
  const counts = new Map<string, number>();
  for (const sample of samples) {
    const name = CATEGORIES.find(([, pattern]) => pattern.test(sample))?.[0] ?? 'other (kernel, allocator)';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  // cpu-clock at 1999 Hz: each sample stands for 1000 / 1999 ms of CPU.
  return new Map([...counts].map(([name, n]) => [name, (n * 1000) / 1999 / captures]));
}

/** perf script, then the JIT symbol map --perf-basic-prof wrote for that process (in /tmp, by pid) removed. */
function perfScript(file: string, pid: number): string {
  const script = execFileSync('perf', ['script', '-i', file], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  rmSync(`/tmp/perf-${pid}.map`, { force: true });
  return script;
}

function record(pid: number, file: string): ChildProcess {
  const perf = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', '1999', '-g', '-p', String(pid), '-o', file], { stdio: 'ignore' });
  children.add(perf);
  return perf;
}

async function stop(perf: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => perf.once('exit', resolve));
  perf.kill('SIGINT');
  await exited;
  children.delete(perf);
}

/** The protocol commands sent, by method, counted in the process this is preloaded into until it exits or is signalled. */
const CDP_COUNTER = `
const { Connection } = require(require.resolve('puppeteer-core/lib/cjs/puppeteer/cdp/Connection.js', { paths: [process.cwd()] }));
const sent = new Map();
let on = process.env.CDP_COUNT_FROM_START === '1';
const raw = Connection.prototype._rawSend;
Connection.prototype._rawSend = function (callbacks, method, ...rest) {
  if (on) sent.set(method, (sent.get(method) || 0) + 1);
  return raw.call(this, callbacks, method, ...rest);
};
const write = () => require('fs').writeFileSync(process.env.CDP_COUNT_FILE, JSON.stringify([...sent]));
process.on('SIGWINCH', () => { if (on) write(); on = !on; sent.clear(); });
if (on) process.on('exit', write);
`;

async function serviceProfile(pagesUrl: string, countCdp: boolean): Promise<{ byCategory: Map<string, number>; cdp?: Map<string, number> }> {
  const preload = join(WORK, 'cdp-counter.js');
  writeFileSync(preload, CDP_COUNTER);
  process.env.BENCH_NODE_ARGS = `--perf-basic-prof${countCdp ? ` -r ${preload}` : ''}`;
  const service = await Service.start(pagesUrl, countCdp ? { CDP_COUNT_FILE: join(WORK, 'service-cdp.json') } : {}, [SMALL]);
  delete process.env.BENCH_NODE_ARGS;
  try {
    // Warm, untimed: the recorded batch then tops up nothing beyond one capture per browser (Service.warmUp).
    await service.batch([SMALL], BATCH);
    const pid = service.process.pid as number;
    if (countCdp) process.kill(pid, 'SIGWINCH');
    const perf = record(pid, join(WORK, 'service.data'));
    await service.batch([SMALL], BATCH);
    await stop(perf);
    if (countCdp) process.kill(pid, 'SIGWINCH');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const script = perfScript(join(WORK, 'service.data'), pid);
    // The batch's own warm-up (one capture per browser) is inside the recording too.
    const captures = BATCH + service.browsers;
    return { byCategory: categorize(script, captures), ...(countCdp ? { cdp: perCapture(join(WORK, 'service-cdp.json'), captures) } : {}) };
  } finally {
    await service.stop();
  }
}

function perCapture(file: string, captures: number): Map<string, number> {
  return new Map((JSON.parse(readFileSync(file, 'utf8')) as [string, number][]).map(([method, n]) => [method, n / captures]));
}

/** The bare loop (bench/bare-loop.ts) at concurrency 8, its timed section recorded the same way. */
async function bareProfile(pagesUrl: string, countCdp: boolean): Promise<{ byCategory: Map<string, number>; cdp?: Map<string, number> }> {
  const preload = join(WORK, 'cdp-counter.js');
  const args = ['--perf-basic-prof', ...(countCdp ? ['-r', preload] : []), '-r', 'ts-node/register/transpile-only', join(__dirname, 'bare-loop.ts')];
  const env = { ...process.env, CDP_COUNT_FILE: join(WORK, 'bare-cdp.json'), CDP_COUNT_FROM_START: '1' };
  const child = spawn(process.execPath, [...args, pagesUrl, '8', String(BATCH), '2', `${SMALL.path}:0`], {
    cwd: join(__dirname, '..'),
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.add(child);
  let perf: ChildProcess | null = null;
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      if (text.includes('"start"')) perf = record(child.pid as number, join(WORK, 'bare.data'));
      if (text.includes('capturesPerSecond')) resolve();
    });
    child.once('exit', () => reject(new Error('the bare loop exited before its result')));
  });
  if (perf) await stop(perf);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdin?.end();
  await exited;
  children.delete(child);
  const script = perfScript(join(WORK, 'bare.data'), child.pid as number);
  // Counted from its start: the warm-up (one capture per browser, then BATCH untimed) and the timed batch.
  return { byCategory: categorize(script, BATCH), ...(countCdp ? { cdp: perCapture(join(WORK, 'bare-cdp.json'), 2 * BATCH + 2) } : {}) };
}

function table(title: string, service: Map<string, number>, bare: Map<string, number>): void {
  const names = [...new Set([...service.keys(), ...bare.keys()])].sort((a, b) => (service.get(b) ?? 0) - (service.get(a) ?? 0));
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  console.log(`\n| ${title} | service | bare loop |\n|---|---|---|`);
  for (const name of names) console.log(`| ${name} | ${(service.get(name) ?? 0).toFixed(1)} | ${(bare.get(name) ?? 0).toFixed(1)} |`);
  console.log(`| **all** | **${sum(service).toFixed(1)}** | **${sum(bare).toFixed(1)}** |`);
}

async function main(): Promise<void> {
  ensureBuilt();
  execFileSync('perf', ['--version']);
  const countCdp = process.env.COUNT_CDP === '1';
  const pages = await startPages();
  try {
    const service = await serviceProfile(pages.url, countCdp);
    const bare = await bareProfile(pages.url, countCdp);
    table(`node's CPU ms per small-page capture (batch of ${BATCH})`, service.byCategory, bare.byCategory);
    if (service.cdp && bare.cdp) table('DevTools protocol commands per capture', service.cdp, bare.cdp);
  } finally {
    pages.server.close();
    cleanUp();
    rmSync(WORK, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  cleanUp();
  process.exit(1);
});
