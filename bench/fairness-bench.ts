/**
 * `npm run bench:fairness`: docs/fair-slots.md measured with real Chromium, embedded and scaled (two worker
 * processes on PostgreSQL + Redis; 6 capture slots in all either way). Account B asks for one capture and
 * long-polls it (`?wait=30`) on an idle service (median of 3), then right after account A queued 60 captures; the
 * difference is what A's backlog costs B (the bound: < 2 s). Then two backlogs in turn, and each account's
 * peak of simultaneous captures (a starter's cap: 4).
 *
 * The measurement is test/e2e/fair-slots.e2e-spec.ts (it builds the app in-process as the e2e tests do, which
 * ts-node cannot: the JSON device table), run here through jest; this prints its figures as a table, `runs` times.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const runs = Number(process.argv[2] ?? 1);
const lines: string[] = [];
let failed = false;
for (let i = 0; i < runs; i++) {
  const jest = spawnSync(join(ROOT, 'node_modules', '.bin', 'jest'), ['--runInBand', '--forceExit', 'test/e2e/fair-slots.e2e-spec.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, TEST_LOG_LEVEL: 'silent' },
  });
  const out = `${jest.stdout}\n${jest.stderr}`;
  lines.push(...out.split('\n').filter((l) => l.startsWith('fair slots (')));
  if (jest.status !== 0) {
    failed = true;
    process.stderr.write(out);
  }
}
for (const line of lines) {
  const m = /^fair slots \((\w+)\): B idle (\d+) ms, behind A's 60 (\d+) ms/.exec(line);
  process.stdout.write(m ? `${line}  → added ${Number(m[3]) - Number(m[2])} ms (bound < 2000)\n` : `${line}\n`);
}
process.exit(failed ? 1 : 0);
