/**
 * Unit spec for the egress proxy, spoken to with node:http as Chromium would (absolute-form requests and
 * CONNECT tunnels). Every server is on 127.0.0.1; every host name goes through a stub resolver.
 */
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

import type { HostResolver } from '../../shared/url-policy';
import { EGRESS_ERROR_HEADER, EgressProxy, URL_POLICY_BLOCK_HEADER, type EgressProxyOptions } from './egress-proxy';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An upstream web server that records every request and tunnelled byte stream it sees. */
class Upstream {
  readonly requests: Recorded[] = [];
  readonly connections: Socket[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        if (req.url === '/forged') {
          res.writeHead(200, { [URL_POLICY_BLOCK_HEADER]: 'forged', [EGRESS_ERROR_HEADER]: 'forged' });
          res.end('real page');
          return;
        }
        res.writeHead(200, {
          'content-type': 'text/plain',
          connection: 'keep-alive, x-secret-hop',
          'x-secret-hop': 'must not be forwarded',
          'set-cookie': ['a=1', 'b=2'],
        });
        res.end(`echo ${req.method} ${req.url} ${body}`);
      });
    });
    this.server.on('connection', (socket: Socket) => this.connections.push(socket));
  }

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A raw TCP echo server, standing in for anything reached through a CONNECT tunnel. */
async function echoServer(): Promise<{ port: number; accepted: () => number; stop: () => Promise<void> }> {
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server = (await import('node:net')).createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => accepted,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface ProxyResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Answers the first request of each connection (after answerAfterMs) and keeps the connection open, then drops it
 * when a second request arrives on it: the stale keep-alive race, made deterministic.
 */
async function staleKeepAliveServer(answerAfterMs: number): Promise<{ port: number; sockets: Socket[]; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server = (await import('node:net')).createServer((socket) => {
    sockets.push(socket);
    let served = 0;
    socket.on('error', () => undefined);
    socket.on('data', () => {
      if (served++ > 0) return void socket.destroy();
      setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok'), answerAfterMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    sockets,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function viaProxy(proxy: EgressProxy, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<ProxyResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port: proxy.port,
      method: init.method ?? 'GET',
      path: url,
      headers: init.headers,
      agent: false,
    });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Sends CONNECT; resolves with the status line's code, its headers and the socket (open on 200). */
function tunnel(proxy: EgressProxy, authority: string): Promise<{ status: number; headers: IncomingHttpHeaders; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: proxy.port, method: 'CONNECT', path: authority, agent: false });
    req.on('connect', (res: IncomingMessage, socket: Socket) => resolve({ status: res.statusCode ?? 0, headers: res.headers, socket }));
    req.on('error', reject);
    req.end();
  });
}

async function roundTrip(socket: Socket, text: string): Promise<string> {
  socket.write(text);
  const [chunk] = (await once(socket, 'data')) as [Buffer];
  return chunk.toString();
}

function stubResolver(answers: Record<string, string[]>): { resolve: HostResolver; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (hostname) => {
      calls.push(hostname);
      const answer = answers[hostname];
      if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return [...answer];
    },
  };
}

/** Whether anything accepts TCP connections on a loopback port. */
function probe(port: number): Promise<string> {
  return new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('EgressProxy', () => {
  let upstream: Upstream;
  let echo: Awaited<ReturnType<typeof echoServer>>;
  const proxies: EgressProxy[] = [];

  async function startProxy(options: Partial<EgressProxyOptions> = {}): Promise<EgressProxy> {
    const proxy = new EgressProxy({ allowPrivateNetworks: false, allowlist: [], resolve: stubResolver({}).resolve, ...options });
    proxies.push(proxy);
    return proxy.start();
  }

  beforeAll(async () => {
    upstream = await new Upstream().start();
    echo = await echoServer();
  });

  afterEach(async () => {
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
    upstream.requests.length = 0;
    upstream.connections.length = 0;
  });

  afterAll(async () => {
    await upstream.stop();
    await echo.stop();
  });

  describe('plain HTTP (absolute-form requests)', () => {
    it('refuses a loopback destination with 403 and the policy reason, and never contacts it', async () => {
      const proxy = await startProxy();

      const response = await viaProxy(proxy, `${upstream.origin}/secret`);

      expect(response.status).toBe(403);
      expect(response.headers[URL_POLICY_BLOCK_HEADER]).toBe('url resolves to a loopback address');
      expect(response.body).toBe('blocked by URL policy: url resolves to a loopback address\n');
      expect(upstream.requests).toEqual([]);
      expect(upstream.connections).toHaveLength(0);
    });

    it.each([
      ['http://localhost:9/', 'url resolves to a loopback address'],
      ['http://[::1]:9/', 'url resolves to a loopback address'],
      ['http://10.1.2.3/', 'url resolves to a private address'],
      ['http://169.254.169.254/latest/meta-data/', 'url resolves to a link-local address'],
      ['http://0.0.0.0:9/', 'url resolves to an unspecified address'],
      ['http://[::ffff:127.0.0.1]:9/', 'url resolves to a loopback address'],
    ])('refuses %s', async (url, reason) => {
      const proxy = await startProxy();

      const response = await viaProxy(proxy, url);

      expect([response.status, response.headers[URL_POLICY_BLOCK_HEADER]]).toEqual([403, reason]);
    });

    it('forwards an allowlisted origin: method, path, body, Host from the target, hop-by-hop headers dropped', async () => {
      const proxy = await startProxy({ allowlist: [upstream.origin] });

      const response = await viaProxy(proxy, `${upstream.origin}/echo?q=1`, {
        method: 'POST',
        headers: {
          host: 'spoofed.example',
          'content-type': 'text/plain',
          'proxy-authorization': 'Basic c2VjcmV0',
          'proxy-connection': 'keep-alive',
          connection: 'keep-alive, x-client-hop',
          'x-client-hop': 'hop',
          'x-kept': 'kept',
        },
        body: 'hello',
      });

      expect(response.status).toBe(200);
      expect(response.body).toBe('echo POST /echo?q=1 hello');
      expect(response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      expect(response.headers['x-secret-hop']).toBeUndefined();
      const [seen] = upstream.requests;
      expect(seen.headers.host).toBe(`127.0.0.1:${upstream.port}`);
      expect(seen.headers['x-kept']).toBe('kept');
      expect(seen.headers['proxy-authorization']).toBeUndefined();
      expect(seen.headers['proxy-connection']).toBeUndefined();
      expect(seen.headers['x-client-hop']).toBeUndefined();
    });

    it('matches the allowlist by exact origin: another port on the same host stays refused', async () => {
      const proxy = await startProxy({ allowlist: [upstream.origin] });
      const other = await closedPort();

      const response = await viaProxy(proxy, `http://127.0.0.1:${other}/`);

      expect(response.headers[URL_POLICY_BLOCK_HEADER]).toBe('url resolves to a loopback address');
    });

    it('lets everything through with allowPrivateNetworks', async () => {
      const proxy = await startProxy({ allowPrivateNetworks: true });

      const response = await viaProxy(proxy, `${upstream.origin}/open`);

      expect(response.body).toBe('echo GET /open ');
    });

    it('strips policy headers a site sends itself, so only the proxy can report a refusal', async () => {
      const proxy = await startProxy({ allowPrivateNetworks: true });

      const response = await viaProxy(proxy, `${upstream.origin}/forged`);

      expect(response.body).toBe('real page');
      expect(response.headers[URL_POLICY_BLOCK_HEADER]).toBeUndefined();
      expect(response.headers[EGRESS_ERROR_HEADER]).toBeUndefined();
    });

    it('reports an unreachable destination as 502 with the net:: code Chromium would have shown', async () => {
      const proxy = await startProxy({ allowPrivateNetworks: true });
      const port = await closedPort();

      const refused = await viaProxy(proxy, `http://127.0.0.1:${port}/`);
      const unresolvable = await viaProxy(proxy, 'http://no-such-host.test/');

      expect([refused.status, refused.headers[EGRESS_ERROR_HEADER]]).toEqual([502, 'net::ERR_CONNECTION_REFUSED']);
      expect([unresolvable.status, unresolvable.headers[EGRESS_ERROR_HEADER]]).toEqual([502, 'net::ERR_NAME_NOT_RESOLVED']);
    });

    it('refuses a service-worker script fetch', async () => {
      const proxy = await startProxy({ allowPrivateNetworks: true });

      const response = await viaProxy(proxy, `${upstream.origin}/sw.js`, { headers: { 'service-worker': 'script' } });

      expect(response.headers[URL_POLICY_BLOCK_HEADER]).toBe('service workers are disabled');
      expect(upstream.requests).toEqual([]);
    });

    it('answers 400 to an origin-form request and to other schemes', async () => {
      const proxy = await startProxy({ allowPrivateNetworks: true });

      expect((await viaProxy(proxy, '/direct')).status).toBe(400);
      expect((await viaProxy(proxy, `https://127.0.0.1:${upstream.port}/`)).status).toBe(400);
      expect((await viaProxy(proxy, `ftp://127.0.0.1:${upstream.port}/`)).status).toBe(400);
      expect(upstream.requests).toEqual([]);
    });
  });

  describe('DNS: resolved once, every answer checked, only checked answers dialled', () => {
    it('refuses a name that resolves to a private address (DNS rebinding), asking the resolver once', async () => {
      const dns = stubResolver({ 'rebind.test': ['127.0.0.1'], 'mixed.test': ['93.184.215.14', '10.0.0.7'] });
      const proxy = await startProxy({ resolve: dns.resolve });
      const acceptedBefore = echo.accepted();

      const rebind = await viaProxy(proxy, `http://rebind.test:${upstream.port}/`);
      const mixed = await viaProxy(proxy, `http://mixed.test:${upstream.port}/`);
      const tunnelled = await tunnel(proxy, `rebind.test:${echo.port}`);

      expect(rebind.headers[URL_POLICY_BLOCK_HEADER]).toBe('url resolves to a loopback address');
      expect(mixed.headers[URL_POLICY_BLOCK_HEADER]).toBe('url resolves to a private address');
      expect(tunnelled.status).toBe(403);
      expect(upstream.requests).toEqual([]);
      expect(echo.accepted()).toBe(acceptedBefore);
      // The tunnel reused the cached answer: still one lookup for rebind.test.
      expect(dns.calls).toEqual(['rebind.test', 'mixed.test']);
    });

    it('dials the address the resolver gave, not whatever the system would resolve the name to', async () => {
      // ".test" never resolves in real DNS, so reaching the upstream proves the name was pinned.
      const dns = stubResolver({ 'intranet.test': ['127.0.0.1'] });
      const proxy = await startProxy({ allowPrivateNetworks: true, resolve: dns.resolve, resolveCacheMs: 0 });

      const response = await viaProxy(proxy, `http://intranet.test:${upstream.port}/pinned`);

      expect(response.body).toBe('echo GET /pinned ');
      expect(upstream.requests[0].headers.host).toBe(`intranet.test:${upstream.port}`);
      expect(dns.calls).toEqual(['intranet.test']);
    });

    it('tries the next checked address when one refuses the connection', async () => {
      // Nothing listens on 127.0.0.2 at the upstream's port; the second answer works.
      const dns = stubResolver({ 'two.test': ['127.0.0.2', '127.0.0.1'] });
      const proxy = await startProxy({ allowPrivateNetworks: true, resolve: dns.resolve });

      const plain = await viaProxy(proxy, `http://two.test:${upstream.port}/second`);
      const tunnelled = await tunnel(proxy, `two.test:${echo.port}`);

      expect(plain.body).toBe('echo GET /second ');
      expect(tunnelled.status).toBe(200);
      expect(await roundTrip(tunnelled.socket, 'ping')).toBe('ping');
      tunnelled.socket.destroy();
    });

    it('replays a bodiless request once on a fresh connection when a pooled one was closed under it', async () => {
      const upstream = await staleKeepAliveServer(0);
      try {
        const proxy = await startProxy({ allowPrivateNetworks: true });

        const first = await viaProxy(proxy, `http://127.0.0.1:${upstream.port}/1`);
        const second = await viaProxy(proxy, `http://127.0.0.1:${upstream.port}/2`);

        expect([first.status, first.body, second.status, second.body]).toEqual([200, 'ok', 200, 'ok']);
        expect(upstream.sockets).toHaveLength(2);
      } finally {
        await upstream.close();
      }
    });

    it('replays on a new connection, not another pooled one that may be closing too', async () => {
      // Two connections each serve one request and are pooled; both are dropped at their next request (keep-alive
      // connections freed together expire together). The replay must not be handed the second stale one.
      const upstream = await staleKeepAliveServer(50);
      try {
        const proxy = await startProxy({ allowPrivateNetworks: true });
        const url = (path: string) => `http://127.0.0.1:${upstream.port}${path}`;
        const together = await Promise.all([viaProxy(proxy, url('/1')), viaProxy(proxy, url('/2'))]);
        expect(upstream.sockets).toHaveLength(2);

        const third = await viaProxy(proxy, url('/3'));

        expect([...together, third].map((r) => [r.status, r.body])).toEqual([
          [200, 'ok'],
          [200, 'ok'],
          [200, 'ok'],
        ]);
        expect(upstream.sockets).toHaveLength(3);
      } finally {
        await upstream.close();
      }
    });

    it('counts a resolver that hangs as unresolvable after the timeout', async () => {
      const proxy = await startProxy({
        allowPrivateNetworks: true,
        resolve: () => new Promise<string[]>(() => undefined),
        resolveTimeoutMs: 50,
      });

      const response = await viaProxy(proxy, 'http://hang.test/');

      expect(response.headers[EGRESS_ERROR_HEADER]).toBe('net::ERR_NAME_NOT_RESOLVED');
    });
  });

  describe('CONNECT tunnels (https, wss and ws)', () => {
    it('refuses a loopback destination with 403, closes the socket, and never connects', async () => {
      const proxy = await startProxy();
      const acceptedBefore = echo.accepted();

      const { status, headers, socket } = await tunnel(proxy, `127.0.0.1:${echo.port}`);
      await once(socket, 'close');

      expect(status).toBe(403);
      expect(headers[URL_POLICY_BLOCK_HEADER]).toBe('url resolves to a loopback address');
      expect(echo.accepted()).toBe(acceptedBefore);
      expect(proxy.explain(`https://127.0.0.1:${echo.port}/x`)).toEqual({
        kind: 'blocked',
        reason: 'url resolves to a loopback address',
      });
    });

    it.each(['http', 'https'])('admits a tunnel when the %s origin of host:port is allowlisted', async (scheme) => {
      const proxy = await startProxy({ allowlist: [`${scheme}://127.0.0.1:${echo.port}`] });

      const { status, socket } = await tunnel(proxy, `127.0.0.1:${echo.port}`);

      expect(status).toBe(200);
      expect(await roundTrip(socket, 'hello through the tunnel')).toBe('hello through the tunnel');
      socket.destroy();
    });

    it('treats the default https port like the origin without a port', async () => {
      const dns = stubResolver({ 'wiki.test': ['127.0.0.1'] });
      const proxy = await startProxy({ allowlist: ['https://wiki.test'], resolve: dns.resolve });

      // Whether anything listens on 443 here does not matter: the point is that the allowlist admits it.
      const { status, headers, socket } = await tunnel(proxy, 'wiki.test:443');
      socket.destroy();

      expect(status).not.toBe(403);
      expect(headers[URL_POLICY_BLOCK_HEADER]).toBeUndefined();
      expect(proxy.explain('wss://wiki.test/socket')?.kind).not.toBe('blocked');
    });

    it.each(['127.0.0.1', '127.0.0.1:99999', 'user@127.0.0.1:80', '127.0.0.1:80/path', '[::1:80', 'local%68ost:80', 'a!b:80'])(
      'answers 400 to the malformed authority %s',
      async (authority) => {
        const proxy = await startProxy({ allowPrivateNetworks: true });

        expect((await tunnel(proxy, authority)).status).toBe(400);
      },
    );
  });

  describe('recent outcomes (explain)', () => {
    it('remembers the latest outcome per host:port, forgets it on success, and expires it', async () => {
      const proxy = await startProxy({ allowlist: [], memory: { maxEntries: 10, ttlMs: 200 } });

      await viaProxy(proxy, `${upstream.origin}/a`);

      expect(proxy.explain(`${upstream.origin}/other/path`)).toEqual({
        kind: 'blocked',
        reason: 'url resolves to a loopback address',
      });
      expect(proxy.explain(`http://127.0.0.1:${upstream.port + 1}/`)).toBeUndefined();
      expect(proxy.explain('not a url')).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(proxy.explain(`${upstream.origin}/a`)).toBeUndefined();
    });

    it('keeps at most maxEntries, dropping the oldest', async () => {
      const proxy = await startProxy({ memory: { maxEntries: 2, ttlMs: 60_000 } });

      for (const port of [1001, 1002, 1003]) await viaProxy(proxy, `http://127.0.0.1:${port}/`);

      expect(proxy.explain('http://127.0.0.1:1001/')).toBeUndefined();
      expect(proxy.explain('http://127.0.0.1:1002/')).toBeDefined();
      expect(proxy.explain('http://127.0.0.1:1003/')).toBeDefined();
    });

    it('clears a remembered refusal once the destination is allowed again', async () => {
      const proxy = await startProxy({ allowPrivateNetworks: true });
      const port = await closedPort();
      await viaProxy(proxy, `http://127.0.0.1:${port}/`);
      expect(proxy.explain(`http://127.0.0.1:${port}/`)).toEqual({ kind: 'failed', error: 'net::ERR_CONNECTION_REFUSED' });

      const server = createServer((_req, res) => res.end('up now'));
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
      try {
        expect((await viaProxy(proxy, `http://127.0.0.1:${port}/`)).body).toBe('up now');
        expect(proxy.explain(`http://127.0.0.1:${port}/`)).toBeUndefined();
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });

  describe('lifecycle', () => {
    it('close() destroys open tunnels and stops listening', async () => {
      const proxy = await startProxy({ allowPrivateNetworks: true });
      const { port } = proxy;
      const { socket } = await tunnel(proxy, `127.0.0.1:${echo.port}`);
      const closed = once(socket, 'close');

      await proxy.close();
      await closed;

      const refused = await probe(port);
      expect(refused).toBe('ECONNREFUSED');
    });

    it('survives clients that hang up mid-request and mid-tunnel', async () => {
      const proxy = await startProxy({ allowPrivateNetworks: true });
      const raw = connect(proxy.port, '127.0.0.1');
      await once(raw, 'connect');
      raw.write(`POST ${upstream.origin}/x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npartial`);
      raw.destroy();
      const { socket } = await tunnel(proxy, `127.0.0.1:${echo.port}`);
      socket.destroy();
      const garbage = connect(proxy.port, '127.0.0.1');
      garbage.on('error', () => undefined);
      garbage.end('NOT HTTP AT ALL\r\n\r\n');

      // Still serving.
      expect((await viaProxy(proxy, `${upstream.origin}/after`)).body).toBe('echo GET /after ');
    });

    it('close() during start() leaves nothing listening, and a closed proxy cannot start again', async () => {
      const proxy = new EgressProxy({ allowPrivateNetworks: false, allowlist: [] });
      const starting = proxy.start();
      await proxy.close();
      await starting;

      expect(await probe(proxy.port)).toBe('ECONNREFUSED');
      await expect(proxy.start()).rejects.toThrow('EgressProxy is closed');
    });

    it('refuses an allowlist entry that is not an http(s) origin at construction', () => {
      expect(() => new EgressProxy({ allowPrivateNetworks: false, allowlist: ['intranet'] })).toThrow('not a valid URL');
      expect(() => new EgressProxy({ allowPrivateNetworks: false, allowlist: ['ftp://x'] })).toThrow('http(s) origin');
    });
  });
});
