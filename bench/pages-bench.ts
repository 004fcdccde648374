/**
 * `npm run bench:pages`: completeness. Each hard page of test/support/hard-pages.ts (real lazy loaders, chart.js,
 * late web fonts, a request chain, a 20,000 px page, a 404, a consent dialog, a phone on a desktop page…) is
 * captured once by three tools on the same Chromium —
 *   - the service (`node dist/main.js`, its defaults; the consent page asks for block_cookie_banners, the phone page
 *     for the device preset),
 *   - the npm package `capture-website` (its defaults; a browser launched per capture, as the package does),
 *   - a bare puppeteer loop (one browser, a fresh context per capture, `goto` until `load`, a PNG),
 * and a program decides from the image's pixels whether it is complete. The open-web pages of
 * test/support/open-web-pages.ts (AOS, GSAP ScrollTrigger, an IntersectionObserver toggle, an app shell, lottie-web,
 * hung third parties, a masonry of slow images, React over chained fetches, a cross-site lazy iframe) follow the hard
 * ones. Prints one table: complete or not (with the check's detail) and the time per capture, and for the service
 * what its capture report says (when the screenshot carries one), with its `warnings` codes. Each incomplete picture
 * is either flagged — the service's report says `settled: false`, `truncated: true` or has `warnings` (missing
 * `warnings` counts as none), or the capture failed with an error — or SILENT: a wrong picture with a clean report,
 * the worst result; capture-website and the bare script have no report, so every wrong picture of theirs is silent.
 * The last row counts the three per tool (and the complete pictures the report flagged anyway: false alarms). BENCH_PAGES=<substring> runs only the pages whose path contains it.
 */
import { launch, KnownDevices, type Browser } from 'puppeteer';

import { CHROME_ARGS } from '../src/adapters/capture/browser-pool';
import { findChrome } from '../src/adapters/capture/capture-options';
import { HARD_PAGES, type HardPage, readPng, startHardPages, type Verdict } from '../test/support/hard-pages';
import { OPEN_WEB_PAGES, startOpenWebPages } from '../test/support/open-web-pages';
import { cleanUp, ensureBuilt, Service } from './service';

/** What the service's capture report says, in words, and whether it says the picture may be incomplete. */
interface Report {
  text: string;
  /** `settled: false`, `truncated: true` or any warning. */
  flagged: boolean;
  /** The codes of `capture.warnings` (none while the service has no such field). */
  warnings: string[];
}

interface Outcome extends Verdict {
  ms: number;
  /** The service's capture report, when its screenshot has one (settled, truncated, http_status, warnings). */
  report?: Report;
  /** The capture failed: no picture, an error instead (which is not silence). */
  failed: boolean;
}

type Tool = (page: HardPage, url: string) => Promise<{ png: Buffer; report?: Report }>;

type Kind = 'complete' | 'flagged' | 'silent';

function kind(outcome: Outcome): Kind {
  if (outcome.complete) return 'complete';
  return outcome.failed || outcome.report?.flagged ? 'flagged' : 'silent';
}

/** capture-website is an ES module: imported as one (ts-node compiles this file to CommonJS, whose import() would be require()). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the one way to keep a real import() under CommonJS
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

interface CaptureWebsite {
  buffer(url: string, options: Record<string, unknown>): Promise<Uint8Array>;
}

async function run(tool: Tool, page: HardPage, url: string): Promise<Outcome> {
  const started = performance.now();
  try {
    const { png, report } = await tool(page, url);
    const ms = performance.now() - started;
    return { ...page.check(readPng(png)), ms, report, failed: false };
  } catch (error) {
    return {
      complete: false,
      // The error's words, without the bench's "job <id> (<path>) failed: " before them.
      detail: `failed: ${(error as Error).message
        .split('\n')[0]
        .replace(/^job \S+ \(\S+\) failed: /, '')
        .slice(0, 80)}`,
      ms: performance.now() - started,
      failed: true,
    };
  }
}

function describeReport(screenshot: Record<string, unknown>): Report | undefined {
  const capture = screenshot.capture as Record<string, unknown> | undefined;
  if (!capture) return undefined;
  const warnings = Array.isArray(capture.warnings) ? (capture.warnings as Array<{ code?: unknown }>).map((w) => String(w.code)) : [];
  const parts: string[] = [];
  if (typeof capture.http_status === 'number' && capture.http_status !== 200) parts.push(`HTTP ${capture.http_status}`);
  if (capture.settled === false) parts.push('not settled');
  if (capture.truncated === true) parts.push(`truncated (page ${typeof capture.page_height === 'number' ? capture.page_height : '?'} px)`);
  if (warnings.length > 0) parts.push(`warnings: ${warnings.join(', ')}`);
  return { text: parts.join(', ') || 'complete', flagged: capture.settled === false || capture.truncated === true || warnings.length > 0, warnings };
}

async function main(): Promise<void> {
  const only = process.env.BENCH_PAGES;
  const server = await startHardPages();
  const openWeb = await startOpenWebPages();
  const pages = [...HARD_PAGES, ...OPEN_WEB_PAGES].filter((page) => !only || page.path.includes(only));
  const base = (page: { path: string }): string => (OPEN_WEB_PAGES.some((p) => p.path === page.path) ? openWeb.url : server.url);
  const executablePath = findChrome(process.env.CHROME_PATH);
  ensureBuilt();
  const service = await Service.start(base, {}, pages);
  const bare: Browser = await launch({ executablePath, headless: 'shell', pipe: true, args: [...CHROME_ARGS] });
  const captureWebsite = ((await importModule('capture-website')) as { default: CaptureWebsite }).default;

  const tools: Array<[string, Tool]> = [
    [
      'service',
      async (page) => {
        const id = await service.capture(page, {
          ...(page.device ? { device: page.device } : {}),
          ...(page.blockCookieBanners ? { block_cookie_banners: true } : {}),
        });
        const { data } = (await service.call('GET', `/screenshots/${id}`)) as { data: Record<string, unknown> };
        return { png: await service.download(id), report: describeReport(data) };
      },
    ],
    [
      'capture-website',
      async (page, url) => {
        const png = await captureWebsite.buffer(url, {
          fullPage: page.fullPage,
          width: 1280,
          height: 800,
          // Its default is 2; the others render at 1, and the checks read CSS px.
          scaleFactor: 1,
          timeout: 60,
          ...(page.device ? { emulateDevice: page.device } : {}),
          launchOptions: { executablePath, headless: 'shell', args: [...CHROME_ARGS] },
        });
        return { png: Buffer.from(png) };
      },
    ],
    [
      'bare puppeteer',
      async (page, url) => {
        const context = await bare.createBrowserContext();
        try {
          const tab = await context.newPage();
          if (page.device) await tab.emulate(KnownDevices[page.device as keyof typeof KnownDevices]);
          else await tab.setViewport({ width: 1280, height: 800 });
          await tab.goto(url, { waitUntil: 'load', timeout: 30_000 });
          return { png: Buffer.from(await tab.screenshot({ type: 'png', fullPage: page.fullPage })) };
        } finally {
          await context.close();
        }
      },
    ],
  ];

  // Warm-up, untimed: each tool's first capture pays for starting things.
  for (const [, tool] of tools) await run(tool, pages[0], base(pages[0]) + pages[0].path);

  const results = new Map<string, Outcome[]>();
  for (const page of pages) {
    const row: Outcome[] = [];
    for (const [name, tool] of tools) {
      const outcome = await run(tool, page, base(page) + page.path);
      row.push(outcome);
      console.error(
        `${page.name} · ${name}: ${outcome.complete ? 'complete' : 'INCOMPLETE'} (${outcome.detail}) ${Math.round(outcome.ms)} ms${outcome.report ? ` · report: ${outcome.report.text}` : ''}`,
      );
    }
    results.set(page.name, row);
  }

  const marks: Record<Kind, string> = { complete: '✔', flagged: '✘ flagged:', silent: '✘ **SILENT**:' };
  const cell = (o: Outcome): string => `${marks[kind(o)]} ${o.detail}, ${(o.ms / 1000).toFixed(1)} s`;
  console.log(`\n| page | ${tools.map(([name]) => name).join(' | ')} | service's report |`);
  console.log(`|---|${tools.map(() => '---').join('|')}|---|`);
  for (const page of pages) {
    const row = results.get(page.name)!;
    console.log(`| ${page.name} | ${row.map(cell).join(' | ')} | ${row[0].report?.text ?? '—'} |`);
  }
  const totals = tools.map((_, i) => {
    const outcomes = pages.map((page) => results.get(page.name)![i]);
    const count = (k: Kind): number => outcomes.filter((o) => kind(o) === k).length;
    const failed = outcomes.filter((o) => o.failed).length;
    // A right picture whose report still says something is wrong: a false alarm (it costs a wait and worries a reader).
    const falseAlarms = outcomes.filter((o) => o.complete && o.report?.flagged).length;
    return (
      `${count('complete')}/${outcomes.length} complete${falseAlarms > 0 ? ` (${falseAlarms} flagged anyway)` : ''}, ` +
      `${count('flagged')} flagged${failed > 0 ? ` (${failed} failed)` : ''}, ` +
      `**${count('silent')} silent**, ${(outcomes.reduce((sum, o) => sum + o.ms, 0) / 1000).toFixed(1)} s`
    );
  });
  const codes = [...new Set(pages.flatMap((page) => results.get(page.name)![0].report?.warnings ?? []))];
  console.log(`| **all** | ${totals.join(' | ')} | warnings seen: ${codes.join(', ') || 'none'} |`);

  await bare.close();
  await service.stop();
  await server.stop();
  await openWeb.stop();
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(cleanUp);
