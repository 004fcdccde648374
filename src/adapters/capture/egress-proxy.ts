/**
 * The browser's only way out: a small forward proxy on 127.0.0.1 that applies the URL policy's address
 * rules to every connection Chromium opens (navigations, redirects, subresources, iframes, popups,
 * fetch/XHR, WebSockets, workers), and then connects to exactly the address it checked.
 *
 * Why a proxy rather than request interception: interception sees URLs, not the addresses Chromium
 * finally connects to, so a DNS-rebinding name (public for our check, 127.0.0.1 a moment later for
 * Chromium's own lookup) would slip through; it also misses WebSocket handshakes and costs a CDP
 * round-trip per request. Behind a fixed proxy Chromium never resolves a host name itself: it hands
 * the name to us, we resolve it once, check every answer, and dial one of those answers.
 *
 * Chromium reaches it with `--proxy-server=http://127.0.0.1:<port>` and `--proxy-bypass-list=<-loopback>`
 * (without the latter, loopback destinations would bypass the proxy and never be checked).
 * Plain `http:` requests arrive in absolute form ("GET http://host:port/path"); `https:`, `wss:` and
 * also plain `ws:` arrive as CONNECT tunnels (Chromium tunnels every WebSocket through a proxy).
 */
import { lookup } from 'node:dns/promises';
import {
  Agent,
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect, isIP, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { SocksClient } from 'socks';

import { asError } from '../../shared/domain/error-message';
import { maskProxy, proxyFailureMessage, type ProxyUrl } from '../../shared/domain/proxy-url';
import { normaliseAllowlistEntry, UrlPolicy, UrlPolicyReasons, type HostResolver } from '../../shared/url-policy';

/** Set on the proxy's refusal of a plain-HTTP request; the value is the policy's reason. */
export const URL_POLICY_BLOCK_HEADER = 'x-url-policy-block';
/** Set on the proxy's 502 when the destination could not be reached; the value is a `net::ERR_*` code. */
export const EGRESS_ERROR_HEADER = 'x-egress-error';
/** Set on a route's 502 when its upstream proxy failed; the value is the failure in words (the proxy masked). */
export const EGRESS_PROXY_ERROR_HEADER = 'x-egress-proxy-error';

/** Reason for refusing a service-worker script fetch (see `isServiceWorkerScript`). */
export const SERVICE_WORKERS_DISABLED = 'service workers are disabled';

export interface EgressProxyOptions {
  /** Turns the address check off (intranet deployments, tests). Nothing else is relaxed. */
  allowPrivateNetworks: boolean;
  /** Exact origins ("http://intranet.local:8080") that skip the address check; same format as UrlPolicy's. */
  allowlist: readonly string[];
  /** All addresses of a host name. Default: `dns.promises.lookup(name, { all: true, verbatim: true })`. */
  resolve?: HostResolver;
  /** How long resolution may take before the destination counts as unresolvable. Default 5000 ms. */
  resolveTimeoutMs?: number;
  /**
   * Successful resolutions are reused this long (default 5000 ms): a page with a hundred subresources on
   * one host should not cost a hundred getaddrinfo calls. Safe against rebinding, because a cached answer
   * is re-checked and then dialled as is; it only pins a name to its checked addresses a little longer.
   */
  resolveCacheMs?: number;
  /** Per-address connect timeout when a name has several addresses to try. Default 10000 ms. */
  connectTimeoutMs?: number;
  /** How many refused/failed destinations are remembered for `explain()`, and for how long. */
  memory?: { maxEntries: number; ttlMs: number };
}

/** What happened to the latest connection attempt to one host:port. */
type PolicyOutcome =
  | { kind: 'blocked'; reason: string }
  /** `error` is Chromium's name for what went wrong (`net::ERR_CONNECTION_REFUSED`, ...). */
  | { kind: 'failed'; error: string };

export type EgressOutcome =
  | PolicyOutcome
  /**
   * A route's upstream proxy failed: `message` in words naming the masked proxy; `fault` says whether the proxy
   * itself is to blame (unreachable, credentials refused: another proxy may do) or the destination behind it.
   */
  | { kind: 'proxy'; message: string; proxy: string; fault: UpstreamFault };

export type UpstreamFault = 'unreachable' | 'credentials' | 'destination';

/** Why an upstream proxy could not carry a connection. */
class UpstreamError extends Error {
  constructor(
    readonly fault: UpstreamFault,
    words: string,
  ) {
    super(words);
  }
}

/** A route could not be opened: the upstream proxy's own address is refused by the URL policy or does not resolve. */
export class UpstreamRefused extends Error {
  constructor(
    message: string,
    readonly proxy: string,
  ) {
    super(message);
    this.name = 'UpstreamRefused';
  }
}

/** The upstream proxy of a route, its checked addresses (the only ones dialled) and its pooled connections. */
interface UpstreamState {
  proxy: ProxyUrl;
  masked: string;
  addresses: string[];
  /**
   * Keep-alive connections for plain-HTTP requests: to an http(s) upstream, or through a SOCKS5 one to each
   * destination (a SocksAgent). Shared by the listeners bound to the same proxy (see upstreamAgent).
   */
  agent: Agent | HttpsAgent;
  /** Outcomes of this route only (what its upstream said), looked up before the shared memory. */
  memory: OutcomeMemory;
  /** The sockets of the listener it is bound to (see ListenerState), so they close with it. */
  sockets: Set<Duplex>;
}

/**
 * An upstream proxy whose own address the URL policy let pass (EgressProxy.checkUpstream): what a listener may be
 * bound to. Opaque outside this file; it carries the checked addresses, the only ones ever dialled.
 */
export class CheckedUpstream {
  /** @internal */
  constructor(
    readonly proxy: ProxyUrl,
    /** The proxy, masked. */
    readonly masked: string,
    readonly addresses: readonly string[],
  ) {}
}

/** A listener's own state: where it sends what the policy allowed, and every socket that closes with it. */
interface ListenerState {
  /** undefined until bound (every request refused), null straight to the destination, or on through an upstream. */
  upstream: UpstreamState | null | undefined;
  /** Null for the proxy's own listener, whose sockets live as long as the proxy. */
  sockets: Set<Duplex> | null;
}

/**
 * A listener of the egress proxy made before anyone knows where its traffic goes: a prewarmed spare's browser context
 * talks to it (`proxyServer` is fixed when a context is made), and the lease that takes the spare binds it, once, to
 * straight out or to the capture's upstream proxy. Until then it refuses every request, so nothing goes anywhere
 * unchosen; once bound it is that one capture's and closes with its lease.
 */
export interface EgressListener {
  /** `http://127.0.0.1:<port>`, for the browser context's proxyServer. */
  readonly proxyServer: string;
  /** Binds where allowed connections go: straight out (null) or through the checked upstream. Throws if bound already. */
  bind(upstream: CheckedUpstream | null): void;
  /** Why the latest connection to a URL's host:port failed: this listener's upstream first, then the shared memory. */
  explain(url: string): EgressOutcome | undefined;
  close(): Promise<void>;
}

/** Said in a listener's answer to a request that came before it was bound (never, for a capture: it binds first). */
const UNBOUND_ERROR = 'net::ERR_PROXY_CONNECTION_FAILED';

type Decision = { allowed: true; addresses: string[] } | { allowed: false; outcome: PolicyOutcome };

interface Destination {
  /** As the WHATWG URL parser normalises it: lower case, IPv4 in dotted quad, IPv6 in brackets. */
  hostname: string;
  port: number;
}

const DEFAULT_RESOLVE_TIMEOUT_MS = 5_000;
const DEFAULT_RESOLVE_CACHE_MS = 5_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MEMORY = { maxEntries: 500, ttlMs: 60_000 };
const RESOLVE_CACHE_MAX = 1_000;
/** Upstream proxies whose keep-alive connections are kept (see upstreamAgent). */
const UPSTREAM_AGENTS_MAX = 64;

/** RFC 9110 section 7.6.1, plus the proxy-specific ones; never forwarded in either direction. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const defaultResolver: HostResolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** Node's socket error codes, spelled the way Chromium reports them, so failures read as they did without the proxy. */
function netErrorFor(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'net::ERR_CONNECTION_REFUSED';
    case 'ETIMEDOUT':
      return 'net::ERR_CONNECTION_TIMED_OUT';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return 'net::ERR_ADDRESS_UNREACHABLE';
    case 'ECONNRESET':
      // Node's "socket hang up": the server closed the connection without answering.
      return (error as Error).message === 'socket hang up' ? 'net::ERR_EMPTY_RESPONSE' : 'net::ERR_CONNECTION_RESET';
    case 'EPIPE':
      return 'net::ERR_CONNECTION_RESET';
    default:
      return 'net::ERR_CONNECTION_FAILED';
  }
}

/**
 * A CONNECT request-target is "host:port" (authority form), IPv6 in brackets. Anything else (paths,
 * userinfo, percent-escapes, spaces) is refused rather than guessed at; the WHATWG parser then
 * normalises the host exactly as it does for the policy's own checks.
 */
function parseAuthority(target: string): Destination | null {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/.exec(target);
  if (!match) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return null;
  try {
    const url = new URL(`http://${match[1]}/`);
    return url.hostname === '' ? null : { hostname: url.hostname, port };
  } catch {
    return null;
  }
}

function defaultPort(protocol: string): number {
  return protocol === 'https:' || protocol === 'wss:' ? 443 : 80;
}

function keyOf(destination: Destination): string {
  return `${destination.hostname}:${destination.port}`;
}

/** The address to hand to net.connect: URL hostnames keep IPv6 in brackets, sockets want it bare. */
function literalAddress(hostname: string): string | null {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  return isIP(hostname) === 4 ? hostname : null;
}

/** The request-side hop-by-hop headers dropped, and the ones the Connection header names. */
function forwardableHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ''),
  );
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** Requests with a body cannot be replayed to a second address once the first attempt consumed it. */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Chromium marks the fetch of a service worker's script with `Service-Worker: script`. Capture contexts
 * remove the registration API in the page (see in-page-scripts), and this refuses the script fetch too,
 * so a page that finds a way around the first still gets no worker over plain HTTP.
 */
function isServiceWorkerScript(req: IncomingMessage): boolean {
  return String(req.headers['service-worker'] ?? '').toLowerCase() === 'script';
}

/** A socket error reaching the upstream proxy, in words. */
function upstreamWords(error: unknown): string {
  if (error instanceof UpstreamError) return error.message;
  switch ((error as NodeJS.ErrnoException | null)?.code) {
    case 'ECONNREFUSED':
      return 'could not be reached (connection refused)';
    case 'ETIMEDOUT':
      return 'could not be reached (no answer in time)';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'closed the connection';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'could not be reached (no route to it)';
    default:
      return 'could not be reached';
  }
}

/** An http(s) upstream's answer to CONNECT (or to a request) other than success. */
function statusError(status: number): UpstreamError {
  if (status === 407) return new UpstreamError('credentials', 'rejected its credentials (HTTP 407 Proxy Authentication Required)');
  return new UpstreamError('destination', `the proxy answered HTTP ${status}`);
}

/** The socks library's errors (their messages are English but not ours), in words. */
function socksError(error: unknown): UpstreamError {
  const message = error instanceof Error ? error.message : String(error);
  if (/authentication failed/i.test(message)) return new UpstreamError('credentials', 'rejected its credentials (SOCKS5 authentication failed)');
  if (/no acceptable authentication|unknown authentication/i.test(message))
    return new UpstreamError('credentials', 'refused the authentication offered (SOCKS5: credentials required)');
  if (/proxy rejected connection/i.test(message)) return new UpstreamError('destination', `the proxy refused it (${message.replace(/^.*- /, '')})`);
  if (/timed out/i.test(message)) return new UpstreamError('unreachable', 'could not be reached (no answer in time)');
  // The library's "internal error": an answer it did not expect in the handshake. Seen from simple-socks refusing
  // credentials (it echoes the whole request with the failure byte, which the library reads as two answers).
  if (/internal error/i.test(message)) return new UpstreamError('unreachable', 'broke off the SOCKS5 handshake (wrong credentials?)');
  return new UpstreamError('unreachable', upstreamWords(error));
}

/**
 * Keep-alive connections through a SOCKS5 upstream for plain-HTTP requests, pooled per destination (the Agent keys
 * its pool by the request's host:port, here the destination's): without it every request opened a SOCKS connection
 * of its own, handshake and credentials included (measured in docs/proxies.md).
 */
class SocksAgent extends Agent {
  constructor(connect: (destination: Destination) => Promise<Duplex>, options: ConstructorParameters<typeof Agent>[0]) {
    super(options);
    // Node's Agent takes the callback form: the socket arrives once the SOCKS handshake is done.
    (this as unknown as { createConnection: unknown }).createConnection = (
      request: { host: string; port: number },
      done: (error: Error | null, socket?: Duplex) => void,
    ): undefined => {
      connect({ hostname: request.host, port: Number(request.port) }).then(
        (socket) => done(null, socket),
        (error: unknown) => done(asError(error)),
      );
      return undefined;
    };
  }
}

/** Remembers the latest refusal or failure per host:port, for a while, so a failed navigation can be explained. */
class OutcomeMemory {
  private readonly entries = new Map<string, { outcome: EgressOutcome; expires: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  set(key: string, outcome: EgressOutcome | null): void {
    this.entries.delete(key);
    if (outcome === null) return;
    this.entries.set(key, { outcome, expires: Date.now() + this.ttlMs });
    // Map keeps insertion order and set() re-inserts, so the first key is the oldest.
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  get(key: string): EgressOutcome | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.outcome;
  }
}

/**
 * The forward proxy. One per process is enough: it is asynchronous I/O only, and every browser of the
 * pool points at it. `start()` listens on an ephemeral loopback port; `close()` destroys every socket.
 */
export class EgressProxy {
  private readonly server: Server;
  /** Pools upstream connections for plain HTTP. Keyed by the dialled IP, never by a name. */
  /**
   * Idle upstream connections are dropped after 4 s, before the 5 s keep-alive of Node's and Apache's servers:
   * reusing one the server is closing at that moment is the stale keep-alive race (see forward()).
   */
  private readonly agent = new Agent({ keepAlive: true, maxFreeSockets: 64, scheduling: 'lifo', timeout: 4_000 });
  private readonly sockets = new Set<Duplex>();
  /** Listeners of routes and spares not closed yet (closed with the proxy at the latest). */
  private readonly listeners = new Set<() => Promise<void>>();
  private readonly upstreamAgents = new Map<string, Agent | HttpsAgent>();
  private readonly memory: OutcomeMemory;
  private readonly allowedOrigins: ReadonlySet<string>;
  /** The policy with nothing relaxed: only consulted when the address check applies. */
  private readonly strictPolicy: UrlPolicy;
  private readonly resolveCache = new Map<string, { addresses: Promise<string[]>; expires: number }>();
  private readonly rawResolve: HostResolver;
  private readonly resolveTimeoutMs: number;
  private readonly resolveCacheMs: number;
  private readonly connectTimeoutMs: number;
  private listening: AddressInfo | null = null;
  private starting: Promise<this> | null = null;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: EgressProxyOptions) {
    this.allowedOrigins = new Set(options.allowlist.map(normaliseAllowlistEntry));
    this.rawResolve = options.resolve ?? defaultResolver;
    this.resolveTimeoutMs = options.resolveTimeoutMs ?? DEFAULT_RESOLVE_TIMEOUT_MS;
    this.resolveCacheMs = options.resolveCacheMs ?? DEFAULT_RESOLVE_CACHE_MS;
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const memory = options.memory ?? DEFAULT_MEMORY;
    this.memory = new OutcomeMemory(memory.maxEntries, memory.ttlMs);
    this.strictPolicy = new UrlPolicy({
      allowPrivateNetworks: false,
      allowlist: [],
      resolve: (hostname) => this.resolveCached(hostname),
      resolveTimeoutMs: this.resolveTimeoutMs,
    });

    this.server = this.createListener({ upstream: null, sockets: null });
  }

  /** A listener: the proxy's own (straight to the destination) or a route's or spare's. */
  private createListener(state: ListenerState): Server {
    const server = createServer({ keepAliveTimeout: 30_000 });
    server.on('connection', (socket: Socket) => this.track(socket, state.sockets));
    // A bug in a handler must cost one request, never the process (an unhandled rejection would).
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.handleRequest(req, res, state).catch(() => res.destroy());
    });
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.handleConnect(req, socket, head, state).catch(() => socket.destroy());
    });
    // Chromium never asks for an upgrade in absolute form (WebSockets go through CONNECT); refuse it.
    server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
      socket.on('error', () => undefined);
      this.endTunnel(socket, '501 Not Implemented');
    });
    server.on('clientError', (_error: Error, socket: Duplex) => {
      // Malformed requests and resets from a dying browser: answer if still possible, never crash.
      if (socket.writable) this.endTunnel(socket, '400 Bad Request');
      else socket.destroy();
    });
    return server;
  }

  /**
   * Puts the upstream proxy's own address through the URL policy (a private or loopback proxy needs URL_ALLOWLIST
   * or ALLOW_PRIVATE_NETWORKS) and resolves it; only the addresses checked here are ever dialled. Throws
   * UpstreamRefused, in words naming the masked proxy, when the policy refuses it or it does not resolve.
   */
  async checkUpstream(proxy: ProxyUrl): Promise<CheckedUpstream> {
    await this.start();
    const masked = maskProxy(proxy);
    const destination: Destination = { hostname: proxy.hostname, port: proxy.port };
    const origins = ['http', 'https'].map((scheme) => new URL(`${scheme}://${keyOf(destination)}`).origin);
    const decision = await this.decide(destination, origins).catch((): Decision => ({
      allowed: false,
      outcome: { kind: 'failed', error: 'net::ERR_NAME_NOT_RESOLVED' },
    }));
    if (!decision.allowed) {
      const words =
        decision.outcome.kind === 'blocked'
          ? `is refused by the URL policy: ${decision.outcome.reason}`
          : 'could not be found (its host name does not resolve)';
      throw new UpstreamRefused(proxyFailureMessage(masked, words), masked);
    }
    return new CheckedUpstream(proxy, masked, decision.addresses);
  }

  /**
   * A new listener on 127.0.0.1, not bound yet (see EgressListener): it refuses every request until bind() says
   * where they go. Closed by its owner, or with the proxy at the latest.
   */
  async listener(): Promise<EgressListener> {
    await this.start();
    const sockets = new Set<Duplex>();
    const state: ListenerState = { upstream: undefined, sockets };
    const server = this.createListener(state);
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
    let bound = false;
    let closing: Promise<void> | null = null;
    const close = (): Promise<void> =>
      (closing ??= new Promise<void>((resolve) => {
        this.listeners.delete(close);
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      }));
    this.listeners.add(close);
    if (this.closing) await close();
    return {
      proxyServer: `http://127.0.0.1:${port}`,
      bind: (upstream) => {
        if (bound) throw new Error('This egress listener is bound already');
        if (closing) throw new Error('This egress listener is closed');
        bound = true;
        state.upstream = upstream && {
          proxy: upstream.proxy,
          masked: upstream.masked,
          addresses: [...upstream.addresses],
          agent: this.upstreamAgent(upstream.proxy, upstream.addresses[0]),
          memory: new OutcomeMemory(DEFAULT_MEMORY.maxEntries, DEFAULT_MEMORY.ttlMs),
          sockets,
        };
      },
      explain: (url) => (state.upstream ? this.explainIn(state.upstream.memory, url) : undefined) ?? this.explain(url),
      close,
    };
  }

  /** Listeners of routes and spares open right now (each closes with its lease or spare; for tests and leak checks). */
  get openListeners(): number {
    return this.listeners.size;
  }

  /** Listens on 127.0.0.1 at an ephemeral port. */
  start(): Promise<this> {
    if (this.closing) return Promise.reject(new Error('EgressProxy is closed'));
    this.starting ??= new Promise<this>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        this.server.off('error', reject);
        this.listening = this.server.address() as AddressInfo;
        resolve(this);
      });
    });
    return this.starting;
  }

  get port(): number {
    if (!this.listening) throw new Error('EgressProxy is not started');
    return this.listening.port;
  }

  /** The Chromium switches that send every request of a browser through this proxy, loopback included. */
  chromiumArgs(): string[] {
    return [`--proxy-server=http://127.0.0.1:${this.port}`, '--proxy-bypass-list=<-loopback>'];
  }

  /**
   * The latest refusal or failure for the host:port of `url`, if recent. Used to explain a navigation
   * that Chromium reports only as `net::ERR_TUNNEL_CONNECTION_FAILED` (a refused CONNECT).
   */
  explain(url: string): EgressOutcome | undefined {
    return this.explainIn(this.memory, url);
  }

  private explainIn(memory: OutcomeMemory, url: string): EgressOutcome | undefined {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    if (parsed.hostname === '') return undefined;
    const port = parsed.port === '' ? defaultPort(parsed.protocol) : Number(parsed.port);
    return memory.get(keyOf({ hostname: parsed.hostname, port }));
  }

  /** Stops listening and destroys every client and upstream socket; in-flight requests fail. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // A start() still in progress would otherwise leave a listening server behind.
      await this.starting?.catch(() => undefined);
      this.agent.destroy();
      await Promise.all([...this.listeners].map((close) => close()));
      for (const agent of this.upstreamAgents.values()) agent.destroy();
      this.upstreamAgents.clear();
      if (!this.listening) return;
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      for (const socket of this.sockets) socket.destroy();
      this.sockets.clear();
      await closed;
    })();
    return this.closing;
  }

  // --- decisions -------------------------------------------------------------------------------

  /**
   * Decides whether `destination` may be reached and, if so, which addresses to dial.
   *
   * `origins` are the origins the connection may carry. For plain HTTP that is exactly one. A CONNECT
   * names only host:port: Chromium uses it for https and wss but also for plain ws, and cannot be asked
   * which, so both `http://host:port` and `https://host:port` are candidates, and an allowlist entry
   * for either admits the tunnel. That is no wider than the allowlist meant: the address check is about
   * which network endpoint a socket reaches, and both origins name the same endpoint; the scheme only
   * says whether TLS runs inside it.
   */
  private async decide(destination: Destination, origins: string[]): Promise<Decision> {
    const skipAddressCheck = this.options.allowPrivateNetworks || origins.some((origin) => this.allowedOrigins.has(origin));
    const literal = literalAddress(destination.hostname);

    if (skipAddressCheck) {
      if (literal !== null) return { allowed: true, addresses: [literal] };
      try {
        const addresses = await this.resolveWithTimeout(destination.hostname);
        if (addresses.length > 0) return { allowed: true, addresses };
      } catch {
        // Reported below.
      }
      return { allowed: false, outcome: { kind: 'failed', error: 'net::ERR_NAME_NOT_RESOLVED' } };
    }

    // The policy's own check, so a capture is refused with the same reasons as the API entry points
    // (literal classification, localhost names, every resolved address public). It resolves the name
    // once, and the addresses it approved are the only ones dialled.
    const verdict = await this.strictPolicy.check(`http://${destination.hostname}:${destination.port}/`);
    if (verdict.allowed) return { allowed: true, addresses: verdict.addresses };
    if (verdict.reason === UrlPolicyReasons.unresolvable) {
      // Not a policy matter: the page points at a name that does not exist.
      return { allowed: false, outcome: { kind: 'failed', error: 'net::ERR_NAME_NOT_RESOLVED' } };
    }
    return { allowed: false, outcome: { kind: 'blocked', reason: verdict.reason } };
  }

  private resolveCached(hostname: string): Promise<string[]> {
    const now = Date.now();
    const cached = this.resolveCache.get(hostname);
    if (cached && cached.expires > now) return cached.addresses;
    const addresses = this.resolveWithTimeout(hostname);
    if (this.resolveCacheMs > 0) {
      this.resolveCache.set(hostname, { addresses, expires: now + this.resolveCacheMs });
      // Failures are not worth keeping: the next request asks again.
      addresses.catch(() => this.resolveCache.delete(hostname));
      if (this.resolveCache.size > RESOLVE_CACHE_MAX) {
        for (const [name, entry] of this.resolveCache) {
          if (entry.expires <= now || this.resolveCache.size > RESOLVE_CACHE_MAX) this.resolveCache.delete(name);
        }
      }
    }
    return addresses;
  }

  private resolveWithTimeout(hostname: string): Promise<string[]> {
    return new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`resolving ${hostname} timed out`)), this.resolveTimeoutMs);
      timer.unref();
      let pending: Promise<string[]>;
      try {
        pending = Promise.resolve(this.rawResolve(hostname));
      } catch (error) {
        clearTimeout(timer);
        reject(asError(error));
        return;
      }
      pending.then(
        (addresses) => {
          clearTimeout(timer);
          if (!Array.isArray(addresses)) reject(new Error(`resolver returned no list for ${hostname}`));
          // Only IP addresses may ever be dialled; a resolver answering names would reopen the question.
          else resolve(addresses.filter((address) => typeof address === 'string' && isIP(address.split('%')[0]) !== 0));
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(asError(error));
        },
      );
    });
  }

  // --- plain HTTP ------------------------------------------------------------------------------

  private async handleRequest(req: IncomingMessage, res: ServerResponse, listener: ListenerState): Promise<void> {
    res.on('error', () => undefined);
    req.on('error', () => undefined);
    const { upstream } = listener;
    if (upstream === undefined) return this.reply(res, 503, UNBOUND_ERROR, { [EGRESS_ERROR_HEADER]: UNBOUND_ERROR });
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      // Origin-form ("GET /x"): someone is talking to the proxy as if it were a web server.
      return this.reply(res, 400, 'absolute-form http:// request-target required');
    }
    if (url.protocol !== 'http:' || url.hostname === '' || url.username !== '' || url.password !== '') {
      return this.reply(res, 400, 'absolute-form http:// request-target required');
    }
    const destination: Destination = { hostname: url.hostname, port: url.port === '' ? 80 : Number(url.port) };
    const key = keyOf(destination);

    if (isServiceWorkerScript(req)) {
      this.memory.set(key, { kind: 'blocked', reason: SERVICE_WORKERS_DISABLED });
      return this.refuse(res, SERVICE_WORKERS_DISABLED);
    }

    let decision: Decision;
    try {
      decision = await this.decide(destination, [url.origin]);
    } catch {
      decision = { allowed: false, outcome: { kind: 'failed', error: 'net::ERR_NAME_NOT_RESOLVED' } };
    }
    if (res.destroyed) return;
    if (!decision.allowed) {
      this.memory.set(key, decision.outcome);
      if (decision.outcome.kind === 'blocked') return this.refuse(res, decision.outcome.reason);
      return this.fail(res, decision.outcome.error);
    }
    this.memory.set(key, null);
    if (upstream) this.forwardThrough(upstream, req, res, url);
    else this.forward(req, res, url, decision.addresses, 0);
  }

  /**
   * Sends the request to addresses[index]. Before anything reached the server it may be sent again: to
   * the next checked address when this one cannot be reached, or once more on a fresh connection when a
   * pooled keep-alive connection turned out to be closed already (the race Node's docs describe for
   * `reusedSocket`). That replay opens a new connection: connections freed together expire together, so
   * the next pooled one may be closing as well (seen in the bench as a failed capture, ERR_EMPTY_RESPONSE).
   * Only bodiless requests are replayed; a body has already been consumed.
   */
  private forward(req: IncomingMessage, res: ServerResponse, url: URL, addresses: string[], index: number, replayed = false): void {
    const port = url.port === '' ? 80 : Number(url.port);
    const headers = forwardableHeaders(req.headers);
    // RFC 9112 section 3.2.2: with an absolute-form target the Host header is replaced by the target's.
    headers.host = url.host;
    const upstream: ClientRequest = httpRequest({
      host: addresses[index],
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      agent: replayed ? false : this.agent,
      setHost: false,
    });
    let connected = false;
    upstream.on('socket', (socket: Socket) => {
      this.track(socket);
      if (!socket.connecting) {
        connected = true; // a pooled keep-alive connection
        return;
      }
      // Only the connect is bounded here; once connected, Chromium decides how long it waits.
      const timer = setTimeout(() => upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })), this.connectTimeoutMs);
      socket.once('connect', () => {
        connected = true;
        clearTimeout(timer);
      });
      socket.once('close', () => clearTimeout(timer));
    });
    upstream.on('response', (response: IncomingMessage) => {
      const out = forwardableHeaders(response.headers);
      // Only the proxy may speak for the policy: a site sending these would fail its own capture oddly.
      delete out[URL_POLICY_BLOCK_HEADER];
      delete out[EGRESS_ERROR_HEADER];
      res.writeHead(response.statusCode ?? 502, response.statusMessage, out);
      response.on('error', () => res.destroy());
      response.pipe(res);
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const replayable = !hasBody(req) && !res.destroyed;
      if (replayable && !replayed && upstream.reusedSocket && error.code === 'ECONNRESET') {
        this.forward(req, res, url, addresses, index, true);
        return;
      }
      if (replayable && !connected && index + 1 < addresses.length) {
        this.forward(req, res, url, addresses, index + 1, replayed);
        return;
      }
      const netError = netErrorFor(error);
      this.memory.set(keyOf({ hostname: url.hostname, port }), { kind: 'failed', error: netError });
      this.fail(res, netError);
    });
    // Chromium gave up (navigation cancelled, context closed): stop the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (req.readableEnded) upstream.end();
    else req.pipe(upstream);
  }

  private refuse(res: ServerResponse, reason: string): void {
    this.reply(res, 403, `blocked by URL policy: ${reason}`, { [URL_POLICY_BLOCK_HEADER]: reason });
  }

  private fail(res: ServerResponse, netError: string): void {
    this.reply(res, 502, netError, { [EGRESS_ERROR_HEADER]: netError });
  }

  private reply(res: ServerResponse, status: number, body: string, headers: OutgoingHttpHeaders = {}): void {
    if (res.headersSent || res.destroyed) return;
    const text = `${body}\n`;
    res.writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
      ...headers,
    });
    res.end(text);
  }

  // --- CONNECT tunnels -------------------------------------------------------------------------

  private async handleConnect(req: IncomingMessage, client: Duplex, head: Buffer, listener: ListenerState): Promise<void> {
    this.track(client, listener.sockets);
    client.on('error', () => undefined);
    const { upstream } = listener;
    if (upstream === undefined) {
      this.endTunnel(client, '503 Service Unavailable', `${EGRESS_ERROR_HEADER}: ${UNBOUND_ERROR}`);
      return;
    }
    const destination = parseAuthority(req.url ?? '');
    if (!destination) {
      this.endTunnel(client, '400 Bad Request');
      return;
    }
    const key = keyOf(destination);
    const origins = ['http', 'https'].map((scheme) => new URL(`${scheme}://${key}`).origin);
    let decision: Decision;
    try {
      decision = await this.decide(destination, origins);
    } catch {
      decision = { allowed: false, outcome: { kind: 'failed', error: 'net::ERR_NAME_NOT_RESOLVED' } };
    }
    if (client.destroyed) return;
    if (!decision.allowed) {
      this.memory.set(key, decision.outcome);
      const header =
        decision.outcome.kind === 'blocked' ? `${URL_POLICY_BLOCK_HEADER}: ${decision.outcome.reason}` : `${EGRESS_ERROR_HEADER}: ${decision.outcome.error}`;
      this.endTunnel(client, decision.outcome.kind === 'blocked' ? '403 Forbidden' : '502 Bad Gateway', header);
      return;
    }
    this.memory.set(key, null);
    if (upstream) this.tunnelThrough(upstream, client, head, destination);
    else this.tunnel(client, head, destination, decision.addresses, 0);
  }

  private tunnel(client: Duplex, head: Buffer, destination: Destination, addresses: string[], index: number): void {
    const upstream = connect({ host: addresses[index], port: destination.port });
    this.track(upstream);
    let connected = false;
    upstream.setTimeout(this.connectTimeoutMs, () => {
      if (!connected) upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' }));
    });
    const abandon = (): void => {
      upstream.destroy();
    };
    client.once('close', abandon);
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      upstream.setNoDelay(true);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
      upstream.once('close', () => client.destroy());
    });
    upstream.on('error', (error: Error) => {
      if (connected) {
        client.destroy();
        return;
      }
      client.off('close', abandon);
      if (client.destroyed) return;
      if (index + 1 < addresses.length) {
        this.tunnel(client, head, destination, addresses, index + 1);
        return;
      }
      const netError = netErrorFor(error);
      this.memory.set(keyOf(destination), { kind: 'failed', error: netError });
      this.endTunnel(client, '502 Bad Gateway', `${EGRESS_ERROR_HEADER}: ${netError}`);
    });
  }

  /** Answers on a raw socket (a CONNECT not tunnelled, a bad request), then closes it. */
  private endTunnel(client: Duplex, status: string, header?: string): void {
    const lines = [`HTTP/1.1 ${status}`, ...(header ? [header] : []), 'Connection: close', 'Content-Length: 0'];
    // The server's sockets allow half-open connections, so end() alone could leave this one lingering.
    client.end(`${lines.join('\r\n')}\r\n\r\n`, () => client.destroy());
  }

  /** Tracked by the proxy (destroyed when it closes) and, when `owned` is given, by a listener too. */
  private track(socket: Duplex, owned: Set<Duplex> | null = null): void {
    if (owned && !owned.has(socket)) {
      owned.add(socket);
      socket.once('close', () => owned.delete(socket));
    }
    if (this.sockets.has(socket)) return;
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  // --- through an upstream proxy ---------------------------------------------------------------

  /** What a route tells Chromium when its upstream failed, remembered for explain(). */
  private upstreamFailed(upstream: UpstreamState, destination: Destination, error: unknown): EgressOutcome {
    const known = error instanceof UpstreamError ? error : new UpstreamError('unreachable', upstreamWords(error));
    const outcome: EgressOutcome = {
      kind: 'proxy',
      message: proxyFailureMessage(upstream.masked, known.fault === 'destination' ? `could not reach ${keyOf(destination)}: ${known.message}` : known.message),
      proxy: upstream.masked,
      fault: known.fault,
    };
    upstream.memory.set(keyOf(destination), outcome);
    return outcome;
  }

  /**
   * The keep-alive connections to an http(s) upstream, or through a SOCKS5 one to each destination, shared by the
   * routes through the same proxy (same address, same credentials), so consecutive captures through it reuse warm
   * connections as direct ones do (measured in docs/proxies.md). Idle connections close after 4 s; the least recently used agents beyond UPSTREAM_AGENTS_MAX go.
   */
  private upstreamAgent(proxy: ProxyUrl, address: string): Agent | HttpsAgent {
    const key = `${proxy.scheme}${address}:${proxy.port}:${proxy.hostname}:${proxy.username ?? ''}:${proxy.password ?? ''}`;
    const known = this.upstreamAgents.get(key);
    if (known) {
      this.upstreamAgents.delete(key);
      this.upstreamAgents.set(key, known);
      return known;
    }
    const options = { keepAlive: true, maxFreeSockets: 16, scheduling: 'lifo' as const, timeout: 4_000 };
    const agent =
      proxy.scheme === 'socks5:'
        ? new SocksAgent((destination) => this.socksConnect(proxy, address, destination), options)
        : proxy.scheme === 'http:'
          ? new Agent(options)
          : new HttpsAgent(options);
    this.upstreamAgents.set(key, agent);
    for (const [oldest, old] of this.upstreamAgents) {
      if (this.upstreamAgents.size <= UPSTREAM_AGENTS_MAX) break;
      this.upstreamAgents.delete(oldest);
      old.destroy();
    }
    return agent;
  }

  /** The `Proxy-Authorization` an http(s) upstream gets (Basic), when its URL has credentials. */
  private proxyAuthorization(proxy: ProxyUrl): OutgoingHttpHeaders {
    if (proxy.username === undefined && proxy.password === undefined) return {};
    const token = Buffer.from(`${proxy.username ?? ''}:${proxy.password ?? ''}`).toString('base64');
    return { 'proxy-authorization': `Basic ${token}` };
  }

  /** The first of the upstream's checked addresses (IPv6 bare, as sockets want it). */
  private upstreamAddress(upstream: UpstreamState): string {
    return upstream.addresses[0].replace(/^\[|\]$/g, '');
  }

  /**
   * A connection to `destination` through the upstream: a SOCKS5 CONNECT, or an HTTP CONNECT tunnel through an
   * http(s) proxy. The destination is handed over by name, so the proxy resolves it where it is (geo DNS) — the
   * policy has checked the name already. Rejects with an UpstreamError saying whose fault it was.
   */
  private connectThrough(upstream: UpstreamState, destination: Destination): Promise<Duplex> {
    const { proxy } = upstream;
    if (proxy.scheme === 'socks5:') return this.socksConnect(proxy, this.upstreamAddress(upstream), destination);
    return new Promise<Duplex>((resolve, reject) => {
      const target = keyOf(destination);
      const send = proxy.scheme === 'https:' ? httpsRequest : httpRequest;
      const request = send({
        host: this.upstreamAddress(upstream),
        port: proxy.port,
        method: 'CONNECT',
        path: target,
        headers: { host: target, ...this.proxyAuthorization(proxy) },
        agent: false,
        ...(proxy.scheme === 'https:' ? { servername: isIP(proxy.hostname) ? undefined : proxy.hostname } : {}),
      });
      const timer = setTimeout(() => request.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })), this.connectTimeoutMs);
      request.on('socket', (socket: Socket) => this.track(socket, upstream.sockets));
      request.once('connect', (response: IncomingMessage, socket: Duplex, head: Buffer) => {
        clearTimeout(timer);
        if (response.statusCode === 200) {
          if (head.length > 0) socket.unshift(head);
          resolve(socket);
          return;
        }
        socket.destroy();
        reject(statusError(response.statusCode ?? 502));
      });
      request.once('error', (error) => {
        clearTimeout(timer);
        reject(new UpstreamError('unreachable', upstreamWords(error)));
      });
      request.end();
    });
  }

  /** A SOCKS5 CONNECT to `destination` through the proxy at `address` (one of its checked addresses, bare). */
  private socksConnect(proxy: ProxyUrl, address: string, destination: Destination): Promise<Duplex> {
    return SocksClient.createConnection({
      proxy: { host: address, port: proxy.port, type: 5, userId: proxy.username, password: proxy.password },
      destination: { host: destination.hostname.replace(/^\[|\]$/g, ''), port: destination.port },
      command: 'connect',
      timeout: this.connectTimeoutMs,
    }).then(
      ({ socket }) => socket,
      (error: unknown) => {
        throw socksError(error);
      },
    );
  }

  private tunnelThrough(upstream: UpstreamState, client: Duplex, head: Buffer, destination: Destination): void {
    let abandoned = false;
    client.once('close', () => (abandoned = true));
    this.connectThrough(upstream, destination).then(
      (socket) => {
        this.track(socket, upstream.sockets);
        socket.on('error', () => client.destroy());
        if (abandoned || client.destroyed) {
          socket.destroy();
          return;
        }
        upstream.memory.set(keyOf(destination), null);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) socket.write(head);
        socket.pipe(client);
        client.pipe(socket);
        socket.once('close', () => client.destroy());
        client.once('close', () => socket.destroy());
      },
      (error: unknown) => {
        const outcome = this.upstreamFailed(upstream, destination, error);
        if (client.destroyed || outcome.kind !== 'proxy') return;
        this.endTunnel(client, '502 Bad Gateway', `${EGRESS_PROXY_ERROR_HEADER}: ${outcome.message}`);
      },
    );
  }

  /**
   * A plain-HTTP request through the upstream: in absolute form to an http(s) proxy, or over a SOCKS5 connection to
   * the destination, either way on the upstream's keep-alive connections. Nothing is replayed once the upstream may
   * have sent it on; only a bodiless request whose pooled connection turned out to be closed already (the stale
   * keep-alive race, see forward()) is sent once more, on a fresh connection.
   */
  private forwardThrough(upstream: UpstreamState, req: IncomingMessage, res: ServerResponse, url: URL, replayed = false): void {
    const { proxy } = upstream;
    const destination: Destination = { hostname: url.hostname, port: url.port === '' ? 80 : Number(url.port) };
    const headers = forwardableHeaders(req.headers);
    headers.host = url.host;
    const viaSocks = proxy.scheme === 'socks5:';
    const send = proxy.scheme === 'https:' ? httpsRequest : httpRequest;
    const outgoing: ClientRequest = viaSocks
      ? httpRequest({
          host: destination.hostname,
          port: destination.port,
          method: req.method,
          path: `${url.pathname}${url.search}`,
          headers,
          setHost: false,
          ...(replayed
            ? {
                createConnection: (_options: unknown, done: (error: Error | null, socket: Duplex) => void) => {
                  this.connectThrough(upstream, destination).then(
                    (socket) => done(null, socket),
                    (error: unknown) => done(asError(error), undefined as unknown as Duplex),
                  );
                  return undefined;
                },
              }
            : { agent: upstream.agent }),
        })
      : send({
          host: this.upstreamAddress(upstream),
          port: proxy.port,
          method: req.method,
          path: url.href,
          headers: { ...headers, ...this.proxyAuthorization(proxy) },
          agent: replayed ? false : upstream.agent,
          setHost: false,
          ...(proxy.scheme === 'https:' ? { servername: isIP(proxy.hostname) ? undefined : proxy.hostname } : {}),
        });
    let answered = false;
    // Pooled connections outlive the route (shared agent); a replay's fresh one is this request's.
    outgoing.on('socket', (socket: Socket) => this.track(socket, replayed ? upstream.sockets : null));
    outgoing.on('response', (response: IncomingMessage) => {
      answered = true;
      if (!viaSocks && response.statusCode === 407) {
        response.resume();
        const outcome = this.upstreamFailed(upstream, destination, statusError(407));
        if (outcome.kind === 'proxy') this.reply(res, 502, outcome.message, { [EGRESS_PROXY_ERROR_HEADER]: outcome.message });
        return;
      }
      upstream.memory.set(keyOf(destination), null);
      const out = forwardableHeaders(response.headers);
      delete out[URL_POLICY_BLOCK_HEADER];
      delete out[EGRESS_ERROR_HEADER];
      delete out[EGRESS_PROXY_ERROR_HEADER];
      res.writeHead(response.statusCode ?? 502, response.statusMessage, out);
      response.on('error', () => res.destroy());
      response.pipe(res);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (answered || res.headersSent) {
        res.destroy();
        return;
      }
      if (!replayed && outgoing.reusedSocket && error.code === 'ECONNRESET' && !hasBody(req) && !res.destroyed) {
        this.forwardThrough(upstream, req, res, url, true);
        return;
      }
      const outcome = this.upstreamFailed(upstream, destination, error);
      if (outcome.kind === 'proxy') this.reply(res, 502, outcome.message, { [EGRESS_PROXY_ERROR_HEADER]: outcome.message });
    });
    res.on('close', () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    if (req.readableEnded) outgoing.end();
    else req.pipe(outgoing);
  }
}
