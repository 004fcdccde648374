/**
 * Integration spec: captures through an upstream proxy chained behind the egress guard, in real Chromium, against
 * real proxy servers from npm (proxy-chain for HTTP with Basic credentials, simple-socks for SOCKS5). The page
 * and the proxies listen on 127.0.0.1; the URL policy is on, with only the page's origin (and the proxy's, where a
 * test says so) allowlisted, so the proxy's own address passes the policy like any destination.
 */
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';

import { ProxyFailure } from '../../modules/screenshots/application/capture.port';
import { parseProxyUrl, type ProxyUrl } from '../../shared/domain/proxy-url';
import { captureRequest } from '../../../test/support/capture-request';
import { PageServer, solidPage } from '../../../test/support/page-server';
import { deadPort, startHttpProxy, startSocksProxy, type RunningProxy } from '../../../test/support/proxy-servers';
import { EgressProxy, type EgressListener, EGRESS_ERROR_HEADER, EGRESS_PROXY_ERROR_HEADER, URL_POLICY_BLOCK_HEADER } from './egress-proxy';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

/**
 * A listener of `egress` bound to `proxy`, as a lease makes one: the proxy's own address through the URL policy first
 * (a refused one opens nothing), then the listener.
 */
async function routeThrough(egress: EgressProxy, proxy: ProxyUrl): Promise<EgressListener> {
  const upstream = await egress.checkUpstream(proxy);
  const listener = await egress.listener();
  listener.bind(upstream);
  return listener;
}

jest.setTimeout(60_000);

const CREDENTIALS = { username: 'shot', password: 'pa55-w0rd-secret' };

function proxyOf(url: string): ProxyUrl {
  const proxy = parseProxyUrl(url);
  if (!proxy) throw new Error(`not a proxy URL: ${url}`);
  return proxy;
}

function originOf(port: number): string {
  return `http://127.0.0.1:${port}`;
}

async function waitFor(condition: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A plain-HTTP request in absolute form through the proxy at `proxyServer`, as Chromium sends it. */
async function getVia(proxyServer: string, url: string): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  const { hostname, port } = new URL(proxyServer);
  const request = httpRequest({ host: hostname, port, path: url, agent: false });
  request.end();
  const [response] = (await once(request, 'response')) as [IncomingMessage];
  let body = '';
  for await (const chunk of response) body += String(chunk);
  return { status: response.statusCode ?? 0, headers: response.headers, body };
}

describe('captures through an upstream proxy (real Chromium, real proxies)', () => {
  let pages: PageServer;
  /** A second site: a SOCKS connection to it is a new one, so the SOCKS proxy's log shows who reached it. */
  let other: PageServer;
  let http: RunningProxy;
  let socks: RunningProxy;
  let capturer: PuppeteerPageCapturer;

  beforeAll(async () => {
    pages = await new PageServer({ '/': solidPage('rgb(0,128,0)'), '/style.css': 'body{}' }).start();
    other = await new PageServer({ '/': solidPage('rgb(0,0,128)') }).start();
    http = await startHttpProxy(CREDENTIALS);
    socks = await startSocksProxy(CREDENTIALS);
    capturer = new PuppeteerPageCapturer({
      browsers: 1,
      concurrency: 2,
      timeoutMs: 15_000,
      allowPrivateNetworks: false,
      urlAllowlist: [pages.url, other.url, originOf(http.port), originOf(socks.port)],
    });
  });

  afterAll(async () => {
    await capturer?.close();
    expect(capturer.openEgressListeners()).toBe(0);
    await http?.stop();
    await socks?.stop();
    await other?.stop();
    await pages?.stop();
  });

  it('sends the page through an HTTP proxy with credentials: the proxy sees the request, the report names it masked', async () => {
    const before = pages.requests.length;
    const result = await capturer.capture(captureRequest(`${pages.url}/`, { proxy: proxyOf(http.url) }));
    expect(result.data.length).toBeGreaterThan(0);
    expect(http.seen).toContain(`${pages.url}/`);
    expect(pages.requests.length).toBeGreaterThan(before);
    expect(result.report?.proxy).toBe(`http://********@127.0.0.1:${http.port}`);
  });

  it('reports no proxy for a direct capture', async () => {
    const seen = http.seen.length;
    const result = await capturer.capture(captureRequest(`${pages.url}/`));
    expect(result.report?.proxy).toBeNull();
    expect(http.seen.length).toBe(seen);
  });

  it('fails in words naming the masked proxy when it rejects the credentials, never showing the password', async () => {
    const wrong = http.url.replace(CREDENTIALS.password, 'wrong-password');
    const refusedBefore = http.refused;
    const failure = await capturer.capture(captureRequest(`${pages.url}/`, { proxy: proxyOf(wrong) })).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ProxyFailure);
    const proxyFailure = failure as ProxyFailure;
    expect(proxyFailure.message).toBe(
      `The proxy http://********@127.0.0.1:${http.port} rejected its credentials (HTTP 407 Proxy Authentication Required) (proxy_failed)`,
    );
    expect(proxyFailure.fault).toBe('credentials');
    expect(proxyFailure.message).not.toContain('wrong-password');
    expect(proxyFailure.message).not.toMatch(/crash/i);
    expect(http.refused).toBeGreaterThan(refusedBefore);
  });

  it('sends the page through a SOCKS5 proxy with credentials', async () => {
    const result = await capturer.capture(captureRequest(`${pages.url}/`, { proxy: proxyOf(socks.url) }));
    expect(result.data.length).toBeGreaterThan(0);
    expect(socks.seen).toContain(`127.0.0.1:${new URL(pages.url).port}`);
    expect(result.report?.proxy).toBe(`socks5://********@127.0.0.1:${socks.port}`);
  });

  it('fails proxy_failed when the SOCKS5 proxy rejects the credentials', async () => {
    const wrong = socks.url.replace(CREDENTIALS.password, 'nope');
    await expect(capturer.capture(captureRequest(`${pages.url}/`, { proxy: proxyOf(wrong) }))).rejects.toMatchObject({
      name: 'ProxyFailure',
      message: `The proxy socks5://********@127.0.0.1:${socks.port} broke off the SOCKS5 handshake (wrong credentials?) (proxy_failed)`,
    });
    expect(socks.refused).toBeGreaterThan(0);
  });

  it('fails proxy_failed, fault "unreachable", when nothing listens at the proxy', async () => {
    const port = await deadPort();
    const dead = new PuppeteerPageCapturer({ browsers: 1, timeoutMs: 15_000, allowPrivateNetworks: false, urlAllowlist: [pages.url, originOf(port)] });
    try {
      await expect(dead.capture(captureRequest(`${pages.url}/`, { proxy: proxyOf(`http://u:p@127.0.0.1:${port}`) }))).rejects.toMatchObject({
        name: 'ProxyFailure',
        fault: 'unreachable',
        message: `The proxy http://********@127.0.0.1:${port} could not be reached (connection refused) (proxy_failed)`,
      });
    } finally {
      await dead.close();
    }
  });

  it('refuses a loopback proxy the allowlist does not name, before any request reaches it', async () => {
    const strict = new PuppeteerPageCapturer({ browsers: 1, timeoutMs: 15_000, allowPrivateNetworks: false, urlAllowlist: [pages.url] });
    const seen = http.seen.length;
    try {
      await expect(strict.capture(captureRequest(`${pages.url}/`, { proxy: proxyOf(http.url) }))).rejects.toMatchObject({
        name: 'ProxyFailure',
        fault: 'policy',
        message: `The proxy http://********@127.0.0.1:${http.port} is refused by the URL policy: url resolves to a loopback address (proxy_failed)`,
      });
      expect(http.seen.length).toBe(seen);
    } finally {
      await strict.close();
    }
  });

  it("never sends one capture's requests through another's proxy: each takes a spare bound to its own upstream, or straight out", async () => {
    const otherHost = new URL(other.url).host;
    const steps: { url: string; proxy?: RunningProxy }[] = [
      { url: `${pages.url}/?step=1`, proxy: http },
      { url: `${pages.url}/?step=2` },
      { url: `${other.url}/?step=3`, proxy: socks },
      { url: `${other.url}/?step=4` },
      { url: `${other.url}/?step=5`, proxy: http },
      { url: `${pages.url}/?step=6` },
    ];
    for (const step of steps) {
      // The spare is ready and the previous capture's listener closed (the spare's, not bound yet, is the only one open),
      // so this capture takes the spare.
      await waitFor(() => capturer.readySpares() === 1 && capturer.openEgressListeners() === 1);
      const before = { http: http.seen.length, socks: socks.seen.length };
      const result = await capturer.capture(captureRequest(step.url, step.proxy ? { proxy: proxyOf(step.proxy.url) } : {}));
      expect(result.data.length).toBeGreaterThan(0);
      expect(result.report?.proxy ?? null).toBe(step.proxy ? `${step.proxy === http ? 'http' : 'socks5'}://********@127.0.0.1:${step.proxy.port}` : null);
      if (step.proxy === http) expect(http.seen.slice(before.http)).toContain(step.url);
      else expect(http.seen.length).toBe(before.http);
      if (step.proxy === socks) expect(socks.seen.slice(before.socks)).toContain(otherHost);
      else expect(socks.seen.length).toBe(before.socks);
    }
    expect(pages.requests).toEqual(expect.arrayContaining(['/?step=1', '/?step=2', '/?step=6']));
    expect(other.requests).toEqual(expect.arrayContaining(['/?step=3', '/?step=4', '/?step=5']));
  });

  it("closes a proxied capture's listener with its lease, whether the capture succeeded or failed", async () => {
    await waitFor(() => capturer.readySpares() === 1 && capturer.openEgressListeners() === 1);
    await capturer.capture(captureRequest(`${pages.url}/`, { proxy: proxyOf(http.url) }));
    await expect(capturer.capture(captureRequest(`${pages.url}/`, { proxy: proxyOf(socks.url.replace(CREDENTIALS.password, 'nope')) }))).rejects.toThrow(
      ProxyFailure,
    );
    // Only the next spare's listener is left, and stays so.
    await waitFor(() => capturer.readySpares() === 1 && capturer.openEgressListeners() === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(capturer.openEgressListeners()).toBe(1);
  });

  it('still applies the URL policy to the page first: a destination the policy refuses never reaches the proxy', async () => {
    const seen = http.seen.length;
    const internal = await new PageServer({ '/': solidPage('rgb(255,0,0)') }).start();
    try {
      await expect(capturer.capture(captureRequest(`${internal.url}/`, { proxy: proxyOf(http.url) }))).rejects.toThrow(/blocked by URL policy/);
      expect(http.seen.length).toBe(seen);
      expect(internal.requests).toEqual([]);
    } finally {
      await internal.stop();
    }
  });
});

/** CONNECT tunnels (https, wss) through a route, spoken to directly: what Chromium does for TLS pages. */
describe('EgressProxy routes: CONNECT through an HTTP upstream', () => {
  let pages: PageServer;
  let http: RunningProxy;
  let egress: EgressProxy;

  beforeAll(async () => {
    pages = await new PageServer({ '/': 'tunnelled page' }).start();
    http = await startHttpProxy(CREDENTIALS);
    egress = await new EgressProxy({ allowPrivateNetworks: false, allowlist: [pages.url, originOf(http.port)] }).start();
  });

  afterAll(async () => {
    await egress?.close();
    await http?.stop();
    await pages?.stop();
  });

  async function connectVia(proxyServer: string, target: string): Promise<{ response: IncomingMessage; socket: Socket }> {
    const { hostname, port } = new URL(proxyServer);
    const request = httpRequest({ host: hostname, port, method: 'CONNECT', path: target, agent: false });
    request.end();
    const [response, socket] = (await once(request, 'connect')) as [IncomingMessage, Socket];
    return { response, socket };
  }

  it('tunnels to the page through the upstream, which sees host:port', async () => {
    const route = await routeThrough(egress, proxyOf(http.url));
    try {
      const target = new URL(pages.url).host;
      const { response, socket } = await connectVia(route.proxyServer, target);
      expect(response.statusCode).toBe(200);
      socket.write(`GET / HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`);
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      await once(socket, 'close');
      expect(text).toContain('tunnelled page');
      expect(http.seen).toContain(target);
    } finally {
      await route.close();
    }
  });

  it('a listener refuses every request until it is bound, is bound once only, and then sends only where it was bound', async () => {
    const listener = await egress.listener();
    const target = `${pages.url}/?unbound`;
    const seen = http.seen.length;
    try {
      const early = await getVia(listener.proxyServer, target);
      expect(early.status).toBe(503);
      expect(early.headers[EGRESS_ERROR_HEADER]).toBe('net::ERR_PROXY_CONNECTION_FAILED');
      const { response, socket } = await connectVia(listener.proxyServer, new URL(pages.url).host);
      socket.destroy();
      expect(response.statusCode).toBe(503);
      expect(pages.requests).not.toContain('/?unbound');

      listener.bind(await egress.checkUpstream(proxyOf(http.url)));
      expect(() => listener.bind(null)).toThrow('This egress listener is bound already');
      const bound = await getVia(listener.proxyServer, target);
      expect(bound.status).toBe(200);
      expect(http.seen.slice(seen)).toEqual([target]);
    } finally {
      await listener.close();
    }
  });

  it('a listener bound straight out never reaches the upstream, and still applies the policy', async () => {
    const listener = await egress.listener();
    const seen = http.seen.length;
    const internal = await new PageServer({ '/': 'internal' }).start();
    try {
      listener.bind(null);
      expect((await getVia(listener.proxyServer, `${pages.url}/?direct`)).body).toBe('tunnelled page');
      const refused = await getVia(listener.proxyServer, `${internal.url}/`);
      expect(refused.status).toBe(403);
      expect(refused.headers[URL_POLICY_BLOCK_HEADER]).toMatch(/loopback/);
      expect(internal.requests).toEqual([]);
      expect(http.seen.length).toBe(seen);
    } finally {
      await listener.close();
      await internal.stop();
    }
  });

  it('checkUpstream refuses a proxy whose own address the policy refuses, in words naming it masked', async () => {
    const strict = await new EgressProxy({ allowPrivateNetworks: false, allowlist: [pages.url] }).start();
    try {
      await expect(strict.checkUpstream(proxyOf(http.url))).rejects.toMatchObject({
        name: 'UpstreamRefused',
        proxy: `http://********@127.0.0.1:${http.port}`,
        message: `The proxy http://********@127.0.0.1:${http.port} is refused by the URL policy: url resolves to a loopback address (proxy_failed)`,
      });
    } finally {
      await strict.close();
    }
  });

  it('closes its listeners with itself, bound or not', async () => {
    const own = await new EgressProxy({ allowPrivateNetworks: true, allowlist: [] }).start();
    const unbound = await own.listener();
    const bound = await own.listener();
    bound.bind(null);
    expect(own.openListeners).toBe(2);
    await own.close();
    expect(own.openListeners).toBe(0);
    await expect(getVia(unbound.proxyServer, `${pages.url}/`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(getVia(bound.proxyServer, `${pages.url}/`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('answers 502 with the failure in words when the upstream rejects the credentials', async () => {
    const route = await routeThrough(egress, proxyOf(http.url.replace(CREDENTIALS.password, 'bad')));
    try {
      const { response, socket } = await connectVia(route.proxyServer, new URL(pages.url).host);
      socket.destroy();
      expect(response.statusCode).toBe(502);
      expect(response.headers[EGRESS_PROXY_ERROR_HEADER]).toMatch(/^The proxy http:\/\/\*{8}@127\.0\.0\.1:\d+ rejected its credentials/);
      expect(route.explain(`https://${new URL(pages.url).host}/`)).toMatchObject({ kind: 'proxy', fault: 'credentials' });
    } finally {
      await route.close();
    }
  });
});

/** Plain-HTTP requests through a SOCKS5 route: keep-alive connections per destination, never across credentials. */
describe('EgressProxy routes: plain HTTP through a SOCKS5 upstream', () => {
  let pages: PageServer;
  let socks: RunningProxy;
  let egress: EgressProxy;

  beforeAll(async () => {
    pages = await new PageServer({ '/': 'socks page' }).start();
    socks = await startSocksProxy(CREDENTIALS);
    egress = await new EgressProxy({ allowPrivateNetworks: true, allowlist: [] }).start();
  });

  afterAll(async () => {
    await egress?.close();
    await socks?.stop();
    await pages?.stop();
  });

  /** Waits until the SOCKS server's log (a line per connection, from its child process) has caught up. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('sends consecutive requests to one destination over one SOCKS connection, also from the next route through the same proxy', async () => {
    const host = new URL(pages.url).host;
    await settle();
    const before = socks.seen.filter((seen) => seen === host).length;
    const first = await routeThrough(egress, proxyOf(socks.url));
    try {
      for (const n of [1, 2, 3]) expect((await getVia(first.proxyServer, `${pages.url}/?n=${n}`)).body).toBe('socks page');
    } finally {
      await first.close();
    }
    const second = await routeThrough(egress, proxyOf(socks.url));
    try {
      expect((await getVia(second.proxyServer, `${pages.url}/?n=4`)).body).toBe('socks page');
    } finally {
      await second.close();
    }
    await settle();
    expect(socks.seen.filter((seen) => seen === host).length - before).toBe(1);
    expect(pages.requests).toEqual(expect.arrayContaining(['/?n=1', '/?n=2', '/?n=3', '/?n=4']));
  });

  it("never lends a connection made with one route's credentials to a route with other credentials", async () => {
    const good = await routeThrough(egress, proxyOf(socks.url));
    const bad = await routeThrough(egress, proxyOf(socks.url.replace(CREDENTIALS.password, 'nope')));
    try {
      expect((await getVia(good.proxyServer, `${pages.url}/?good`)).status).toBe(200);
      const refused = await getVia(bad.proxyServer, `${pages.url}/?bad`);
      expect(refused.status).toBe(502);
      expect(refused.headers[EGRESS_PROXY_ERROR_HEADER]).toBe(
        `The proxy socks5://********@127.0.0.1:${socks.port} broke off the SOCKS5 handshake (wrong credentials?) (proxy_failed)`,
      );
      expect(pages.requests).not.toContain('/?bad');
    } finally {
      await good.close();
      await bad.close();
    }
  });

  it('sends a bodiless request once more on a fresh connection when its pooled one was closed by the server meanwhile', async () => {
    // Answers the first request of each connection and keeps it open, then drops it at the second: the stale keep-alive race.
    const sockets: Socket[] = [];
    const server = createTcpServer((socket) => {
      sockets.push(socket);
      let served = 0;
      socket.on('error', () => undefined);
      socket.on('data', () => {
        if (served++ > 0) return void socket.destroy();
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const route = await routeThrough(egress, proxyOf(socks.url));
    try {
      expect((await getVia(route.proxyServer, `${target}/1`)).body).toBe('ok');
      const second = await getVia(route.proxyServer, `${target}/2`);
      expect(second.status).toBe(200);
      expect(second.body).toBe('ok');
      expect(sockets).toHaveLength(2);
    } finally {
      await route.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
