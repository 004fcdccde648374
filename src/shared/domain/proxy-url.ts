/**
 * An upstream proxy as a capture goes through it (API.md fourth round, "Proxies"): `http://`, `https://` or
 * `socks5://`, credentials allowed. The URL is a secret as a whole (its password); what people see is the masked
 * form, `http://********@host:port`, the same one in answers, reports, error messages and logs.
 */
/** capture-secrets' REDACTED (that module imports this one, so the eight stars are spelled here too). */
const REDACTED = '********';

export const PROXY_SCHEMES = ['http:', 'https:', 'socks5:'] as const;
export type ProxyScheme = (typeof PROXY_SCHEMES)[number];

export interface ProxyUrl {
  scheme: ProxyScheme;
  /** As the WHATWG parser gives it: lower case, IPv6 in brackets. */
  hostname: string;
  port: number;
  username?: string;
  password?: string;
}

/** Longest proxy URL accepted (a URL with a long token as its password still fits). */
export const PROXY_URL_MAX = 2048;

const DEFAULT_PORTS: Record<ProxyScheme, number> = { 'http:': 80, 'https:': 443, 'socks5:': 1080 };

export const PROXY_URL_RULE = 'must be a proxy URL: http://, https:// or socks5://, a host, an optional port and optional user:password@, nothing else';

/** The proxy a URL names, or null when it is not one this service can go through. */
export function parseProxyUrl(text: string): ProxyUrl | null {
  if (typeof text !== 'string' || text.length === 0 || text.length > PROXY_URL_MAX || /\s/.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const scheme = url.protocol as ProxyScheme;
  if (!PROXY_SCHEMES.includes(scheme) || url.hostname === '') return null;
  // A path, a query or a fragment mean something else was pasted (a page URL, a PAC file).
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') return null;
  // socks5:// is not a special scheme for WHATWG: its host is kept as typed (upper case, percent-escapes).
  const hostname = scheme === 'socks5:' ? new URL(`http://${url.host}`).hostname : url.hostname;
  const port = url.port === '' ? DEFAULT_PORTS[scheme] : Number(url.port);
  const username = url.username === '' ? undefined : decodeURIComponent(url.username);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  return { scheme, hostname, port, ...(username !== undefined ? { username } : {}), ...(password !== undefined ? { password } : {}) };
}

export function hasCredentials(proxy: ProxyUrl): boolean {
  return proxy.username !== undefined || proxy.password !== undefined;
}

/** `http://********@host:port` (credentials masked), `socks5://host:1080` when it has none. */
export function maskProxy(proxy: ProxyUrl): string {
  return `${proxy.scheme}//${hasCredentials(proxy) ? `${REDACTED}@` : ''}${proxy.hostname}:${proxy.port}`;
}

/** The masked form of a proxy URL as typed; an unparsable one shows as REDACTED only (it may hold a password). */
export function maskProxyUrl(text: string): string {
  const proxy = parseProxyUrl(text);
  return proxy ? maskProxy(proxy) : REDACTED;
}

/** Whether `text` is the masked form of `stored` (a client sending GET's answer back keeps the stored proxy). */
export function isMaskOf(text: string, stored: string): boolean {
  return text.includes(REDACTED) && maskProxyUrl(stored) === text;
}

/**
 * `CAPTURE_PROXY_BYPASS`: host names (and `*.domain` / `.domain` suffixes) for which no operator default proxy is
 * used. Matching is on the page URL's host, case-insensitive.
 */
export function bypassesProxy(host: string, bypass: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return bypass.some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry === '') return false;
    if (entry === '*') return true;
    const suffix = entry.startsWith('*.') ? entry.slice(1) : entry.startsWith('.') ? entry : null;
    if (suffix) return h.endsWith(suffix) || h === suffix.slice(1);
    return h === entry.replace(/^\[|\]$/g, '');
  });
}

/** How a failed proxy is named in a job's error: words, the masked proxy, and the stable code at the end. */
export const PROXY_FAILED = 'proxy_failed';

export function proxyFailureMessage(masked: string, what: string): string {
  return `The proxy ${masked} ${what} (${PROXY_FAILED})`;
}
