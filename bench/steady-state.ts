/**
 * The service at saturation, batch after batch, with nothing else in between: does a capture cost more as the
 * service runs longer (drift), and what does one setting change (CAPTURE_* passed through)? Complements
 * `npm run bench`, whose rounds alternate with the bare loop and the mix.
 *
 *   npx ts-node --transpile-only bench/steady-state.ts        (BATCHES=6 batches of BATCH=80 small-page captures)
 *   CAPTURE_PREWARM=false npx ts-node --transpile-only bench/steady-state.ts
 *
 * The service and its measurement are npm run bench's (bench/service.ts): each batch is submitted at once after an
 * untimed warm-up, each job observed by one long-poll, CPU and peak RSS the service tree's.
 */
import { SMALL, startPages } from './pages';
import { cleanUp, ensureBuilt, Service } from './service';

const BATCHES = Number(process.env.BATCHES ?? 6);
const BATCH = Number(process.env.BATCH ?? 80);

async function main(): Promise<void> {
  ensureBuilt();
  const pages = await startPages();
  try {
    // The bench's service ignores this shell's CAPTURE_* unless passed on: here they are the setting under test.
    const settings = Object.fromEntries(
      Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('CAPTURE_') && entry[1] !== undefined),
    );
    const service = await Service.start(pages.url, settings);
    console.log(`| batch of ${BATCH} | captures/s | CPU ms/capture | peak RSS MB |\n|---|---|---|---|`);
    for (let b = 1; b <= BATCHES; b++) {
      const r = await service.batch([SMALL], BATCH);
      console.log(`| ${b} | ${r.capturesPerSecond.toFixed(2)} | ${r.cpuMsPerCapture.toFixed(0)} | ${r.peakRssMb.toFixed(0)} |`);
    }
    await service.stop();
  } finally {
    pages.server.close();
    cleanUp();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
