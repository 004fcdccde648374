/**
 * Integration spec: captures through an upstream proxy chained behind the egress guard, in real Chromium, against
 * real proxy servers from npm (proxy-chain for HTTP with Basic credentials, simple-socks for SOCKS5). The page
 * and the proxies listen on 127.0.0.1; the URL policy is on, with only the page's origin (and the proxy's, where a
 * test says so) allowlisted, so the proxy's own address passes the policy like any destination.
 */
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

import { ProxyFailure } from '../../modules/screenshots/application/capture.port';
import { parseProxyUrl, type ProxyUrl } from '../../shared/domain/proxy-url';
import { captureRequest } from '../../../test/support/capture-request';
import { PageServer, solidPage } from '../../../test/support/page-server';
import { deadPort, startHttpProxy, startSocksProxy, type RunningProxy } from '../../../test/support/proxy-servers';
import { EgressProxy, EGRESS_PROXY_ERROR_HEADER } from './egress-proxy';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

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

describe('captures through an upstream proxy (real Chromium, real proxies)', () => {
  let pages: PageServer;
  let http: RunningProxy;
  let socks: RunningProxy;
  let capturer: PuppeteerPageCapturer;

  beforeAll(async () => {
    pages = await new PageServer({ '/': solidPage('rgb(0,128,0)'), '/style.css': 'body{}' }).start();
    http = await startHttpProxy(CREDENTIALS);
    socks = await startSocksProxy(CREDENTIALS);
    capturer = new PuppeteerPageCapturer({
      browsers: 1,
      concurrency: 2,
      timeoutMs: 15_000,
      allowPrivateNetworks: false,
      urlAllowlist: [pages.url, originOf(http.port), originOf(socks.port)],
    });
  });

  afterAll(async () => {
    await capturer?.close();
    await http?.stop();
    await socks?.stop();
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
    const route = await egress.route(proxyOf(http.url));
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

  it('answers 502 with the failure in words when the upstream rejects the credentials', async () => {
    const route = await egress.route(proxyOf(http.url.replace(CREDENTIALS.password, 'bad')));
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
