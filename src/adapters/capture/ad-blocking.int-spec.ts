/**
 * Integration spec: block_ads and block_trackers in real Chromium. The page is served on 127.0.0.1 and embeds an
 * ad (Google's ad hosts) and an analytics script (Google Analytics) by their real host names; a stub resolver
 * sends those names to a second local server that records every request it receives, so "the request was never
 * made" is observed where the request would land, not inferred from the picture.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { HostResolver } from '../../shared/url-policy';
import { BLOCKED_CATEGORIES, requestBlocker } from './ad-blocking';
import type { CaptureRequest } from '../../modules/screenshots/application/capture.port';
import { captureRequest } from '../../../test/support/capture-request';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

jest.setTimeout(60_000);

const AD_HOST = 'securepubads.g.doubleclick.net';
const AD_FRAME_HOST = 'tpc.googlesyndication.com';
const TRACKER_HOST = 'static.hotjar.com';
const CDN_HOST = 'cdn.jsdelivr.net';

/** Records the Host header and path of every request, on whatever name it was reached. */
class ThirdParties {
  readonly seen: string[] = [];
  private readonly server: Server = createServer((req, res) => {
    this.seen.push(`${(req.headers.host ?? '').split(':')[0]}${req.url ?? ''}`);
    const type = req.url?.endsWith('.js') ? 'text/javascript' : req.url?.endsWith('.png') ? 'image/png' : 'text/html';
    res.writeHead(200, { 'content-type': type, 'access-control-allow-origin': '*' });
    res.end(req.url?.endsWith('.png') ? PNG_1PX : req.url?.endsWith('.js') ? '/* ok */' : '<!doctype html><p>frame</p>');
  });

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  hosts(): string[] {
    return [...new Set(this.seen.map((s) => s.split('/')[0]))].sort();
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

describe('block_ads / block_trackers (real Chromium, real tracker database)', () => {
  let thirdParties: ThirdParties;
  let pageServer: Server;
  let pageUrl: string;
  let capturer: PuppeteerPageCapturer;

  const resolveHost: HostResolver = async (hostname) => {
    if ([AD_HOST, AD_FRAME_HOST, TRACKER_HOST, CDN_HOST, 'localhost'].includes(hostname)) return ['127.0.0.1'];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };

  function request(overrides: Partial<CaptureRequest> = {}): CaptureRequest {
    return captureRequest(pageUrl, { viewportWidth: 800, viewportHeight: 600, waitUntil: 'network_idle', ...overrides });
  }

  beforeAll(async () => {
    thirdParties = await new ThirdParties().start();
    const p = thirdParties.port;
    const page =
      '<!doctype html><html><body><h1>Article</h1>' +
      `<script src="http://${AD_HOST}:${p}/tag/js/gpt.js"></script>` +
      `<iframe src="http://${AD_FRAME_HOST}:${p}/safeframe/1-0-40/html/container.html" width="300" height="250"></iframe>` +
      `<img src="http://${AD_HOST}:${p}/pagead/banner.png" width="300" height="50">` +
      `<script src="http://${TRACKER_HOST}:${p}/c/hotjar-1.js"></script>` +
      `<script src="http://${CDN_HOST}:${p}/npm/lib.js"></script>` +
      `<img src="/own.png" width="10" height="10"></body></html>`;
    pageServer = createServer((req, res) => {
      if (req.url === '/own.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(PNG_1PX);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page);
    });
    pageServer.listen(0, '127.0.0.1');
    await once(pageServer, 'listening');
    pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/article`;
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 15_000, allowPrivateNetworks: true }, { resolveHost });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    await thirdParties.stop();
    pageServer.closeAllConnections();
    await new Promise<void>((resolve) => pageServer.close(() => resolve()));
  });

  beforeEach(() => {
    thirdParties.seen.length = 0;
  });

  it('without either option, the ad, its frame, the tracker and the CDN are all requested (the page really asks for them)', async () => {
    await capturer.capture(request());

    expect(thirdParties.hosts()).toEqual([CDN_HOST, AD_HOST, AD_FRAME_HOST, TRACKER_HOST].sort());
  });

  it('block_ads: no request reaches an ad host (script, image, frame); the tracker and the CDN still load', async () => {
    const result = await capturer.capture(request({ blockAds: true }));

    expect(result.format).toBe('png');
    expect(thirdParties.hosts()).toEqual([CDN_HOST, TRACKER_HOST].sort());
  });

  it('block_trackers: the analytics script is never requested; the ads and the CDN still load', async () => {
    await capturer.capture(request({ blockTrackers: true }));

    expect(thirdParties.hosts()).toEqual([CDN_HOST, AD_HOST, AD_FRAME_HOST].sort());
  });

  it('both: only the CDN library is requested; the page itself and its own image are never blocked', async () => {
    await capturer.capture(request({ blockAds: true, blockTrackers: true }));

    expect(thirdParties.hosts()).toEqual([CDN_HOST]);
  });
});

describe('requestBlocker (the tracker database as shipped)', () => {
  it('is null when nothing is blocked, so captures without the options are not intercepted', async () => {
    expect(await requestBlocker({})).toBeNull();
    expect(await requestBlocker({ blockAds: false, blockTrackers: false })).toBeNull();
  });

  it('sorts well-known hosts into ads and trackers, and leaves first-party and ordinary hosts alone', async () => {
    const ads = (await requestBlocker({ blockAds: true }))!;
    const trackers = (await requestBlocker({ blockTrackers: true }))!;
    const source = 'https://news.example.com/article';

    expect(ads.blocks('https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js', 'script', source)).toBe(true);
    expect(ads.blocks('https://securepubads.g.doubleclick.net/tag/js/gpt.js', 'script', source)).toBe(true);
    expect(ads.blocks('https://static.hotjar.com/c/hotjar-1.js', 'script', source)).toBe(false);
    expect(trackers.blocks('https://static.hotjar.com/c/hotjar-1.js', 'script', source)).toBe(true);
    expect(trackers.blocks('https://www.google-analytics.com/analytics.js', 'script', source)).toBe(true);
    expect(trackers.blocks('https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js', 'script', source)).toBe(false);
    for (const blocker of [ads, trackers]) {
      expect(blocker.blocks('https://news.example.com/app.js', 'script', source)).toBe(false);
      expect(blocker.blocks('https://cdn.jsdelivr.net/npm/lib.js', 'script', source)).toBe(false);
      expect(blocker.blocks('data:image/png;base64,AAAA', 'image', source)).toBe(false);
    }
    expect(BLOCKED_CATEGORIES.ads).toContain('advertising');
  });

  it('block_chat_widgets: the chat services of customer_interaction, not the rest of that category (maps, payments)', async () => {
    const chat = (await requestBlocker({ blockChatWidgets: true }))!;
    const source = 'https://shop.example.com/';

    expect(chat.blocks('https://widget.intercom.io/widget/abc', 'script', source)).toBe(true);
    expect(chat.blocks('https://js.driftt.com/include/x.js', 'script', source)).toBe(true);
    expect(chat.blocks('https://embed.tawk.to/123/default', 'script', source)).toBe(true);
    // Bing Maps is in customer_interaction too: a page's map is not a chat widget.
    expect(chat.blocks('https://www.bing.com/rp/map.js', 'script', source)).toBe(false);
    expect(chat.blocks('https://securepubads.g.doubleclick.net/tag/js/gpt.js', 'script', source)).toBe(false);
    expect(chat.blocks('https://static.hotjar.com/c/hotjar-1.js', 'script', source)).toBe(false);
  });
});
