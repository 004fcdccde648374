/**
 * Where the small page's batch gap between the bare loop and the service comes from: the bare loop with the
 * service's own steps for a complete picture added one after the other (bare-loop.ts, `steps`: the stability tracker,
 * the settle window and its probe, the capture report's evaluation), then the service itself, in rounds, each run
 * measured like `npm run bench` measures (bench/service.ts). What the steps cost is the price of `wait_until: stable`
 * on a page still from its load; what is left between the last step and the service is the API's (HTTP, SQL, queue,
 * stored files, the long-poll). Not part of `npm run bench`; figures in docs/benchmark.md.
 *
 *   npm run bench:floor-steps      (ROUNDS=4 rounds, CAPTURES=100 per run, CONCURRENCY= the service's admission
 *                                  floor, 3 per core)
 */
import { cpus } from 'node:os';
import { FLOOR_PER_CORE } from '../src/adapters/capture/admission';
import { SMALL } from './pages';
import { bareLoop, ensureBuilt, type Result, runWithPages, Service } from './service';

const ROUNDS = Number(process.env.ROUNDS ?? 4);
const CAPTURES = Number(process.env.CAPTURES ?? 100);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? FLOOR_PER_CORE * cpus().length);

/** Cumulative: each run adds one step to the one before. */
const LADDER: Array<{ name: string; steps: string[] }> = [
  { name: 'bare loop (the floor)', steps: [] },
  { name: '+ tracker', steps: ['tracker'] },
  { name: '+ settle window and probe', steps: ['tracker', 'settle'] },
  { name: '+ report and visible text', steps: ['tracker', 'settle', 'report'] },
];

const mean = (values: number[]): number => values.reduce((sum, v) => sum + v, 0) / values.length;

runWithPages(async (pages) => {
  ensureBuilt();
  const service = await Service.start(pages.url);
  const runs = new Map<string, Result[]>([...LADDER.map(({ name }): [string, Result[]] => [name, []]), ['service', []]]);
  const kinds = (r: Result) =>
    Object.values(r.cpuByKind ?? {})
      .map((ms) => ms.toFixed(0))
      .join(' / ');
  console.log(`Small page, ${CAPTURES} captures per run, the loop at concurrency ${CONCURRENCY}, ${ROUNDS} rounds\n`);
  console.log('| round | run | captures/s | CPU ms/capture (node / browser / renderers / GPU / network / other) |\n|---|---|---|---|');
  for (let round = 1; round <= ROUNDS; round++) {
    for (const { name, steps } of LADDER) {
      const r = await bareLoop(pages.url, service.browsers, [SMALL], CONCURRENCY, CAPTURES, steps);
      runs.get(name)?.push(r);
      console.log(`| ${round} | ${name} | ${r.capturesPerSecond.toFixed(2)} | ${r.cpuMsPerCapture.toFixed(0)} (${kinds(r)}) |`);
    }
    const r = await service.batch([SMALL], CAPTURES);
    runs.get('service')?.push(r);
    console.log(`| ${round} | service | ${r.capturesPerSecond.toFixed(2)} | ${r.cpuMsPerCapture.toFixed(0)} (${kinds(r)}) |`);
  }
  await service.stop();
  const floor = mean((runs.get(LADDER[0].name) ?? []).map((r) => r.capturesPerSecond));
  console.log('\n| run | mean captures/s | × the floor | mean CPU ms/capture | mean node ms/capture |\n|---|---|---|---|---|');
  for (const [name, results] of runs) {
    const rate = mean(results.map((r) => r.capturesPerSecond));
    const cpu = mean(results.map((r) => r.cpuMsPerCapture));
    const node = mean(results.map((r) => r.cpuByKind?.node ?? NaN));
    console.log(`| ${name} | ${rate.toFixed(2)} | ${(rate / floor).toFixed(3)} | ${cpu.toFixed(1)} | ${node.toFixed(1)} |`);
  }
});
