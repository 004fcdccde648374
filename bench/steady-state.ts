/**
 * The service at saturation, batch after batch, with nothing else in between: does a capture cost more as the
 * service runs longer (drift), and what does one setting change (CAPTURE_* passed through)? Complements
 * `npm run bench`, whose rounds alternate with the bare loop and the mix.
 *
 *   npx ts-node --transpile-only bench/steady-state.ts        (BATCHES=6 batches of BATCH=80 small-page captures)
 *   CAPTURE_PREWARM=false npx ts-node --transpile-only bench/steady-state.ts
 *
 * Builds nothing: run `npm run build` first. CPU per capture is the service tree's, from the bench's treeMeter.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMALL, startPages } from './pages';
import { treeMeter, treePids } from './proc-stats';

const ROOT = join(__dirname, '..');
const BATCHES = Number(process.env.BATCHES ?? 6);
const BATCH = Number(process.env.BATCH ?? 80);
const PORT = 39311;

async function main(): Promise<void> {
  const pages = await startPages();
  const dataDir = mkdtempSync(join(tmpdir(), 'sss-steady-'));
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
    PORT: String(PORT),
    HOST: '127.0.0.1',
  };
  const cli = (...args: string[]) => execFileSync(process.execPath, [join(ROOT, 'dist/cli.js'), ...args], { env, encoding: 'utf8' });
  const { token } = JSON.parse(cli('account', 'create', '--email', 'steady@example.com', '--name', 'Steady', '--plan', 'business')) as { token: string };
  cli('account', 'update', '--email', 'steady@example.com', '--limit-per-minute', '1000000', '--limit-per-hour', '1000000');
  const service = spawn(process.execPath, [join(ROOT, 'dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = () => {
    for (const pid of treePids(service.pid as number)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  try {
    const api = `http://127.0.0.1:${PORT}`;
    for (
      let i = 0;
      !(await fetch(`${api}/health`).then(
        (r) => r.ok,
        () => false,
      ));
      i++
    ) {
      if (i > 300) throw new Error('the service did not answer /health within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const headers = { authorization: `Bearer ${token}` };
    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(api + path, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}`);
      return (await res.json()) as T;
    };
    const website = await call<{ data: { id: number } }>('POST', '/websites', { name: 'small', url: pages.url + SMALL.path });
    const capture = async (): Promise<void> => {
      const { job_id } = await call<{ job_id: string }>('POST', `/websites/${website.data.id}/screenshot`);
      for (;;) {
        const { data } = await call<{ data: { status: string; error: string | null } }>('GET', `/jobs/${job_id}?wait=30`);
        if (data.status === 'succeeded') return;
        if (data.status === 'failed') throw new Error(`job ${job_id} failed: ${data.error}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, capture)); // warm-up, untimed
    console.log(`| batch of ${BATCH} | captures/s | CPU ms/capture | peak RSS MB |\n|---|---|---|---|`);
    for (let b = 1; b <= BATCHES; b++) {
      const meter = treeMeter(service.pid as number);
      const started = performance.now();
      await Promise.all(Array.from({ length: BATCH }, capture));
      const seconds = (performance.now() - started) / 1000;
      const measured = meter.stop();
      console.log(`| ${b} | ${(BATCH / seconds).toFixed(2)} | ${(measured.cpuMs / BATCH).toFixed(0)} | ${(measured.peakRssBytes / 2 ** 20).toFixed(0)} |`);
    }
  } finally {
    pages.server.close();
    stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
