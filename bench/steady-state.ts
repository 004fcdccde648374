/**
 * The service at saturation, batch after batch, with nothing else in between: does a capture cost more as the
 * service runs longer (drift), and what does one setting change (CAPTURE_* passed through)? Complements
 * `npm run bench`, whose rounds alternate with the bare loop and the mix.
 *
 *   npx ts-node --transpile-only bench/steady-state.ts        (BATCHES=6 batches of BATCH=80 small-page captures; PAGES=mix the 4-page mix)
 *   CAPTURE_PREWARM=false npx ts-node --transpile-only bench/steady-state.ts
 *   BARE=4 npx ts-node --transpile-only bench/steady-state.ts     (each batch after one of the bare loop at 4)
 *
 * The service and its measurement are npm run bench's (bench/service.ts): each batch is submitted at once after an
 * untimed warm-up, each job observed by one long-poll, CPU and peak RSS the service tree's.
 */
import { MIX, SMALL } from './pages';
import { bareLoop, ensureBuilt, type Result, runWithPages, Service } from './service';

const BATCHES = Number(process.env.BATCHES ?? 6);
const BATCH = Number(process.env.BATCH ?? 80);
/** PAGES=mix: the bench's 4-page mix instead of the small page. */
const WORKLOAD = process.env.PAGES === 'mix' ? MIX : [SMALL];
/** The bare loop's concurrency, when it runs a batch before each of the service's (same pages, same meter). */
const BARE = Number(process.env.BARE ?? 0);

runWithPages(async (pages) => {
  ensureBuilt();
  // The bench's service ignores this shell's CAPTURE_* unless passed on: here they are the setting under test.
  const settings = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('CAPTURE_') && entry[1] !== undefined),
  );
  const service = await Service.start(pages.url, settings);
  const line = (name: string, r: Result): void => {
    const kinds = Object.values(r.cpuByKind ?? {})
      .map((ms) => ms.toFixed(0))
      .join(' / ');
    console.log(`| ${name} | ${r.capturesPerSecond.toFixed(2)} | ${r.cpuMsPerCapture.toFixed(0)} (${kinds}) | ${r.peakRssMb.toFixed(0)} |`);
  };
  console.log(`| batch of ${BATCH} | captures/s | CPU ms/capture (node / browser / renderers / GPU / network / other) | peak RSS MB |\n|---|---|---|---|`);
  for (let b = 1; b <= BATCHES; b++) {
    if (BARE > 0) line(`${b}: bare loop at ${BARE}`, await bareLoop(pages.url, service.browsers, WORKLOAD, BARE, BATCH));
    line(BARE > 0 ? `${b}: service` : String(b), await service.batch(WORKLOAD, BATCH));
  }
  await service.stop();
});
