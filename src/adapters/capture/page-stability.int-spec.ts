/**
 * Integration spec of wait_until (real headless Chromium, pages from a local HTTP server): the stability
 * wait captures content that arrives late, does not wait for pages that are already still, and gives up
 * at the cap on pages that never settle.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

import type { CaptureRequest, CaptureResult } from '../../modules/screenshots/application/capture.port';
import { captureRequest } from '../../../test/support/capture-request';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

jest.setTimeout(60_000);

const WHITE = [255, 255, 255];
const GREEN = [0, 128, 0];
const BLUE = [0, 0, 255];
/** The cap of the waits after load (networkIdleMaxWaitMs): the default. */
const CAP_MS = 3_000;

/** White until the script turns it green: a "Loading…" placeholder and its content. */
function page(script = '', body = ''): string {
  return `<!doctype html><html><head><style>html,body{margin:0;background:rgb(255,255,255)}</style></head>
<body>${body}<script>${script}</script></body></html>`;
}

/** Fetches /content (answered after 100 ms) from a timer `afterMs` after load, then shows it. */
function fetchedFromTimer(afterMs: number): string {
  return page(`addEventListener('load', () => setTimeout(async () => {
    const colour = await (await fetch('/content')).text();
    document.documentElement.style.background = colour;
  }, ${afterMs}));`);
}

function solidPng(rgb: number[]): Buffer {
  const png = new PNG({ width: 4, height: 4 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([...rgb, 255], i);
  return PNG.sync.write(png);
}

const PAGES: Record<string, (res: ServerResponse) => void> = {
  '/static': (res) => html(res, page('', '<h1>Nothing more to load</h1>')),
  '/timer-300': (res) => html(res, fetchedFromTimer(300)),
  '/timer-1000': (res) => html(res, fetchedFromTimer(1_000)),
  // Title, text and colour all change when content fetched from a timer 300 ms after load arrives.
  '/timer-text': (res) =>
    html(
      res,
      page(
        `addEventListener('load', () => setTimeout(async () => {
          const colour = await (await fetch('/content')).text();
          document.title = 'Arrived';
          document.body.insertAdjacentHTML('beforeend', '<p>The late paragraph</p>');
          document.documentElement.style.background = colour;
        }, 300));`,
        '<h1>Early heading</h1>',
      ),
    ),
  '/content': (res) => setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('rgb(0,128,0)'), 100),
  // Polls every 100 ms for ever, each poll setting the next timer: never still.
  '/polling': (res) => html(res, page(`(function poll() { fetch('/poll').then(() => setTimeout(poll, 100)); })();`)),
  '/poll': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('again'),
  // Green at once, with a spinner that turns for ever.
  '/animation': (res) =>
    html(
      res,
      `<!doctype html><html><head><style>html,body{margin:0;background:rgb(0,128,0)}
       @keyframes spin { to { transform: rotate(360deg) } }
       .spinner { width: 40px; height: 40px; border: 4px solid blue; animation: spin 1s linear infinite }</style></head>
       <body><div class="spinner"></div></body></html>`,
    ),
  // Three lazy images at the bottom of a long page, each slow to arrive.
  '/lazy-bottom': (res) =>
    html(
      res,
      page(
        '',
        '<div style="height:4000px"></div>' +
          [1, 2, 3].map((n) => `<img loading="lazy" src="/slow-blue.png?${n}" width="300" height="200" style="display:block">`).join(''),
      ),
    ),
  // Not lazy: requested while the document parses, so 'load' waits for it but 'domcontentloaded' does not.
  '/slow-image': (res) => html(res, page('', '<img src="/slow-blue.png" width="400" height="300" style="display:block">')),
  '/slow-blue.png': (res) => setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(solidPng(BLUE)), 400),
  // The selector matches at once, but what it shows (an image) arrives later.
  '/selector-image': (res) =>
    html(
      res,
      page(`setTimeout(() => document.body.insertAdjacentHTML('beforeend',
        '<img id="late" src="/slow-blue.png" width="400" height="300" style="display:block">'), 2500);`),
    ),
  // A click starts a fetch whose answer the scenario's screenshot must show.
  '/click-fetch': (res) =>
    html(
      res,
      page(
        `document.querySelector('#go').addEventListener('click', async () => {
           document.documentElement.style.background = await (await fetch('/content')).text();
         });`,
        '<button id="go">Go</button>',
      ),
    ),
};

function html(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}

function pixel(result: CaptureResult, x: number, y: number): number[] {
  const png = PNG.sync.read(result.data);
  const offset = (y * png.width + x) * 4;
  return [png.data[offset], png.data[offset + 1], png.data[offset + 2]];
}

describe('wait_until (real Chromium)', () => {
  let server: Server;
  let base: string;
  let capturer: PuppeteerPageCapturer;

  function request(path: string, overrides: Partial<CaptureRequest> = {}): CaptureRequest {
    return captureRequest(`${base}${path}`, overrides);
  }

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const route = PAGES[(req.url ?? '').split('?')[0]];
      if (route) route(res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 15_000, allowPrivateNetworks: true });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  describe('stable (the default)', () => {
    it('captures a static page without waiting the old 500 ms quiet window', async () => {
      const result = await capturer.capture(request('/static'));

      expect(result.settle).toEqual({ ms: expect.any(Number), capped: false });
      expect(result.settle!.ms).toBeLessThan(500);
    });

    it.each([
      ['300 ms', '/timer-300'],
      ['1 s', '/timer-1000'],
    ])('captures content fetched from a timer %s after load', async (_, path) => {
      const result = await capturer.capture(request(path));

      expect(pixel(result, 640, 400)).toEqual(GREEN);
      expect(result.settle!.capped).toBe(false);
    });

    it('reads the report and the visible text of the page the picture shows when the settle wait reads them itself', async () => {
      // A default capture has nothing between its settle wait and its picture: the wait's last probe reads the report.
      const result = await capturer.capture(request('/timer-text', { keepText: true }));

      expect(pixel(result, 640, 400)).toEqual(GREEN);
      expect(result.report).toMatchObject({ title: 'Arrived', settled: true });
      expect(result.text).toContain('Early heading');
      expect(result.text).toContain('The late paragraph');
    });

    it('reads the report after what changes the page past the settle wait (a style sheet), not at the wait', async () => {
      const result = await capturer.capture(request('/timer-text', { keepText: true, css: 'h1 { display: none }' }));

      expect(result.report).toMatchObject({ title: 'Arrived', settled: true });
      expect(result.text).not.toContain('Early heading');
      expect(result.text).toContain('The late paragraph');
    });

    it('captures a page that polls every 100 ms for ever at the cap', async () => {
      const result = await capturer.capture(request('/polling'));

      expect(result.settle!.capped).toBe(true);
      expect(result.settle!.ms).toBeGreaterThanOrEqual(CAP_MS - 50);
      expect(result.settle!.ms).toBeLessThan(CAP_MS + 1_000);
    });

    it('does not wait for an endless CSS animation', async () => {
      const result = await capturer.capture(request('/animation'));

      expect(pixel(result, 640, 400)).toEqual(GREEN);
      expect(result.settle!.ms).toBeLessThan(CAP_MS + 1_000);
    });

    it('loads the lazy images at the bottom of a full page', async () => {
      const result = await capturer.capture(request('/lazy-bottom', { fullPage: true }));

      expect([result.width, result.height]).toEqual([1280, 4600]);
      for (const y of [4100, 4300, 4500]) expect(pixel(result, 150, y)).toEqual(BLUE);
    });

    it('settles again after wait_for_selector matched, so what the element loads is in the picture', async () => {
      const result = await capturer.capture(request('/selector-image', { waitForSelector: '#late' }));

      expect(pixel(result, 200, 150)).toEqual(BLUE);
    });

    it('settles a scenario page after goto and before each screenshot', async () => {
      const shots = await capturer.withPage({ viewportWidth: 800, viewportHeight: 600 }, async (tab) => {
        await tab.goto(`${base}/timer-300`);
        const loaded = await tab.screenshot({ fullPage: false });
        await tab.goto(`${base}/click-fetch`);
        await tab.click('#go');
        return [loaded, await tab.screenshot({ fullPage: false })];
      });

      expect(shots.map((shot) => pixel(shot, 400, 500))).toEqual([GREEN, GREEN]);
    });
  });

  describe('the other choices', () => {
    it('load: captures at the load event, before content fetched later', async () => {
      const result = await capturer.capture(request('/timer-300', { waitUntil: 'load' }));

      expect(pixel(result, 640, 400)).toEqual(WHITE);
      expect(result.settle).toEqual({ ms: 0, capped: false });
    });

    it('domcontentloaded: captures before the images have arrived; load waits for them', async () => {
      const early = await capturer.capture(request('/slow-image', { waitUntil: 'domcontentloaded' }));
      const loaded = await capturer.capture(request('/slow-image', { waitUntil: 'load' }));

      expect(pixel(early, 200, 150)).not.toEqual(BLUE);
      expect(pixel(loaded, 200, 150)).toEqual(BLUE);
    });

    it('network_idle: waits for 500 ms of network quiet, even on a static page', async () => {
      const result = await capturer.capture(request('/static', { waitUntil: 'network_idle' }));

      expect(result.settle!.ms).toBeGreaterThanOrEqual(500);
      expect(result.settle!.capped).toBe(false);
    });

    it('network_idle: captures content fetched 300 ms after load, as before', async () => {
      const result = await capturer.capture(request('/timer-300', { waitUntil: 'network_idle' }));

      expect(pixel(result, 640, 400)).toEqual(GREEN);
    });
  });
});
