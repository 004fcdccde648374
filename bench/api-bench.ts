/**
 * npm run bench:api — what one API request costs, against the floor of a bare Fastify server in the same run.
 *
 * Three processes besides this one: a bare Fastify "hello world" (the Fastify our NestJS adapter uses), and the
 * built service (`node dist/main.js`, embedded mode, its own data directory, logging at the default `info`
 * level, as `npm start` runs it) holding 15 websites. autocannon, in this process, sends 10 connections for
 * BENCH_SECONDS (default 10) to each of: bare `GET /`, `GET /test`, `GET /websites`. The benchmark account gets
 * operator-set limits high enough that every answer is a 200 (as a self-hoster would set for such a client):
 * the rate limiter still counts every request.
 *
 * Env: BENCH_SECONDS, BENCH_CONNECTIONS (default 10), LOG_LEVEL for the service (default info).
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROOT = join(__dirname, '..');

const BARE_FASTIFY = `
const fastify = require(require.resolve('fastify', { paths: [require.resolve('@nestjs/platform-fastify')] }))({ logger: false });
fastify.get('/', async () => ({ hello: 'world' }));
fastify.listen({ port: 0, host: '127.0.0.1' }).then((address) => console.log('listening on ' + address));
`;

function start(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`did not start: ${out}`)), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout.resume();
        resolve({ child, url: m[1].replace('localhost', '127.0.0.1') });
      }
    });
  });
}

interface Row {
  target: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(target: string, url: string, headers: Record<string, string> = {}): Promise<Row> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  return { target, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-api-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' };
  const cli = (...args: string[]) => execFileSync(process.execPath, ['dist/cli.js', ...args], { cwd: ROOT, env: { ...process.env, ...env } }).toString();
  const { token } = JSON.parse(cli('account', 'create', '--email', 'bench@example.com', '--name', 'Bench', '--plan', 'business'));
  cli('account', 'update', '--email', 'bench@example.com', '--limit-per-minute', '1000000', '--limit-per-hour', '1000000');
  const bare = await start(['-e', BARE_FASTIFY], {});
  // The service logs one line per request at info level; they go to /dev/null here, as to a log shipper's pipe.
  const service = await start(['dist/main.js'], env);
  service.child.stdout!.removeAllListeners('data');
  const auth = { Authorization: `Bearer ${token}` };
  try {
    for (let i = 0; i < 15; i++) {
      const res = await fetch(`${service.url}/websites`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `Site ${i}`, url: `https://93.184.215.${i + 1}/` }),
      });
      if (res.status !== 201) throw new Error(`creating a website: HTTP ${res.status} ${await res.text()}`);
    }
    // Warm-up (JIT, connection pools), not reported.
    await autocannon({ url: `${service.url}/test`, connections: CONNECTIONS, duration: 2, headers: auth });
    const rows = [
      await load('bare Fastify GET /', `${bare.url}/`),
      await load('GET /test', `${service.url}/test`, auth),
      await load('GET /websites (15 rows)', `${service.url}/websites`, auth),
    ];
    const floor = rows[0].rps;
    console.log(`\n${CONNECTIONS} connections, ${SECONDS} s each, LOG_LEVEL=${env.LOG_LEVEL}\n`);
    console.log('| target | req/s | p50 ms | p99 ms | non-2xx | vs bare Fastify |');
    console.log('|---|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.target} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${(r.rps / floor).toFixed(3)} |`);
  } finally {
    bare.child.kill();
    service.child.kill('SIGTERM');
    await new Promise((r) => service.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
