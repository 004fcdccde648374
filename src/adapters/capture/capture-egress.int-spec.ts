/**
 * Integration spec: the URL policy enforced inside real Chromium through the egress proxy, and the
 * defences against hostile pages (popups, downloads, dialogs, service workers, WebRTC).
 *
 * Two loopback servers: the page server, whose origin is allowlisted, and a second "internal" server
 * that no capture may reach while the policy is on. The second server counts TCP connections, so any
 * leak (a request, a WebSocket upgrade, a preconnect) is visible. Nothing here touches the internet:
 * host names go through a stub resolver, and every server listens on 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { once } from 'node:events';
import { homedir, tmpdir } from 'node:os';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PNG } from 'pngjs';

import type { HostResolver } from '../../shared/url-policy';
import { launch } from 'puppeteer';

import { BrowserPool, CHROME_ARGS } from './browser-pool';
import { CaptureFailure, type CaptureRequest, type CaptureResult } from '../../modules/screenshots/application/capture.port';
import { findChrome, resolveCaptureSettings } from './capture-options';
import { EgressProxy } from './egress-proxy';
import { captureRequest } from '../../../test/support/capture-request';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

jest.setTimeout(60_000);

const GREEN = [0, 128, 0];
const RED = [255, 0, 0];
const LOOPBACK_REFUSED = 'blocked by URL policy: url resolves to a loopback address';
const DOWNLOAD_NAME = `egress-spec-download-${process.pid}-${Date.now()}.bin`;

function html(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}

function greenPage(extra: string): string {
  return `<!doctype html><html><head><style>html,body{margin:0;background:rgb(0,128,0)}
  iframe,img{width:200px;height:100px;border:0}</style></head><body>${extra}</body></html>`;
}

/** The "internal" server: counts connections and requests, and accepts WebSocket upgrades. */
class InternalServer {
  connections = 0;
  readonly requests: string[] = [];
  private readonly server: Server;
  /** Upgraded sockets leave the HTTP server's bookkeeping, so closeAllConnections() would miss them. */
  private readonly upgraded = new Set<Socket>();

  constructor() {
    this.server = createServer((req, res) => {
      this.requests.push(req.url ?? '');
      html(res, '<!doctype html><body style="margin:0;background:rgb(255,0,0)">internal secret</body>');
    });
    this.server.on('connection', () => this.connections++);
    this.server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
      this.requests.push(`upgrade ${req.url ?? ''}`);
      const accept = createHash('sha1')
        .update(`${String(req.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
        .digest('base64');
      socket.on('error', () => undefined);
      this.upgraded.add(socket);
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    });
  }

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  reset(): void {
    this.connections = 0;
    this.requests.length = 0;
  }

  async stop(): Promise<void> {
    for (const socket of this.upgraded) socket.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The allowlisted page server. Pages report what they saw to /report?..., which the test reads. */
class PageServer {
  readonly reports: string[] = [];
  readonly requests: string[] = [];
  private readonly server: Server;

  constructor(
    private readonly internal: () => string,
    private readonly internalPort: () => number,
    private readonly udpPort: () => number,
  ) {
    this.server = createServer((req, res) => this.serve(req, res));
  }

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://page.test');
    this.requests.push(url.pathname);
    const internal = this.internal();
    const report = `function report(what) { return fetch('${this.origin}/report?' + encodeURIComponent(what)); }`;
    switch (url.pathname) {
      case '/report':
        this.reports.push(decodeURIComponent(url.search.slice(1)));
        res.writeHead(204, { 'access-control-allow-origin': '*' });
        res.end();
        return;
      case '/green':
        return html(res, greenPage(''));
      case '/redirect':
        res.writeHead(302, { location: `${internal}/landing` });
        res.end();
        return;
      case '/redirect-https':
        res.writeHead(302, { location: `https://127.0.0.1:${this.internalPort()}/landing` });
        res.end();
        return;
      case '/redirect-rebind':
        res.writeHead(302, { location: `http://rebind.test:${this.internalPort()}/landing` });
        res.end();
        return;
      case '/embeds':
        return html(
          res,
          greenPage(`<img src="${internal}/img.png"><iframe src="${internal}/frame"></iframe>
          <img src="http://rebind.test:${this.internalPort()}/rebind.png">
          <link rel="stylesheet" href="${internal}/style.css"><script src="${internal}/script.js"></script>`),
        );
      case '/fetch':
        return html(
          res,
          greenPage(`<script>${report}
          Promise.allSettled([
            fetch('${internal}/api', { mode: 'no-cors' }),
            new Promise((resolve) => { const x = new XMLHttpRequest(); x.open('GET', '${internal}/xhr');
              x.onloadend = resolve; x.send(); }),
            navigator.sendBeacon('${internal}/beacon', 'x'),
          ]).then(() => report('fetch-done'));
        </script>`),
        );
      case '/websocket':
        return html(
          res,
          greenPage(`<script>${report}
          for (const url of ['ws://127.0.0.1:${this.internalPort()}/ws', 'wss://127.0.0.1:${this.internalPort()}/wss']) {
            const ws = new WebSocket(url);
            ws.onopen = () => report('ws-open ' + url);
            ws.onerror = () => report('ws-error ' + url);
          }
        </script>`),
        );
      case '/popup':
        return html(res, greenPage(`<script>window.open('${internal}/popup'); window.open('${internal}/popup2', '_blank', 'noopener');</script>`));
      case '/popup-self':
        return html(res, greenPage(`<script>window.open('/green');</script>`));
      case '/navigates-later':
        // After load, the page sends itself to the internal server.
        return html(res, greenPage(`<script>addEventListener('load', () => setTimeout(() => { location.href = '${internal}/later'; }, 50));</script>`));
      case '/link':
        return html(res, greenPage(`<a id="go" href="${internal}/clicked" style="display:block;height:50px">go</a>`));
      case '/service-worker':
        return html(
          res,
          greenPage(`<iframe src="http://localhost:${this.port}/sw-frame"></iframe><script>${report}
          report('main sw ' + ('serviceWorker' in navigator));
          const blank = document.createElement('iframe');
          document.body.append(blank);
          report('blank sw ' + ('serviceWorker' in blank.contentWindow.navigator));
          for (const nav of [navigator, blank.contentWindow.navigator]) {
            try { nav.serviceWorker.register('/sw.js').then(() => report('registered'), (e) => report('register failed ' + e)); }
            catch (e) { report('register threw'); }
          }
        </script>`),
        );
      case '/sw-frame':
        return html(res, `<script>${report} report('cross-site frame sw ' + ('serviceWorker' in navigator));</script>`);
      case '/sw.js':
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end('self.addEventListener("fetch", () => {});');
        return;
      case '/webrtc':
        return html(
          res,
          greenPage(`<script>
          const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${this.udpPort()}' }] });
          pc.createDataChannel('x');
          const done = () => { if (!document.getElementById('done')) document.body.insertAdjacentHTML('beforeend', '<p id="done"></p>'); };
          pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') done(); };
          pc.createOffer().then((offer) => pc.setLocalDescription(offer));
          setTimeout(done, 1500);
        </script>`),
        );
      case '/download':
        res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-disposition': `attachment; filename="${DOWNLOAD_NAME}"`,
        });
        res.end(Buffer.alloc(4096, 7));
        return;
      case '/download-embed':
        return html(
          res,
          greenPage(`<iframe src="/download"></iframe><a id="dl" href="/download" download="${DOWNLOAD_NAME}">x</a>
          <script>document.getElementById('dl').click();</script>`),
        );
      case '/beforeunload':
        return html(
          res,
          greenPage(`<button id="b" style="width:100px;height:40px">b</button><script>
          addEventListener('beforeunload', (event) => { event.preventDefault(); event.returnValue = 'stay'; });
          document.getElementById('b').addEventListener('click', () => { document.title = 'clicked'; });
        </script>`),
        );
      default:
        res.writeHead(404);
        res.end();
    }
  }
}

function pixel(result: CaptureResult, x: number, y: number): number[] {
  const png = PNG.sync.read(result.data);
  const offset = (y * png.width + x) * 4;
  return [png.data[offset], png.data[offset + 1], png.data[offset + 2]];
}

async function failureOf(promise: Promise<unknown>): Promise<{ kind: string; message: string }> {
  const error: unknown = await promise.then(
    () => new Error('expected the capture to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CaptureFailure);
  const failure = error as CaptureFailure;
  return { kind: failure.kind, message: failure.message };
}

async function eventually(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Files named `name` under the places a browser could save a download to. */
function filesNamed(name: string, roots: string[]): string[] {
  return roots.flatMap((root) => {
    try {
      return execFileSync('find', [root, '-xdev', '-maxdepth', '6', '-name', `${name}*`], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .split('\n')
        .filter((line) => line !== '');
    } catch (error) {
      // find exits non-zero on unreadable directories but still prints what it found.
      const stdout = (error as { stdout?: string }).stdout ?? '';
      return stdout.split('\n').filter((line) => line !== '');
    }
  });
}

describe('URL policy inside Chromium (egress proxy)', () => {
  let internal: InternalServer;
  let pages: PageServer;
  let udp: UdpSocket;
  let udpPackets = 0;
  const resolveHost: HostResolver = async (hostname) => {
    if (hostname === 'rebind.test' || hostname === 'localhost') return ['127.0.0.1'];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };

  function request(url: string, overrides: Partial<CaptureRequest> = {}): CaptureRequest {
    return captureRequest(url, { viewportWidth: 800, viewportHeight: 600, ...overrides });
  }

  beforeAll(async () => {
    internal = await new InternalServer().start();
    udp = createSocket('udp4');
    udp.on('message', () => udpPackets++);
    udp.bind(0, '127.0.0.1');
    await once(udp, 'listening');
    pages = await new PageServer(
      () => `http://127.0.0.1:${internal.port}`,
      () => internal.port,
      () => udp.address().port,
    ).start();
  });

  afterAll(async () => {
    await internal.stop();
    await pages.stop();
    udp.close();
  });

  beforeEach(() => {
    internal.reset();
    pages.reports.length = 0;
    pages.requests.length = 0;
    udpPackets = 0;
  });

  describe('policy on, only the page server allowlisted', () => {
    let capturer: PuppeteerPageCapturer;

    beforeAll(async () => {
      capturer = new PuppeteerPageCapturer(
        {
          browsers: 1,
          concurrency: 2,
          timeoutMs: 8_000,
          allowPrivateNetworks: false,
          // The cross-site frame of the service-worker page is served from localhost.
          urlAllowlist: [pages.origin, `http://localhost:${pages.port}`],
        },
        { resolveHost },
      );
      await capturer.warmUp();
    });

    afterAll(async () => {
      await capturer.close();
    });

    it('captures the allowlisted page', async () => {
      expect(pixel(await capturer.capture(request(`${pages.origin}/green`)), 10, 10)).toEqual(GREEN);
    });

    it('refuses the internal server as the capture URL itself', async () => {
      expect(await failureOf(capturer.capture(request(`http://127.0.0.1:${internal.port}/`)))).toEqual({
        kind: 'page',
        message: LOOPBACK_REFUSED,
      });
      expect(internal.connections).toBe(0);
    });

    it('(a) fails a capture whose page redirects to the internal server, without a screenshot', async () => {
      expect(await failureOf(capturer.capture(request(`${pages.origin}/redirect`)))).toEqual({
        kind: 'page',
        message: LOOPBACK_REFUSED,
      });
      expect(internal.connections).toBe(0);
    });

    it('(a) explains a refused https redirect (a refused CONNECT) the same way', async () => {
      expect(await failureOf(capturer.capture(request(`${pages.origin}/redirect-https`)))).toEqual({
        kind: 'page',
        message: LOOPBACK_REFUSED,
      });
      expect(internal.connections).toBe(0);
    });

    it('(b) captures a page embedding internal images, frames, styles and scripts, without them', async () => {
      const result = await capturer.capture(request(`${pages.origin}/embeds`));

      expect(pixel(result, 400, 300)).toEqual(GREEN);
      expect(internal.connections).toBe(0);
    });

    it('(c) captures a page that fetch()es, XHRs and beacons to the internal server, without a request arriving', async () => {
      const result = await capturer.capture(request(`${pages.origin}/fetch`));
      await eventually(() => pages.reports.includes('fetch-done'), 'the page to finish its requests');

      expect(pixel(result, 10, 10)).toEqual(GREEN);
      expect(internal.connections).toBe(0);
    });

    it('(d) captures a page that opens ws:// and wss:// sockets to the internal server, which never sees an upgrade', async () => {
      const result = await capturer.capture(request(`${pages.origin}/websocket`));
      await eventually(() => pages.reports.length === 2, 'both sockets to settle');

      expect(pixel(result, 10, 10)).toEqual(GREEN);
      expect(pages.reports.sort()).toEqual([`ws-error ws://127.0.0.1:${internal.port}/ws`, `ws-error wss://127.0.0.1:${internal.port}/wss`].sort());
      expect(internal.connections).toBe(0);
    });

    it('(e) captures a page that window.open()s the internal server, which receives nothing', async () => {
      const result = await capturer.capture(request(`${pages.origin}/popup`));

      expect(pixel(result, 10, 10)).toEqual(GREEN);
      expect(internal.connections).toBe(0);
    });

    it('fails a capture whose page navigates itself to the internal server after load', async () => {
      expect(await failureOf(capturer.capture(request(`${pages.origin}/navigates-later`)))).toEqual({
        kind: 'page',
        message: LOOPBACK_REFUSED,
      });
      expect(internal.connections).toBe(0);
    });

    it('refuses a name that resolves to loopback (DNS rebinding), as the URL, a redirect and a subresource', async () => {
      const outcomes = await Promise.all([
        failureOf(capturer.capture(request(`http://rebind.test:${internal.port}/`))),
        failureOf(capturer.capture(request(`${pages.origin}/redirect-rebind`))),
        capturer.capture(request(`${pages.origin}/embeds`)),
      ]);

      expect(outcomes.slice(0, 2)).toEqual([
        { kind: 'page', message: LOOPBACK_REFUSED },
        { kind: 'page', message: LOOPBACK_REFUSED },
      ]);
      expect(internal.connections).toBe(0);
    });

    it('scenario pages: goto() to the internal server fails, and so does a screenshot after a click leads there', async () => {
      await capturer.withPage({ viewportWidth: 800, viewportHeight: 600 }, async (page) => {
        expect(await failureOf(page.goto(`http://127.0.0.1:${internal.port}/x`))).toEqual({
          kind: 'page',
          message: LOOPBACK_REFUSED,
        });
        await page.goto(`${pages.origin}/link`);
        await page.click('#go');
        await eventually(() => page.url().endsWith('/clicked'), 'the click to navigate');
        expect(await failureOf(page.screenshot({ fullPage: false }))).toEqual({
          kind: 'page',
          message: LOOPBACK_REFUSED,
        });
      });
      expect(internal.connections).toBe(0);
    });

    it('removes the service-worker API in every frame, so no worker script is ever fetched', async () => {
      await capturer.capture(request(`${pages.origin}/service-worker`));
      await eventually(() => pages.reports.some((r) => r.startsWith('cross-site frame')), 'the frame to report');

      expect(pages.reports).toEqual(expect.arrayContaining(['main sw false', 'blank sw false', 'cross-site frame sw false']));
      expect(pages.reports.filter((r) => r.startsWith('register'))).toEqual(['register threw', 'register threw']);
      expect(pages.requests).not.toContain('/sw.js');
    });

    it('keeps WebRTC from sending UDP past the proxy', async () => {
      const result = await capturer.capture(request(`${pages.origin}/webrtc`, { waitForSelector: '#done' }));

      expect(pixel(result, 10, 10)).toEqual(GREEN);
      expect(udpPackets).toBe(0);
    });
  });

  it('fails closed: with the proxy gone, Chromium falls back to no direct connection', async () => {
    const proxy = await new EgressProxy({ allowPrivateNetworks: true, allowlist: [] }).start();
    const browser = await launch({
      executablePath: findChrome(),
      headless: 'shell',
      pipe: true,
      args: [...CHROME_ARGS, ...proxy.chromiumArgs()],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${pages.origin}/green`);
      await proxy.close();

      const outcome = await page.goto(`http://127.0.0.1:${internal.port}/direct`).then(
        () => 'loaded',
        (error: Error) => error.message,
      );

      expect(outcome).toMatch(/^net::ERR_PROXY_CONNECTION_FAILED/);
      expect(internal.connections).toBe(0);
    } finally {
      await browser.close();
    }
  });

  describe('policy off (allowPrivateNetworks: true): the same pages reach the internal server', () => {
    let capturer: PuppeteerPageCapturer;

    beforeAll(async () => {
      capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 8_000, allowPrivateNetworks: true }, { resolveHost });
      await capturer.warmUp();
    });

    afterAll(async () => {
      await capturer.close();
    });

    it('follows the redirect and captures the internal page', async () => {
      const result = await capturer.capture(request(`${pages.origin}/redirect`));

      expect(pixel(result, 400, 300)).toEqual(RED);
      expect(internal.requests).toEqual(['/landing']);
    });

    it('loads embeds, fetches and WebSockets from it', async () => {
      await capturer.capture(request(`${pages.origin}/embeds`));
      await capturer.capture(request(`${pages.origin}/fetch`));
      await capturer.capture(request(`${pages.origin}/websocket`));
      await eventually(() => pages.reports.some((r) => r.startsWith('ws-open')), 'the ws:// socket to open');

      expect(internal.requests).toEqual(expect.arrayContaining(['/img.png', '/frame', '/rebind.png', '/api', '/xhr', '/beacon', 'upgrade /ws']));
    });

    it("dials the stub resolver's answer for a name Chromium could not resolve itself", async () => {
      const result = await capturer.capture(request(`http://rebind.test:${internal.port}/pinned`));

      expect(pixel(result, 400, 300)).toEqual(RED);
      expect(internal.requests).toEqual(['/pinned']);
    });

    it('keeps the net:: codes for unreachable destinations', async () => {
      expect(await failureOf(capturer.capture(request('http://nxdomain.test/')))).toEqual({
        kind: 'page',
        message: 'net::ERR_NAME_NOT_RESOLVED',
      });
      expect(await failureOf(capturer.capture(request('https://nxdomain.test/')))).toEqual({
        kind: 'page',
        message: 'net::ERR_NAME_NOT_RESOLVED',
      });
    });
  });

  describe('hostile pages', () => {
    let capturer: PuppeteerPageCapturer;

    beforeAll(async () => {
      capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 8_000, urlAllowlist: [pages.origin] }, { resolveHost });
      await capturer.warmUp();
    });

    afterAll(async () => {
      await capturer.close();
    });

    it('denies downloads: a download URL fails cleanly, a page that triggers downloads is captured, nothing is written', async () => {
      const profiles = capturer.stats().pids.flatMap((pid) =>
        execFileSync('ps', ['-o', 'args=', '-g', String(pid)], { encoding: 'utf8' })
          .split('\n')
          .flatMap((line) => /--user-data-dir=(\S+)/.exec(line)?.[1] ?? []),
      );
      expect(profiles.length).toBeGreaterThan(0);

      expect(await failureOf(capturer.capture(request(`${pages.origin}/download`)))).toEqual({
        kind: 'page',
        message: 'net::ERR_ABORTED',
      });
      const page = await capturer.capture(request(`${pages.origin}/download-embed`));

      expect(pixel(page, 700, 500)).toEqual(GREEN);
      expect(pages.requests.filter((path) => path === '/download').length).toBeGreaterThanOrEqual(2);
      expect(filesNamed(DOWNLOAD_NAME, [...profiles, homedir(), tmpdir(), process.cwd()])).toEqual([]);
    });

    it('accepts a beforeunload prompt so a scenario can leave the page', async () => {
      const url = await capturer.withPage({ viewportWidth: 800, viewportHeight: 600 }, async (page) => {
        await page.goto(`${pages.origin}/beforeunload`);
        // A click gives the page the user activation Chromium requires before it shows the prompt.
        await page.click('#b');
        await page.goto(`${pages.origin}/green`, 4_000);
        return page.url();
      });

      expect(url).toBe(`${pages.origin}/green`);
    });

    it('closes popups as soon as they open', async () => {
      const pool = new BrowserPool(resolveCaptureSettings({ browsers: 1, concurrency: 1, urlAllowlist: [pages.origin] }));
      try {
        await pool.withContext(async ({ context }) => {
          const page = await context.newPage();
          const popupClosed = new Promise<string>((resolve) => {
            context.on('targetdestroyed', (target) => {
              if (target.url().endsWith('/green')) resolve(target.url());
            });
          });
          await page.goto(`${pages.origin}/popup-self`);
          let timer: NodeJS.Timeout | undefined;
          const stillOpen = new Promise<string>((resolve) => {
            timer = setTimeout(() => resolve('still open after 5 s'), 5_000);
          });

          expect(await Promise.race([popupClosed, stillOpen]).finally(() => clearTimeout(timer))).toBe(`${pages.origin}/green`);
          expect((await context.pages()).length).toBe(1);
        });
      } finally {
        await pool.close();
      }
    });
  });
});
