/**
 * The floor of `npm run bench`, run as a child process so its CPU and memory are its own: what a user would
 * write by hand with puppeteer on the same headless shell — as many browsers as the service starts, a fresh
 * incognito context per capture, `goto` until `load` (nothing more), a PNG screenshot. Prints one JSON line.
 *
 *   bare-loop.ts <base-url> <concurrency> <captures> <browsers> <path:fullPage,...>
 */
import { launch, type Browser } from 'puppeteer';
import { CHROME_ARGS } from '../src/adapters/capture/browser-pool';
import { findChrome } from '../src/adapters/capture/capture-options';
import { percentile, peakRss, treeStats } from './proc-stats';
import { showsLateContent } from './pages';

async function main(): Promise<void> {
  const [base, concurrencyArg, capturesArg, browsersArg, pagesArg] = process.argv.slice(2);
  const concurrency = Number(concurrencyArg);
  const captures = Number(capturesArg);
  const pages = pagesArg.split(',').map((entry) => {
    const [path, fullPage] = entry.split(':');
    return { path, fullPage: fullPage === '1' };
  });
  const browsers: Browser[] = await Promise.all(
    Array.from({ length: Number(browsersArg) }, () =>
      launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', pipe: true, args: [...CHROME_ARGS] }),
    ),
  );
  let turn = 0;
  const captureOne = async (page: { path: string; fullPage: boolean }): Promise<Buffer> => {
    const context = await browsers[turn++ % browsers.length].createBrowserContext();
    try {
      const tab = await context.newPage();
      await tab.setViewport({ width: 1280, height: 800 });
      await tab.goto(base + page.path, { waitUntil: 'load', timeout: 30_000 });
      return Buffer.from(await tab.screenshot({ type: 'png', fullPage: page.fullPage }));
    } finally {
      await context.close();
    }
  };
  // Warm-up: browsers started, code paths hot, before the clock starts.
  for (const page of pages) await captureOne(page);

  const latencies: number[] = [];
  let complete = 0;
  let next = 0;
  const before = treeStats(process.pid);
  const rss = peakRss(process.pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < captures) {
        const page = pages[next++ % pages.length];
        const t0 = performance.now();
        const png = await captureOne(page);
        latencies.push(performance.now() - t0);
        if (page.path === '/late' && showsLateContent(png)) complete++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const peak = rss.stop();
  const after = treeStats(process.pid);
  latencies.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      capturesPerSecond: captures / seconds,
      p50: percentile(latencies, 0.5),
      p95: percentile(latencies, 0.95),
      cpuMsPerCapture: (after.cpuMs - before.cpuMs) / captures,
      peakRssMb: peak / 1024 / 1024,
      complete,
    }),
  );
  await Promise.all(browsers.map((browser) => browser.close()));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
