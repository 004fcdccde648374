/**
 * What an upstream proxy costs a capture (issue 44: "a capture through a local proxy within 15 % of a direct one").
 *
 * One capturer (1 browser, one capture at a time, the service's own PuppeteerPageCapturer with its egress guard) takes
 * the same local page — HTML, a stylesheet and 12 images, all from one loopback server — alternately straight out,
 * through proxy-chain (HTTP, Basic credentials) and through simple-socks (SOCKS5, credentials), each started as a real
 * server in a child process. Warm-up first, then ROUNDS rounds, each mode once per round in turn, so drift on a shared
 * machine hits all three alike. Reports each mode's median and p90 wall time and the ratio to direct.
 *
 * Run: npx ts-node --transpile-only bench/proxy-bench.ts [rounds=30]
 */
import { PNG } from 'pngjs';
import { maskProxy, parseProxyUrl, type ProxyUrl } from '../src/shared/domain/proxy-url';
import { PuppeteerPageCapturer } from '../src/adapters/capture/puppeteer-page-capturer';
import { captureRequest } from '../test/support/capture-request';
import { PageServer } from '../test/support/page-server';
import { startHttpProxy, startSocksProxy } from '../test/support/proxy-servers';

const ROUNDS = Number(process.argv[2] ?? 30);
const WARM_UP = 3;
const IMAGES = 12;
const CREDENTIALS = { username: 'bench', password: 'bench-secret' };

function tile(seed: number): Buffer {
  const png = new PNG({ width: 64, height: 64 });
  for (let i = 0; i < png.data.length; i += 4) {
    png.data[i] = (seed * 40 + i) % 256;
    png.data[i + 1] = (seed * 90) % 256;
    png.data[i + 2] = (i >> 4) % 256;
    png.data[i + 3] = 255;
  }
  return PNG.sync.write(png);
}

function page(): Record<string, string | ((req: unknown, res: import('node:http').ServerResponse) => void)> {
  const routes: Record<string, string | ((req: unknown, res: import('node:http').ServerResponse) => void)> = {
    '/': `<!doctype html><html><head><title>bench</title><link rel="stylesheet" href="/style.css"></head><body><h1>Proxy bench</h1>${Array.from(
      { length: IMAGES },
      (_, i) => `<img src="/img/${i}.png" width="64" height="64">`,
    ).join('')}<p>${'Lorem ipsum dolor sit amet. '.repeat(200)}</p></body></html>`,
    '/style.css': (_req, res) => res.writeHead(200, { 'content-type': 'text/css' }).end('body{font:16px sans-serif;margin:20px}img{margin:4px}'),
  };
  for (let i = 0; i < IMAGES; i++) {
    const bytes = tile(i);
    routes[`/img/${i}.png`] = (_req, res) => res.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length }).end(bytes);
  }
  return routes;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main(): Promise<void> {
  const pages = await new PageServer(page()).start();
  const http = await startHttpProxy(CREDENTIALS);
  const socks = await startSocksProxy(CREDENTIALS);
  const capturer = new PuppeteerPageCapturer({
    browsers: 1,
    concurrency: 1,
    allowPrivateNetworks: true,
    ...(process.env.BENCH_NO_PREWARM ? { prewarm: false } : {}),
  });
  const modes: Array<{ name: string; proxy?: ProxyUrl }> = [
    { name: 'direct' },
    { name: 'http proxy (proxy-chain)', proxy: parseProxyUrl(http.url)! },
    { name: 'socks5 proxy (simple-socks)', proxy: parseProxyUrl(socks.url)! },
  ];
  const times = new Map<string, number[]>(modes.map((m) => [m.name, []]));
  try {
    for (let round = -WARM_UP; round < ROUNDS; round++) {
      for (const mode of modes) {
        const started = performance.now();
        const result = await capturer.capture(captureRequest(`${pages.url}/`, mode.proxy ? { proxy: mode.proxy } : {}));
        const ms = performance.now() - started;
        if (result.data.length === 0) throw new Error(`${mode.name}: empty capture`);
        if ((result.report?.proxy ?? null) !== (mode.proxy ? maskProxy(mode.proxy) : null)) throw new Error(`${mode.name}: the report names another proxy`);
        if (round >= 0) times.get(mode.name)!.push(ms);
        if (round >= 0 && process.env.BENCH_TIMING) console.log(mode.name, Math.round(ms), JSON.stringify(result.timing));
      }
    }
    // proxy-chain logs every plain-HTTP request; simple-socks one line per SOCKS connection, and those are kept alive
    // per destination across captures (egress-proxy.ts, SocksAgent), so a few carry all the rounds.
    if (http.seen.length < ROUNDS || socks.seen.length === 0) throw new Error('the proxies did not see the captures');
    const direct = quantile(times.get('direct')!, 0.5);
    console.log(`proxy bench: ${ROUNDS} rounds after ${WARM_UP} warm-up, 1 browser, one capture at a time, a page of ${IMAGES + 2} requests`);
    for (const mode of modes) {
      const values = times.get(mode.name)!;
      const median = quantile(values, 0.5);
      console.log(
        `${mode.name.padEnd(28)} median ${median.toFixed(0).padStart(5)} ms  p90 ${quantile(values, 0.9).toFixed(0).padStart(5)} ms  ratio ${(median / direct).toFixed(3)}`,
      );
    }
  } finally {
    await capturer.close();
    await http.stop();
    await socks.stop();
    await pages.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
