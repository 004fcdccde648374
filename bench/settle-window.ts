/**
 * npx ts-node --transpile-only bench/settle-window.ts — picks the stability wait's settle window
 * (CaptureSettings.settleWindowMs) from measurements, not a guess.
 *
 * For each candidate window: (1) its cost, the settle time of a static page (median); (2) what it risks,
 * how often a page is captured complete when its content arrives after a gap the tracker cannot see
 * (requestAnimationFrame frames, which must not hold a capture, or endless canvas animations never
 * would settle), then a fetch. A window shorter than such a gap captures the page before the fetch.
 *
 * Env: SETTLE_RUNS (default 8 per page and window).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

import { captureRequest } from '../test/support/capture-request';
import { PuppeteerPageCapturer } from '../src/adapters/capture/puppeteer-page-capturer';

const RUNS = Number(process.env.SETTLE_RUNS ?? 8);
const WINDOWS = (process.env.SETTLE_WINDOWS ?? '25,50,75,100,150').split(',').map(Number);
/** Frames of requestAnimationFrame before the fetch: ~16.7 ms each at 60 Hz. */
const GAPS_IN_FRAMES = [2, 4, 6];

function page(script: string): string {
  return `<!doctype html><html><head><style>html,body{margin:0;background:rgb(255,255,255)}</style></head>
<body><h1>Loading…</h1><script>${script}</script></body></html>`;
}

function afterFrames(frames: number): string {
  return page(`addEventListener('load', () => {
    let left = ${frames};
    const next = () => (--left > 0 ? requestAnimationFrame(next) : fetch('/content').then((r) => r.text())
      .then((colour) => { document.documentElement.style.background = colour; }));
    requestAnimationFrame(next);
  });`);
}

const routes: Record<string, (res: ServerResponse) => void> = {
  '/static': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page('')),
  '/content': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('rgb(0,128,0)'),
};
for (const frames of GAPS_IN_FRAMES) {
  routes[`/frames-${frames}`] = (res) => res.writeHead(200, { 'content-type': 'text/html' }).end(afterFrames(frames));
}

/** Paints the page green from what /content answers: the fetch the tracker sees, after a gap it may not. */
const PAINT = `fetch('/content').then((r) => r.text()).then((colour) => { document.documentElement.style.background = colour; })`;

/**
 * Other gaps after `load` that no timer, frame or request shows, as real sites make them: work deferred to an idle
 * period (lazy hydration, analytics-driven widgets), a chain of MessageChannel tasks (React's scheduler yields
 * this way), a worker that computes before it answers, an image whose onload starts the next step (its decode is
 * the probe's; the handler's fetch the network's).
 */
const OTHER_GAPS: Record<string, string> = {
  'idle callback': `addEventListener('load', () => requestIdleCallback(() => ${PAINT}));`,
  'idle callback ×3': `addEventListener('load', () => requestIdleCallback(() => requestIdleCallback(() => requestIdleCallback(() => ${PAINT}))));`,
  'message-channel tasks ×50': `addEventListener('load', () => {
    const channel = new MessageChannel(); let left = 50;
    channel.port1.onmessage = () => { const until = performance.now() + 1; while (performance.now() < until); if (--left > 0) channel.port2.postMessage(0); else ${PAINT}; };
    channel.port2.postMessage(0);
  });`,
  'worker computing 40 ms': `addEventListener('load', () => {
    const worker = new Worker(URL.createObjectURL(new Blob(['onmessage = () => { const until = performance.now() + 40; while (performance.now() < until); postMessage(0); }'], { type: 'text/javascript' })));
    worker.onmessage = () => ${PAINT};
    worker.postMessage(0);
  });`,
  'image onload, then a fetch': `addEventListener('load', () => { const img = new Image(); img.onload = () => ${PAINT}; img.src = '/pixel.png'; });`,
};
const PIXEL = (() => {
  const png = new PNG({ width: 1, height: 1 });
  png.data.set([0, 0, 0, 255]);
  return PNG.sync.write(png);
})();
routes['/pixel.png'] = (res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL);
const gapPath = (name: string) => `/gap-${name.replace(/[^a-z0-9]+/g, '-')}`;
for (const [name, script] of Object.entries(OTHER_GAPS)) {
  routes[gapPath(name)] = (res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page(script));
}

function isGreen(png: Buffer): boolean {
  const image = PNG.sync.read(png);
  const i = (400 * image.width + 640) * 4;
  return image.data[i] === 0 && image.data[i + 1] === 128 && image.data[i + 2] === 0;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const server = createServer((req, res) => (routes[req.url ?? ''] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gaps = [...GAPS_IN_FRAMES.map((f) => [`${f} frames`, `/frames-${f}`]), ...Object.keys(OTHER_GAPS).map((name) => [name, gapPath(name)])];
  console.log(`| settle window | static page: settle ms (median, max) | ${gaps.map(([name]) => name).join(' | ')} |`);
  console.log(`|---|---|${gaps.map(() => '---|').join('')}`);
  for (const settleWindowMs of WINDOWS) {
    const capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 1, allowPrivateNetworks: true, settleWindowMs });
    await capturer.warmUp();
    try {
      const settles: number[] = [];
      for (let i = 0; i < RUNS; i++) settles.push((await capturer.capture(captureRequest(`${base}/static`))).settle?.ms ?? NaN);
      const complete: string[] = [];
      for (const [, path] of gaps) {
        let green = 0;
        for (let i = 0; i < RUNS; i++) if (isGreen((await capturer.capture(captureRequest(`${base}${path}`))).data)) green++;
        complete.push(`${green}/${RUNS}`);
      }
      console.log(`| ${settleWindowMs} ms | ${median(settles)} (${Math.max(...settles)}) | ${complete.join(' | ')} |`);
    } finally {
      await capturer.close();
    }
  }
  server.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
