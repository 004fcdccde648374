/**
 * The floor of `npm run bench`, run as a child process so its CPU and memory are its own: what a user would
 * write by hand with puppeteer on the same headless shell — as many browsers as the service starts, the
 * service's Chromium flags, a fresh incognito context per capture, `goto` until `load` (nothing more), a PNG
 * screenshot. Nothing else: no queue, no storage, no stability wait, no egress proxy.
 *
 *   bare-loop.ts <base-url> <concurrency> <captures> <browsers> <path:fullPage,...> [steps]
 *
 * `steps` (bench/floor-steps.ts only; none by default, and then this is the floor): some of the service's own steps
 * for a complete picture added to each capture, to see what each costs the loop — `tracker` (the stability tracker
 * installed before the page's scripts), `settle` (after load, the default settle window of `wait_until: stable`, then
 * one stability probe: what a page still from its load costs at least), `report` (the capture report's facts and the
 * visible text, in one evaluation, as the service reads them).
 *
 * Prints JSON lines on stdout: `{"event":"start"}` when the timed section begins (the bench samples this
 * process tree's RSS from outside from then on, so the sampling's own CPU is not charged to the floor), then
 * the result, then waits for stdin to close before closing its browsers. Its own CPU figure (from /proc, right
 * around the timed section) is for running it by hand; the bench replaces it with its outside measurement.
 */
import { launch, type Browser, type Page as PuppeteerPage } from 'puppeteer';
import { CHROME_ARGS } from '../src/adapters/capture/browser-pool';
import { defaultCaptureSettings, findChrome } from '../src/adapters/capture/capture-options';
import { percentile, treeStats } from './proc-stats';
import { showsLateContent } from './pages';
import { reportScript, stabilityProbeScript, visibleTextScript } from '../src/adapters/capture/in-page-scripts';
import { SHORT_TIMER_MS, stabilityTracker } from '../src/adapters/capture/page-stability';

/** The service's steps `steps` may add (see the header); the strings are the service's own scripts. */
const STEPS = {
  tracker: (tab: PuppeteerPage) => tab.evaluateOnNewDocument(stabilityTracker).then(() => undefined),
  settle: async (tab: PuppeteerPage) => {
    await new Promise((resolve) => setTimeout(resolve, defaultCaptureSettings().settleWindowMs));
    await tab.evaluate(stabilityProbeScript(SHORT_TIMER_MS));
  },
  report: (tab: PuppeteerPage) => tab.evaluate(reportScript(visibleTextScript([], null))).then(() => undefined),
};
type Step = keyof typeof STEPS;

interface Page {
  path: string;
  fullPage: boolean;
}

async function main(): Promise<void> {
  const [base, concurrencyArg, capturesArg, browsersArg, pagesArg, stepsArg = ''] = process.argv.slice(2);
  const steps = stepsArg.split(',').filter(Boolean) as Step[];
  const unknown = steps.filter((step) => !(step in STEPS));
  if (unknown.length > 0) throw new Error(`unknown steps: ${unknown.join(', ')} (known: ${Object.keys(STEPS).join(', ')})`);
  const has = (step: Step) => steps.includes(step);
  const concurrency = Number(concurrencyArg);
  const captures = Number(capturesArg);
  const pages: Page[] = pagesArg.split(',').map((entry) => {
    const [path, fullPage] = entry.split(':');
    return { path, fullPage: fullPage === '1' };
  });
  const executablePath = findChrome(process.env.CHROME_PATH);
  const browsers: Browser[] = [];
  try {
    for (let i = 0; i < Number(browsersArg); i++) {
      browsers.push(await launch({ executablePath, headless: 'shell', pipe: true, args: [...CHROME_ARGS] }));
    }
    let turn = 0;
    const captureOne = async (page: Page, browser = browsers[turn++ % browsers.length]): Promise<Buffer> => {
      const context = await browser.createBrowserContext();
      try {
        const tab = await context.newPage();
        await tab.setViewport({ width: 1280, height: 800 });
        if (has('tracker')) await STEPS.tracker(tab);
        await tab.goto(base + page.path, { waitUntil: 'load', timeout: 30_000 });
        if (has('settle')) await STEPS.settle(tab);
        if (has('report')) await STEPS.report(tab);
        return Buffer.from(await tab.screenshot({ type: 'png', fullPage: page.fullPage }));
      } finally {
        await context.close();
      }
    };

    /** `count` captures at the run's concurrency, round-robin over the pages. */
    const inBatch = async (count: number, each: (page: Page) => Promise<void>): Promise<void> => {
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < count) await each(pages[next++ % pages.length]);
        }),
      );
    };

    // Warm-up, untimed: every browser has rendered every page once (renderer spawned, code paths hot), then as many
    // captures as the timed run makes, at its concurrency, so V8 has compiled this process's hot code — the service
    // gets the same before its first timed run (bench/service.ts, warmUp).
    for (const browser of browsers) for (const page of pages) await captureOne(page, browser);
    await inBatch(captures, async (page) => void (await captureOne(page)));

    const latencies: number[] = [];
    let complete = 0;
    let bytes = 0;
    console.log(JSON.stringify({ event: 'start' }));
    const before = treeStats(process.pid);
    const started = performance.now();
    await inBatch(captures, async (page) => {
      const t0 = performance.now();
      const png = await captureOne(page);
      latencies.push(performance.now() - t0);
      bytes += png.length;
      // Decoding is outside the latency but inside the CPU figure; only the /late runs do it.
      if (page.path === '/late' && showsLateContent(png)) complete++;
    });
    const seconds = (performance.now() - started) / 1000;
    const after = treeStats(process.pid);
    latencies.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        capturesPerSecond: captures / seconds,
        p50: percentile(latencies, 0.5),
        p95: percentile(latencies, 0.95),
        cpuMsPerCapture: (after.cpuMs - before.cpuMs) / captures,
        complete,
        meanBytes: bytes / captures,
      }),
    );
    // Run by the bench (stdin a pipe), the browsers close only once it has stopped measuring this tree.
    if (!process.stdin.isTTY) {
      await new Promise((resolve) => {
        process.stdin.once('end', resolve);
        process.stdin.once('close', resolve);
        process.stdin.resume();
      });
    }
  } finally {
    await Promise.all(browsers.map((browser) => browser.close().catch(() => undefined)));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
