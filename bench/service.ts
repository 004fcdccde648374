/**
 * What the bench scripts share: the processes and temporary directories they start (all removed however the
 * script ends), the build check, and the service as `node dist/main.js` in embedded mode with a benchmark account,
 * driven through its API (jobs submitted, each observed by one long-poll) and measured from outside (treeMeter),
 * and the bare loop (bare-loop.ts, the floor) in its own process, measured the same way.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { loadConfig } from '../src/config/app-config';
import { LATE, MIX, PageSpec, type Pages, startPages } from './pages';
import { percentile, type ProcessKind, perCapture, treeMeter, treePids } from './proc-stats';

const ROOT = join(__dirname, '..');
/** BENCH_DIST: another build of the service to run (e.g. a copy of main's dist/ kept inside this checkout, so its
 *  node_modules resolve), for a before/after pair in one run; ensureBuilt() checks only dist/. */
const dist = (): string => (process.env.BENCH_DIST ? join(ROOT, process.env.BENCH_DIST) : join(ROOT, 'dist'));

export interface Result {
  capturesPerSecond: number;
  p50: number;
  p95: number;
  cpuMsPerCapture: number;
  peakRssMb: number;
  /** CPU ms per capture by process kind (proc-stats.ts ProcessKind). */
  cpuByKind?: Record<ProcessKind, number>;
  complete?: number;
  /** Mean size of the PNGs (the bare loop's). */
  meanBytes?: number;
}

// ---------------------------------------------------------------------------------------------------------
// Everything this run starts, so that an error, Ctrl-C or a kill leaves no service, browser or temp dir behind
// ---------------------------------------------------------------------------------------------------------

export const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

function killTree(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  // Descendants first looked up, then all killed: Chromium is a grandchild (behind Debian's wrapper script)
  // and would otherwise linger until it notices its pipe closed.
  for (const pid of treePids(child.pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * A bench script's main: the bench pages served from this process while `main` runs, then every child process
 * and temporary directory removed, whatever happened; a failure is printed and exits 1.
 */
export function runWithPages(main: (pages: Pages) => Promise<void>): void {
  const run = async (): Promise<void> => {
    const pages = await startPages();
    try {
      await main(pages);
    } finally {
      pages.server.close();
      cleanUp();
    }
  };
  run().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

export function cleanUp(): void {
  for (const child of children) killTree(child);
  children.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

process.once('exit', cleanUp);
for (const [signal, number] of [
  ['SIGHUP', 1],
  ['SIGINT', 2],
  ['SIGTERM', 15],
] as const) {
  process.once(signal, () => {
    console.error(`\nbench: ${signal}, stopping`);
    process.exit(128 + number);
  });
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sss-bench-'));
  tempDirs.add(dir);
  return dir;
}

// ---------------------------------------------------------------------------------------------------------
// The build: the service runs from dist/, which must be the code in src/
// ---------------------------------------------------------------------------------------------------------

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/** Builds only when dist/ is missing or older than its sources: `npm run build` empties dist/ first, which would
 *  pull it from under anyone else using it on this machine. */
export function ensureBuilt(): void {
  const built = ['dist/main.js', 'dist/cli.js'].map((file) => {
    try {
      return statSync(join(ROOT, file)).mtimeMs;
    } catch {
      return 0;
    }
  });
  const sources = Math.max(...['src', 'migrations', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => newestMtime(join(ROOT, p))));
  if (Math.min(...built) > sources) return;
  console.error('bench: dist/ is missing or older than src/, building');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
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

/** The service's environment: its defaults, whatever CAPTURE_* this shell happens to export, plus `overrides`. */
export function serviceEnv(dataDir: string, port: number, overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('CAPTURE_')));
  return {
    ...inherited,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
    PORT: String(port),
    HOST: '127.0.0.1',
    ...overrides,
  };
}

interface JobView {
  status: string;
  error: string | null;
  screenshot_id: number | null;
}

export class Service {
  private constructor(
    readonly process: ChildProcess,
    readonly api: string,
    private readonly token: string,
    private readonly dataDir: string,
    private readonly websites: Map<string, number>,
    /** How many browsers it runs (CAPTURE_BROWSERS, one per core by default). */
    readonly browsers: number,
  ) {}

  /** Captures this service has made for the bench so far (warmUp tops them up). */
  private made = 0;

  /** One website per page of `pages` (the speed bench's by default), captured by capture(page); `pagesUrl`: the
   *  base URL of the pages, or each page's (pages served by more than one server). */
  static async start(
    pagesUrl: string | ((page: PageSpec) => string),
    overrides: Record<string, string> = {},
    pages: PageSpec[] = [...MIX, LATE],
  ): Promise<Service> {
    const dataDir = tempDir();
    const port = await freePort();
    const env = serviceEnv(dataDir, port, overrides);
    const cli = (...args: string[]) => execFileSync(process.execPath, [join(dist(), 'cli.js'), ...args], { env, encoding: 'utf8' });
    const { token } = JSON.parse(cli('account', 'create', '--email', 'bench@example.com', '--name', 'Bench', '--plan', 'business')) as { token: string };
    // The benchmark measures captures, not the plan's request quota.
    cli('account', 'update', '--email', 'bench@example.com', '--limit-per-minute', '1000000', '--limit-per-hour', '1000000');
    // Its output goes to a file, shown only if it fails: warnings would break the tables.
    const log = openSync(join(dataDir, 'service.log'), 'a');
    // BENCH_NODE_ARGS: flags for the service's node, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it.
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, join(dist(), 'main.js')], { env, stdio: ['ignore', log, log] });
    closeSync(log);
    children.add(child);
    const api = `http://127.0.0.1:${port}`;
    const fail = (why: string) => new Error(`${why}; its log:\n${readFileSync(join(dataDir, 'service.log'), 'utf8').slice(-4000)}`);
    for (let i = 0; ; i++) {
      if (child.exitCode !== null || child.signalCode !== null) throw fail(`the service exited (${child.exitCode ?? child.signalCode})`);
      const up = await fetch(`${api}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (i > 300) throw fail('the service did not answer /health within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const websites = new Map<string, number>();
    const service = new Service(child, api, token, dataDir, websites, loadConfig(env).captureBrowsers);
    for (const page of pages) {
      const created = await service.call('POST', '/websites', {
        name: page.name,
        url: (typeof pagesUrl === 'string' ? pagesUrl : pagesUrl(page)) + page.path,
        full_page: page.fullPage,
      });
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

  /**
   * POST a capture (the website's defaults: wait_until stable), then long-poll its job until it ends — one
   * request per job unless it is still running after 30 s; returns the screenshot id.
   */
  async capture(page: PageSpec, options?: Record<string, unknown>): Promise<number> {
    const { job_id } = (await this.call('POST', `/websites/${this.websites.get(page.path)}/screenshot`, options)) as { job_id: string };
    for (;;) {
      const { data } = (await this.call('GET', `/jobs/${job_id}?wait=30`)) as { data: JobView };
      if (data.status === 'succeeded') {
        this.made++;
        return data.screenshot_id as number;
      }
      if (data.status === 'failed') throw new Error(`job ${job_id} (${page.path}) failed: ${data.error}`);
    }
  }

  /** A request with the benchmark account's token, answered as is (the render section reads its bytes and headers). */
  authorized(path: string): Promise<Response> {
    return fetch(this.api + path, { headers: { authorization: `Bearer ${this.token}` } });
  }

  async download(screenshotId: number): Promise<Buffer> {
    const res = await fetch(`${this.api}/screenshots/${screenshotId}/download`, { headers: { authorization: `Bearer ${this.token}` } });
    if (!res.ok) throw new Error(`GET /screenshots/${screenshotId}/download answered ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }

  /**
   * Untimed, before each timed run: every browser has rendered every page (jobs submitted together, so the pool
   * spreads them), and the service has made at least as many captures as the run times. A fresh node's first batch
   * of 80 spends 3–4 ms more of node's CPU per capture than the next ones (V8 compiling the service's code,
   * docs/benchmark.md); a service runs for days, so it is measured warm, as bare-loop.ts warms its own process.
   */
  private async warmUp(pages: PageSpec[], captures: number): Promise<void> {
    const count = Math.max(pages.length * this.browsers, captures - this.made);
    await Promise.all(Array.from({ length: count }, (_, i) => this.capture(pages[i % pages.length])));
  }

  /** `captures` jobs submitted at once (round-robin over `pages`), each observed by its own long-poll. */
  async batch(pages: PageSpec[], captures: number): Promise<Result> {
    await this.warmUp(pages, captures);
    return this.timed(captures, (latency) =>
      Promise.all(Array.from({ length: captures }, (_, i) => latency(() => this.capture(pages[i % pages.length])))).then(() => undefined),
    );
  }

  /** One capture at a time: the latency a client sees, POST → long-poll answered. */
  async oneAtATime(page: PageSpec, captures: number): Promise<Result> {
    await this.warmUp([page], captures);
    return this.timed(captures, async (latency) => {
      for (let i = 0; i < captures; i++) await latency(() => this.capture(page));
    });
  }

  /**
   * Runs `work` (which times each capture through `latency`: POST sent → its long-poll answered) and measures the
   * service's tree around it; the throughput is from the first POST to the last job ended.
   */
  async timed(captures: number, work: (latency: (capture: () => Promise<unknown>) => Promise<void>) => Promise<void>): Promise<Result> {
    const pid = this.process.pid as number;
    const meter = treeMeter(pid);
    const latencies: number[] = [];
    const started = performance.now();
    await work(async (capture) => {
      const t0 = performance.now();
      await capture();
      latencies.push(performance.now() - t0);
    });
    const seconds = (performance.now() - started) / 1000;
    const measured = meter.stop();
    latencies.sort((x, y) => x - y);
    return {
      capturesPerSecond: captures / seconds,
      p50: percentile(latencies, 0.5),
      p95: percentile(latencies, 0.95),
      cpuMsPerCapture: measured.cpuMs / captures,
      peakRssMb: measured.peakRssBytes / 1024 / 1024,
      cpuByKind: perCapture(measured.cpuMsByKind, captures),
    };
  }

  /** A graceful stop (SIGTERM: the service drains and closes its browsers), forced after 15 s. */
  async stop(): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) {
      const exited = new Promise((resolve) => this.process.once('exit', resolve));
      this.process.kill('SIGTERM');
      const timer = setTimeout(() => killTree(this.process), 15_000);
      await exited;
      clearTimeout(timer);
    }
    children.delete(this.process);
    rmSync(this.dataDir, { recursive: true, force: true });
    tempDirs.delete(this.dataDir);
  }
}

// ---------------------------------------------------------------------------------------------------------
// (a) the bare loop, in a child process
// ---------------------------------------------------------------------------------------------------------

/**
 * Asynchronous on purpose: the pages are served by this process, whose event loop must keep running. `steps`: the
 * service's steps added to each capture (bench/floor-steps.ts; see bare-loop.ts) — none for the floor.
 */
export function bareLoop(base: string, browsers: number, pages: PageSpec[], concurrency: number, captures: number, steps: string[] = []): Promise<Result> {
  const spec = pages.map((p) => `${p.path}:${p.fullPage ? 1 : 0}`).join(',');
  const child = spawn(
    process.execPath,
    [
      '-r',
      'ts-node/register/transpile-only',
      join(__dirname, 'bare-loop.ts'),
      base,
      String(concurrency),
      String(captures),
      String(browsers),
      spec,
      steps.join(','),
    ],
    // stdin: closed by us once the meter has stopped; only then does the loop close its browsers.
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  return new Promise<Result>((resolve, reject) => {
    let meter: ReturnType<typeof treeMeter> | undefined;
    let result: Result | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const message = JSON.parse(line) as Result & { event?: string };
      // Measured from here, exactly as the service is (treeMeter), from its "start" to its result.
      if (message.event === 'start') meter = treeMeter(child.pid as number);
      else {
        const measured = meter?.stop();
        result = {
          ...message,
          cpuMsPerCapture: (measured?.cpuMs ?? NaN) / captures,
          peakRssMb: (measured?.peakRssBytes ?? 0) / 1024 / 1024,
          cpuByKind: measured && perCapture(measured.cpuMsByKind, captures),
        };
        child.stdin.end();
      }
    });
    child.once('error', reject);
    child.once('close', (code) => {
      children.delete(child);
      meter?.stop();
      if (code === 0 && result) resolve(result);
      else reject(new Error(`the bare loop exited with ${code}:\n${stderr}`));
    });
  });
}
