/**
 * Two builds of the service, alternately, beside the bare loop: what one change does to throughput and to each
 * process's CPU per capture, measured in one run (docs/benchmark.md, "Where node's time goes").
 *
 *   rm -rf dist-base && git stash && npm run build && cp -a dist dist-base && git stash pop && npm run build
 *   BEFORE=dist-base npx ts-node --transpile-only bench/before-after.ts    (ROUNDS=4 rounds of BATCH=80 small-page captures)
 *
 * BEFORE names the other build's directory inside this checkout (so its node_modules resolve); the second build is
 * dist/. Each round: the bare loop at 16, then both services (order swapped every round), each batch submitted at
 * once after an untimed warm-up and measured from outside (bench/service.ts). Both services stay up all along.
 */
import { SMALL } from './pages';
import { bareLoop, type Result, runWithPages, Service } from './service';

const ROUNDS = Number(process.env.ROUNDS ?? 4);
const BATCH = Number(process.env.BATCH ?? 80);
const BEFORE = process.env.BEFORE ?? 'dist-base';

runWithPages(async (pages) => {
  const line = (name: string, r: Result) =>
    console.log(
      `| ${name} | ${r.capturesPerSecond.toFixed(2)} | ${r.cpuMsPerCapture.toFixed(0)} | ${Object.values(r.cpuByKind ?? {})
        .map((v) => v.toFixed(0))
        .join(' / ')} |`,
    );
  process.env.BENCH_DIST = BEFORE;
  const before = await Service.start(pages.url, {}, [SMALL]);
  delete process.env.BENCH_DIST;
  const after = await Service.start(pages.url, {}, [SMALL]);
  console.log('| run (ratio to the bare loop) | captures/s | CPU ms/capture | node / browser / renderers / GPU / network / other |\n|---|---|---|---|');
  for (let r = 1; r <= ROUNDS; r++) {
    const bare = await bareLoop(pages.url, before.browsers, [SMALL], 16, BATCH);
    line(`${r}: bare loop at 16`, bare);
    const order: [string, Service][] =
      r % 2
        ? [
            ['before', before],
            ['after', after],
          ]
        : [
            ['after', after],
            ['before', before],
          ];
    for (const [name, service] of order) {
      const result = await service.batch([SMALL], BATCH);
      line(`${r}: ${name} (${(result.capturesPerSecond / bare.capturesPerSecond).toFixed(2)})`, result);
    }
  }
  await before.stop();
  await after.stop();
});
