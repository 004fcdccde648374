/**
 * Integration spec: the page options of the third round in real Chromium against pages served on 127.0.0.1 —
 * scripts, click, remove_selectors, block_requests, block_chat_widgets, reduced_motion, media_type and
 * output_width / output_height. Effects are read where they land: the picture's pixels, or the requests a server
 * received (a blocked request is one that never arrived).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { HostResolver } from '../../shared/url-policy';
import type { CaptureRequest } from '../../modules/screenshots/application/capture.port';
import { captureRequest } from '../../../test/support/capture-request';
import { PageServer } from '../../../test/support/page-server';
import { decodeImage, GREEN, RED, type Rgb } from '../../../test/support/images';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

jest.setTimeout(90_000);

const BLUE_: Rgb = [0, 0, 255];
const WHITE: Rgb = [255, 255, 255];
// Hosts reachable over plain http (not HSTS-preloaded), each a chat widget of the tracker database.
const CHAT_WIDGETS = [
  ['embed.tawk.to', '/default.js'],
  ['js.driftt.com', '/include/x.js'],
  ['cdn.livechatinc.com', '/tracking.js'],
] as const;
const CHAT_HOSTS: string[] = CHAT_WIDGETS.map(([host]) => host);
const CDN_HOST = 'cdn.jsdelivr.net';

const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

const page = (style: string, body: string): string => `<!doctype html><html><head><style>html,body{margin:0}${style}</style></head><body>${body}</body></html>`;

/** Answers after 300 ms: a request the stability wait must wait for. */
function slow(_req: IncomingMessage, res: ServerResponse): void {
  setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('ok'), 300);
}

function png(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' }).end(PNG_1PX);
}

function script(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/javascript' }).end('/* ok */');
}

describe('page options (real Chromium)', () => {
  let pages: PageServer;
  /** Where third-party hosts (chat widgets, a CDN) land, by their real names through a stub resolver. */
  let thirdParties: PageServer;
  let capturer: PuppeteerPageCapturer;

  const resolveHost: HostResolver = async (hostname) => {
    if ([...CHAT_HOSTS, CDN_HOST, 'localhost'].includes(hostname)) return ['127.0.0.1'];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };

  const request = (path: string, overrides: Partial<CaptureRequest> = {}): CaptureRequest =>
    captureRequest(`${pages.url}${path}`, { viewportWidth: 400, viewportHeight: 300, ...overrides });

  async function pixel(overrides: Partial<CaptureRequest>, path: string, x = 10, y = 10): Promise<Rgb> {
    const result = await capturer.capture(request(path, overrides));
    return (await decodeImage(result.data)).at(x, y);
  }

  beforeAll(async () => {
    thirdParties = await new PageServer({ ...Object.fromEntries(CHAT_WIDGETS.map(([, path]) => [path, script])), '/npm/lib.js': script }).start();
    const p = thirdParties.url.split(':')[2];
    pages = await new PageServer({
      '/white': page('body{background:#fff;height:300px}', ''),
      '/slow': slow,
      '/img/ok.png': png,
      '/ads/banner.png': png,
      '/images': page('', '<img src="/img/ok.png" width="5" height="5"><img src="/ads/banner.png" width="5" height="5">'),
      '/clicks': page(
        '#box{width:400px;height:300px;background:red}',
        `<div id="box"></div><button id="first" onclick="document.getElementById('box').style.background='blue'">1</button>` +
          `<button id="second" onclick="if (document.getElementById('box').style.background==='blue') fetch('/slow').then(() => { document.getElementById('box').style.background='rgb(0,200,0)' })">2</button>`,
      ),
      '/layout': page('#header{height:100px;background:red}#main{height:400px;background:rgb(0,200,0)}', '<div id="header"></div><div id="main"></div>'),
      '/media': page(
        'body{background:red;height:300px}@media print{body{background:rgb(0,200,0)}}' +
          '#d{position:absolute;left:200px;top:0;width:200px;height:300px;background:red}@media (prefers-color-scheme: dark){#d{background:blue}}',
        '<div id="d"></div>',
      ),
      '/motion': page(
        'body{height:300px}#m{height:300px;background:red;transition:background 10s}@media (prefers-reduced-motion: reduce){#m{background:rgb(0,200,0)}}',
        '<div id="m"></div>',
      ),
      '/quadrants': page(
        '#l{position:absolute;left:0;top:0;width:200px;height:300px;background:red}#r{position:absolute;left:200px;top:0;width:200px;height:300px;background:blue}',
        '<div id="l"></div><div id="r"></div>',
      ),
      '/chat': page(
        '',
        `<h1>Shop</h1>${CHAT_WIDGETS.map(([host, path]) => `<script src="http://${host}:${p}${path}"></script>`).join('')}` +
          `<script src="http://${CDN_HOST}:${p}/npm/lib.js"></script>`,
      ),
    }).start();
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 15_000, allowPrivateNetworks: true }, { resolveHost });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    await pages.stop();
    await thirdParties.stop();
  });

  beforeEach(() => {
    pages.requests.length = 0;
    thirdParties.requests.length = 0;
  });

  describe('scripts', () => {
    it('run in the page once it settled, in order, awaited; what they start is settled for before the picture', async () => {
      const scripts = [
        `await new Promise((resolve) => setTimeout(resolve, 50)); document.body.style.background = 'blue';`,
        // Not awaited: the stability wait after the scripts waits for this request and its effect.
        `if (document.body.style.background === 'blue') fetch('/slow').then(() => { document.body.style.background = 'rgb(0,200,0)'; });`,
      ];

      expect(await pixel({}, '/white')).toEqual(WHITE);
      expect(await pixel({ scripts }, '/white')).toEqual(GREEN);
      expect(pages.requests).toContain('/slow');
    });

    it('a script that throws fails the capture naming it and its error', async () => {
      await expect(capturer.capture(request('/white', { scripts: ['1 + 1', 'nope.call()'] }))).rejects.toMatchObject({
        kind: 'page',
        message: expect.stringMatching(/^scripts\[1\] failed: ReferenceError: nope is not defined/),
      });
      await expect(capturer.capture(request('/white', { scripts: ['await Promise.reject(new Error("no stock"))'] }))).rejects.toThrow(
        'scripts[0] failed: Error: no stock',
      );
      await expect(capturer.capture(request('/white', { scripts: ['this is not javascript'] }))).rejects.toThrow(/^scripts\[0\] failed: SyntaxError/);
    });
  });

  describe('click', () => {
    it('clicks the selectors in order, and the page settles after each', async () => {
      expect(await pixel({}, '/clicks')).toEqual(RED);
      // The second button only turns the box green (after a 300 ms request) when the first was clicked before it.
      expect(await pixel({ click: ['#second', '#first'] }, '/clicks')).toEqual(BLUE_);
      expect(await pixel({ click: ['#first', '#second'] }, '/clicks')).toEqual(GREEN);
    });

    it('a selector matching nothing fails the capture naming it', async () => {
      await expect(capturer.capture(request('/clicks', { click: ['#first', '#checkout'] }))).rejects.toMatchObject({
        kind: 'page',
        message: 'Click target not found: #checkout',
      });
    });
  });

  it('remove_selectors frees the space the element took (hide_selectors keeps it)', async () => {
    expect(await pixel({}, '/layout')).toEqual(RED);
    expect(await pixel({ hideSelectors: ['#header'] }, '/layout')).toEqual(WHITE);
    expect(await pixel({ removeSelectors: ['#header'] }, '/layout')).toEqual(GREEN);
  });

  it('block_requests: a URL matching a pattern is never requested; the others are', async () => {
    await capturer.capture(request('/images', { waitUntil: 'network_idle' }));
    expect(pages.requests).toEqual(expect.arrayContaining(['/img/ok.png', '/ads/banner.png']));

    pages.requests.length = 0;
    // With request interception on too (block_ads), the list still applies.
    await capturer.capture(request('/images', { waitUntil: 'network_idle', blockRequests: ['*/ads/*'], blockAds: true }));
    expect(pages.requests).toContain('/img/ok.png');
    expect(pages.requests).not.toContain('/ads/banner.png');
  });

  it('block_chat_widgets: chat widgets (Tawk, Drift, LiveChat) are never requested; an ordinary CDN is', async () => {
    const host = (path: string) => (path === '/npm/lib.js' ? CDN_HOST : path);
    await capturer.capture(request('/chat', { waitUntil: 'network_idle' }));
    expect(thirdParties.requests.map(host).sort()).toEqual([...CHAT_WIDGETS.map(([, path]) => path), CDN_HOST].sort());

    thirdParties.requests.length = 0;
    await capturer.capture(request('/chat', { waitUntil: 'network_idle', blockChatWidgets: true }));
    expect(thirdParties.requests.map(host)).toEqual([CDN_HOST]);
  });

  it('reduced_motion: prefers-reduced-motion: reduce applies', async () => {
    expect(await pixel({}, '/motion')).toEqual(RED);
    expect(await pixel({ reducedMotion: true }, '/motion')).toEqual(GREEN);
  });

  it('media_type print applies the print style sheet, together with dark_mode', async () => {
    expect(await pixel({}, '/media')).toEqual(RED);
    expect(await pixel({ mediaType: 'print' }, '/media')).toEqual(GREEN);
    const result = await capturer.capture(request('/media', { mediaType: 'print', darkMode: true }));
    const image = await decodeImage(result.data);
    expect([image.at(10, 10), image.at(300, 10)]).toEqual([GREEN, BLUE_]);
    expect(await pixel({ mediaType: 'screen', darkMode: true, reducedMotion: true }, '/media', 300, 10)).toEqual(BLUE_);
  });

  describe('output_width / output_height', () => {
    it('one side keeps the aspect ratio; both give exactly that size; the picture is the page, scaled', async () => {
      const resized = async (overrides: Partial<CaptureRequest>) => {
        const result = await capturer.capture(request('/quadrants', overrides));
        const image = await decodeImage(result.data);
        expect([result.width, result.height]).toEqual([image.width, image.height]);
        return { result, image };
      };

      const half = await resized({ outputWidth: 200 });
      expect([half.image.width, half.image.height]).toEqual([200, 150]);
      expect([half.image.at(50, 75), half.image.at(150, 75)]).toEqual([RED, BLUE_]);

      const tall = await resized({ outputHeight: 600 });
      expect([tall.image.width, tall.image.height]).toEqual([800, 600]);

      const exact = await resized({ outputWidth: 100, outputHeight: 500 });
      expect([exact.image.width, exact.image.height]).toEqual([100, 500]);
      expect([exact.image.at(20, 250), exact.image.at(80, 250)]).toEqual([RED, BLUE_]);

      const jpeg = await resized({ outputWidth: 160, output: { format: 'jpeg', quality: 90, pdf: null, omitBackground: false } });
      expect([jpeg.result.format, jpeg.image.format, jpeg.image.width, jpeg.image.height]).toEqual(['jpeg', 'jpeg', 160, 120]);
    });

    it('a side derived from the aspect ratio is bounded too: a 16 px strip widened to 8192 px is refused before sharp works', async () => {
      const started = Date.now();
      const strip = capturer.capture(request('/quadrants', { clip: { x: 0, y: 0, width: 16, height: 300 }, outputWidth: 8192 }));
      await expect(strip).rejects.toThrow('The resized picture would be 8192×153600 px, over the limit of 100 million pixels');
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  });
});

describe('scripts under the URL policy (real Chromium, private networks refused)', () => {
  let pages: PageServer;
  let allowedElsewhere: PageServer;
  let refused: PageServer;
  let capturer: PuppeteerPageCapturer;

  beforeAll(async () => {
    refused = await new PageServer({ '/secret': slow, '/pixel.png': png }).start();
    allowedElsewhere = await new PageServer({ '/data': slow, '/pixel.png': png }).start();
    pages = await new PageServer({ '/white': page('body{background:#fff;height:300px}', '') }).start();
    // 127.0.0.1 is private: only the allowlisted origins are reachable, as a public site would be.
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 15_000, urlAllowlist: [pages.url, allowedElsewhere.url] });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    for (const server of [pages, allowedElsewhere, refused]) await server.stop();
  });

  it("a script's fetch and image to a refused address never reach it; the same to an allowed one do", async () => {
    const reach = (origin: string) =>
      `await fetch('${origin}/secret', { mode: 'no-cors' }).catch(() => undefined);` +
      `await fetch('${origin}/data', { mode: 'no-cors' }).catch(() => undefined);` +
      `await new Promise((resolve) => { const img = new Image(); img.onload = img.onerror = resolve; img.src = '${origin}/pixel.png'; });`;

    const result = await capturer.capture(captureRequest(`${pages.url}/white`, { scripts: [reach(refused.url), reach(allowedElsewhere.url)] }));

    expect(result.format).toBe('png');
    expect(refused.requests).toEqual([]);
    expect(allowedElsewhere.requests).toEqual(expect.arrayContaining(['/data', '/pixel.png']));
  });
});
