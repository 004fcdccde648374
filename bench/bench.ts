/**
 * npm run bench — the service's capture throughput, latency, CPU and memory against the real floor, in one run
 * on the same machine and pages (docs/benchmark.md):
 *
 *   (a) bare loop: puppeteer on the same headless shell, as many browsers as the service starts, a fresh context
 *       per capture, `goto` until `load` only, PNG — at concurrency 4, 8 and 16; the best is the floor;
 *   (b) the service on its defaults (`node dist/main.js`, embedded mode): a batch of jobs submitted at once
 *       (POST /websites/{id}/screenshot), each observed with one long-poll GET /jobs/{id}?wait=30;
 *   both warm: before a timed run each runner's process has made, untimed, at least as many captures as the run
 *   times (the bare loop is a new process each run; the service one process, topped up);
 *   (c) one capture at a time through the API: POST, then GET /jobs/{id}?wait=30;
 *   (d) a page whose content arrives 1 s after `load`: does each capture show it?
 *   (e) the service at CAPTURE_CONCURRENCY = 4, 8, 16 (its cap; it sizes itself below it) on the 4-page mix;
 *   (f) the size of each page's PNG from both: the service's encoder (CAPTURE_FAST_PNG) trades size for CPU;
 *   (g) GET /render one at a time on the small page against the bare loop one at a time, and its cache hits
 *       (bench/render-bench.ts, also alone as `npm run bench:render`; skipped while /render answers 404).
 *
 * CPU per capture is the process tree's (node + every Chromium process) user + system time over the timed
 * section and peak RSS the tree's, both sampled from /proc every 100 ms by this process, alike for both runners
 * (proc-stats.ts treeMeter), also split by process (node, Chromium's browser, renderers, GPU…). Each runner is its own
 * process tree, so neither pays for the other, for this client or for the page server (both live here).
 *
 * Env: BENCH_CAPTURES (per timed run, default 80), BENCH_ROUNDS (bare/service pairs, default 3: the ratios' median
 * is reported), BENCH_SOAK (captures through the service on its defaults,
 * printing the tree's RSS every 100; off by default).
 */
import { execFileSync } from 'node:child_process';
import { cpus, tmpdir, totalmem } from 'node:os';
import { defaultCaptureSettings, findChrome } from '../src/adapters/capture/capture-options';
import { loadConfig } from '../src/config/app-config';
import { LATE, MIX, type PageSpec, showsLateContent, SMALL, startPages } from './pages';
import { treeStats } from './proc-stats';
import { bareLoop, cleanUp, ensureBuilt, type Result, Service, serviceEnv } from './service';
import { renderSection } from './render-bench';

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number (got "${raw}")`);
  return value;
}

const CAPTURES = Math.max(1, positiveInt('BENCH_CAPTURES', 80));
const SOAK = positiveInt('BENCH_SOAK', 0);
/** (c): enough for a p95 that is not just the maximum, short enough not to dominate the run. */
const ONE_AT_A_TIME = 30;
/** (d): a few; each service capture of /late takes over a second by design. */
const LATE_CAPTURES = 3;
const CONCURRENCIES = [4, 8, 16];
/**
 * Bare/service pairs measured: the first after the sweep over CONCURRENCIES, the others alternating at the floor's
 * concurrency. The ratios' median is the verdict: one pair moves by ±0.1 between runs on a shared VM.
 */
const ROUNDS = Math.max(1, positiveInt('BENCH_ROUNDS', 3));

// ---------------------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------------------

const HEADER = '| run | captures/s | p50 ms | p95 ms | CPU ms/capture | peak RSS MB |\n|---|---|---|---|---|---|';
const row = (name: string, r: Result) =>
  `| ${name} | ${r.capturesPerSecond.toFixed(2)} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.cpuMsPerCapture.toFixed(0)} | ${r.peakRssMb.toFixed(0)} |`;
/** One bare run and one service run of each workload, measured back to back. */
interface Round {
  bareSmall: Result;
  small: Result;
  bareMix: Result;
  mix: Result;
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const best = (runs: [number, Result][]) => runs.reduce((a, b) => (b[1].capturesPerSecond > a[1].capturesPerSecond ? b : a));
const verdict = (met: boolean) => (met ? 'met' : '**not met**');
const completeness = (shown: number, of: number) => (shown === of ? 'complete' : shown === 0 ? 'incomplete' : 'partly complete');

async function main(): Promise<void> {
  ensureBuilt();
  const chrome = findChrome(process.env.CHROME_PATH);
  const version = execFileSync(chrome, ['--version'], { encoding: 'utf8' }).trim();
  // As many browsers as the service starts on its defaults (CAPTURE_BROWSERS: one per core).
  const defaults = loadConfig(serviceEnv(tmpdir(), 0));
  const browsers = defaults.captureBrowsers;
  const pages = await startPages();
  const startedAt = performance.now();
  try {
    console.log(
      `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB · ${version} · ` +
        `node ${process.version} · ${CAPTURES} captures per timed run · ${browsers} browsers (service default; the bare loop starts as many), ` +
        `service CAPTURE_CONCURRENCY cap ${defaults.captureConcurrency} by default\n`,
    );

    const bare = { small: [] as [number, Result][], mix: [] as [number, Result][] };
    for (const c of CONCURRENCIES) {
      bare.small.push([c, await bareLoop(pages.url, browsers, [SMALL], c, CAPTURES)]);
      bare.mix.push([c, await bareLoop(pages.url, browsers, MIX, c, CAPTURES)]);
    }
    const [floorSmallAt, floorSmall] = best(bare.small);
    const [floorMixAt, floorMix] = best(bare.mix);

    const service = await Service.start(pages.url);
    const small = await service.batch([SMALL], CAPTURES);
    const mix = await service.batch(MIX, CAPTURES);
    // Rounds 2..N: the floor's concurrency and the service again, one right after the other, so that a VM
    // getting faster or slower over the run moves both sides of each round's ratio alike.
    const rounds: Round[] = [{ bareSmall: floorSmall, small, bareMix: floorMix, mix }];
    for (let i = 2; i <= ROUNDS; i++) {
      const bareSmall = await bareLoop(pages.url, browsers, [SMALL], floorSmallAt, CAPTURES);
      const roundSmall = await service.batch([SMALL], CAPTURES);
      const bareMix = await bareLoop(pages.url, browsers, MIX, floorMixAt, CAPTURES);
      const roundMix = await service.batch(MIX, CAPTURES);
      rounds.push({ bareSmall, small: roundSmall, bareMix, mix: roundMix });
    }
    const single = await service.oneAtATime(SMALL, ONE_AT_A_TIME);
    let serviceShown = 0;
    const lateIds: number[] = [];
    const serviceLate = await service.timed(LATE_CAPTURES, async (latency) => {
      for (let i = 0; i < LATE_CAPTURES; i++) await latency(async () => lateIds.push(await service.capture(LATE)));
    });
    for (const id of lateIds) if (showsLateContent(await service.download(id))) serviceShown++;
    const serviceBytes = new Map<PageSpec, number>();
    for (const page of MIX) serviceBytes.set(page, (await service.download(await service.capture(page))).length);
    await service.stop();
    const bareBytes = new Map<PageSpec, number>();
    for (const page of MIX) bareBytes.set(page, (await bareLoop(pages.url, browsers, [page], 1, 1)).meanBytes ?? NaN);
    const bareLate = await bareLoop(pages.url, browsers, [LATE], 1, LATE_CAPTURES);
    // The latency floor for (c): the same page, one capture at a time, by hand (no settle window, no API, no storage).
    const bareSingle = await bareLoop(pages.url, browsers, [SMALL], 1, ONE_AT_A_TIME);

    console.log('## (a) bare loop vs (b) the service on its defaults, jobs submitted in a batch\n');
    console.log(HEADER);
    for (const [c, r] of bare.small) console.log(row(`(a) bare loop, small page, concurrency ${c}${c === floorSmallAt ? ' (floor)' : ''}`, r));
    console.log(row('**(b) service, small page**', small));
    for (const [c, r] of bare.mix) console.log(row(`(a) bare loop, 4-page mix, concurrency ${c}${c === floorMixAt ? ' (floor)' : ''}`, r));
    console.log(row('**(b) service, 4-page mix**', mix));
    console.log(row(`(c) service, small page one at a time (\`?wait=30\`, ${ONE_AT_A_TIME} captures)`, single));
    console.log(row(`(a) bare loop, small page one at a time (${ONE_AT_A_TIME} captures)`, bareSingle));
    console.log('\nIn (b) all jobs are queued at once, so their p50/p95 include the wait behind the rest of the batch.');

    if (rounds.length > 1) {
      console.log(`\nRounds 2–${rounds.length}: the bare loop at the floor's concurrency (${floorSmallAt} / ${floorMixAt}), then the service, alternately\n`);
      console.log(HEADER);
      rounds.slice(1).forEach((r, i) => {
        console.log(row(`round ${i + 2}: (a) bare loop, small page`, r.bareSmall));
        console.log(row(`round ${i + 2}: **(b) service, small page**`, r.small));
        console.log(row(`round ${i + 2}: (a) bare loop, 4-page mix`, r.bareMix));
        console.log(row(`round ${i + 2}: **(b) service, 4-page mix**`, r.mix));
      });
    }

    const ratios: [string, (r: Round) => number, boolean, string][] = [
      ['captures/s, small page', (r) => r.small.capturesPerSecond / r.bareSmall.capturesPerSecond, true, '≥ 0.9'],
      ['captures/s, 4-page mix', (r) => r.mix.capturesPerSecond / r.bareMix.capturesPerSecond, true, '≥ 0.9'],
      ['CPU per capture, small page', (r) => r.small.cpuMsPerCapture / r.bareSmall.cpuMsPerCapture, false, '≤ 1.15'],
      ['CPU per capture, 4-page mix', (r) => r.mix.cpuMsPerCapture / r.bareMix.cpuMsPerCapture, false, '≤ 1.15'],
    ];
    console.log(`\nRatios b/a, each round against its own bare run (round 1: the best of the three), and their median:\n`);
    console.log(`| ratio b/a (target) | ${rounds.map((_, i) => `round ${i + 1}`).join(' | ')} | median | |\n|---|${rounds.map(() => '---|').join('')}---|---|`);
    for (const [name, ratio, higherIsBetter, target] of ratios) {
      const each = rounds.map(ratio);
      const mid = median(each);
      const met = higherIsBetter ? mid >= 0.9 : mid <= 1.15;
      console.log(`| ${name} (${target}) | ${each.map((x) => x.toFixed(2)).join(' | ')} | **${mid.toFixed(2)}** | ${verdict(met)} |`);
    }
    console.log(
      `\np50 one at a time, small page: ${single.p50.toFixed(0)} ms (target ≤ 250 ms: ${verdict(single.p50 <= 250)}); ` +
        `the bare loop's ${bareSingle.p50.toFixed(0)} ms (service − bare: ${(single.p50 - bareSingle.p50).toFixed(0)} ms, ` +
        `with the service's settle window of ${defaultCaptureSettings().settleWindowMs} ms in it)`,
    );

    console.log(`\n## (d) a page whose content arrives 1 s after \`load\` (${LATE_CAPTURES} captures each, one at a time)\n`);
    console.log('| runner | captures showing the late content | capture | p50 ms |\n|---|---|---|---|');
    const bareShown = bareLate.complete ?? 0;
    console.log(
      `| (b) service, defaults (\`wait_until: stable\`) | ${serviceShown}/${LATE_CAPTURES} | ${completeness(serviceShown, LATE_CAPTURES)} | ${serviceLate.p50.toFixed(0)} |`,
    );
    console.log(
      `| (a) bare loop (\`load\` only) | ${bareShown}/${LATE_CAPTURES} | ${completeness(bareShown, LATE_CAPTURES)}${bareShown < LATE_CAPTURES ? ' ("Loading…")' : ''} | ${bareLate.p50.toFixed(0)} |`,
    );

    console.log(`\n## (f) the PNG files: the service's encoder (CAPTURE_FAST_PNG=${String(defaults.captureFastPng)}) against Chromium's default\n`);
    console.log('| page | (a) bare loop, KB | (b) service, KB | b/a |\n|---|---|---|---|');
    for (const page of MIX) {
      const [a, b] = [bareBytes.get(page) as number, serviceBytes.get(page) as number];
      console.log(`| ${page.name} | ${(a / 1024).toFixed(1)} | ${(b / 1024).toFixed(1)} | ${(b / a).toFixed(2)} |`);
    }

    const last = rounds[rounds.length - 1];
    const kinds = (r: Result) =>
      Object.values(r.cpuByKind ?? {})
        .map((ms) => ms.toFixed(0))
        .join(' | ');
    console.log(`\n## CPU ms per capture by process, round ${rounds.length}\n`);
    console.log('| run | node | browser | renderers | GPU | network | other | total |\n|---|---|---|---|---|---|---|---|');
    for (const [name, r] of [
      ['(a) bare loop, small page', last.bareSmall],
      ['(b) service, small page', last.small],
      ['(a) bare loop, 4-page mix', last.bareMix],
      ['(b) service, 4-page mix', last.mix],
    ] as const) {
      console.log(`| ${name} | ${kinds(r)} | ${r.cpuMsPerCapture.toFixed(0)} |`);
    }

    // (g) GET /render one at a time and its cache hits (bench/render-bench.ts; skipped on a build without /render).
    const renderer = await Service.start(pages.url, {}, [SMALL]);
    await renderSection(renderer, pages.url);
    await renderer.stop();

    console.log('\n## (e) the service at CAPTURE_CONCURRENCY = 4, 8, 16 (its cap; it sizes itself below it), 4-page mix\n');
    console.log(HEADER);
    for (const cap of CONCURRENCIES) {
      const capped = await Service.start(pages.url, { CAPTURE_CONCURRENCY: String(cap) });
      const result = await capped.batch(MIX, CAPTURES);
      await capped.stop();
      console.log(row(`service, CAPTURE_CONCURRENCY=${cap}`, result));
    }
    console.log(row(`service, defaults (cap ${defaults.captureConcurrency}), from (b)`, mix));
    console.log(row(`bare loop floor (concurrency ${floorMixAt}), from (a)`, floorMix));

    if (SOAK > 0) await soak(pages.url, SOAK);
    console.log(`\nbench: ${((performance.now() - startedAt) / 60_000).toFixed(1)} minutes`);
  } finally {
    pages.server.close();
    cleanUp();
  }
}

/** RSS of node + Chromium over many captures at the self-sized concurrency: blocks of 100 jobs submitted at once. */
async function soak(pagesUrl: string, captures: number): Promise<void> {
  console.log(`\n## soak: ${captures} captures of the 4-page mix through the service on its defaults, 100 jobs at a time\n`);
  const service = await Service.start(pagesUrl);
  console.log('| captures | RSS MB (node + Chromium) at the end of the block | peak RSS MB in the block | CPU ms/capture in the block |\n|---|---|---|---|');
  for (let done = 0; done < captures;) {
    const block = Math.min(100, captures - done);
    const r = await service.timed(block, (latency) =>
      Promise.all(Array.from({ length: block }, (_, i) => latency(() => service.capture(MIX[(done + i) % MIX.length])))).then(() => undefined),
    );
    done += block;
    const now = treeStats(service.process.pid as number).rssBytes / 1024 / 1024;
    console.log(`| ${done} | ${now.toFixed(0)} | ${r.peakRssMb.toFixed(0)} | ${r.cpuMsPerCapture.toFixed(0)} |`);
  }
  await service.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
