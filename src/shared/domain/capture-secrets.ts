import { isMaskOf, maskProxyUrl } from './proxy-url';

/**
 * What a capture sends that only the website may see (API.md, Capture options: `headers`, `cookies`,
 * `http_auth`): the rules for them, and how they are shown — never their values.
 */
export interface CookieSpec {
  name: string;
  value: string;
  /** Defaults to the website's host; must be that host or a domain it belongs to. */
  domain?: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

export interface CaptureSecrets {
  headers?: Record<string, string>;
  cookies?: CookieSpec[];
  httpAuth?: { username: string; password: string };
  /** The upstream proxy's URL (`proxy`), credentials and all; shown masked (shared/domain/proxy-url.ts). */
  proxy?: string;
}

export const SECRET_LIMITS = { headers: 20, cookies: 50, valueMax: 4096 } as const;

/** What responses show in place of a secret value; sent back as it is, it keeps the stored value. */
export const REDACTED = '********';

/**
 * Headers a capture may not set: the browser owns them (Host, Content-Length, Connection, Transfer-Encoding),
 * cookies go through `cookies`, and Proxy-* would reach our egress proxy instead of the site.
 */
export function isForbiddenHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return ['host', 'cookie', 'content-length', 'connection', 'transfer-encoding'].includes(lower) || lower.startsWith('proxy-');
}

/** An HTTP token (RFC 9110 field-name). */
export function isHeaderName(name: string): boolean {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name);
}

/**
 * RFC 9110 field-value characters: any but the C0 controls (CR, LF and NUL among them) and DEL; HTAB is allowed.
 * Chromium refuses a header or user agent holding one — a request never sent, or a browser call that fails —
 * so such text is refused where it is typed (API, dashboard) and never handed to the browser (browserRefusal).
 */
export function isFieldValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return false;
  }
  return true;
}

export const FIELD_VALUE_RULE = 'control characters (CR, LF, NUL, other C0 controls or DEL)';

/** The first name that repeats another but for case (`x-a` after `X-A`): HTTP header names ignore case. */
export function caseDuplicate(names: readonly string[]): { name: string; first: string } | null {
  const seen = new Map<string, string>();
  for (const name of names) {
    const first = seen.get(name.toLowerCase());
    if (first !== undefined) return { name, first };
    seen.set(name.toLowerCase(), name);
  }
  return null;
}

/**
 * Why a browser would refuse these capture settings, or null. A value the API refuses today may sit in a row
 * saved before the rule (a CR/LF user agent): the capture fails as the page's fault with this reason, once and
 * never retried, instead of Chromium failing in a way that looks like a crash (or a blank page never requested).
 */
export function browserRefusal(settings: { secrets?: CaptureSecrets; userAgent?: string }): string | null {
  const fix = "edit the website's capture options";
  if (settings.userAgent !== undefined && !isFieldValue(settings.userAgent))
    return `The user agent has characters a browser refuses (${FIELD_VALUE_RULE}); ${fix}`;
  for (const [name, value] of Object.entries(settings.secrets?.headers ?? {})) {
    if (!isHeaderName(name)) return `The header name ${JSON.stringify(name)} is not a valid HTTP header name; ${fix}`;
    if (!isFieldValue(value)) return `The header ${name} has characters a browser refuses (${FIELD_VALUE_RULE}); ${fix}`;
  }
  const duplicate = caseDuplicate(Object.keys(settings.secrets?.headers ?? {}));
  if (duplicate) return `The header ${duplicate.name} is set twice (also as ${duplicate.first}); ${fix}`;
  for (const cookie of settings.secrets?.cookies ?? []) {
    if (!isHeaderName(cookie.name) || !isFieldValue(cookie.value) || cookie.value.includes(';')) {
      return `The cookie ${JSON.stringify(cookie.name)} has characters a browser refuses in its name or value; ${fix}`;
    }
  }
  return null;
}

/** An IPv4 or IPv6 literal (as URL.hostname gives them: IPv6 in brackets). */
function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[') || host.includes(':');
}

/** Whether `host` is the website's host or one of its subdomains: the only hosts that get the secrets. */
export function isFirstParty(host: string, websiteHost: string): boolean {
  const h = host.toLowerCase();
  const w = websiteHost.toLowerCase();
  return h === w || (!isIpLiteral(w) && h.endsWith(`.${w}`));
}

/** A cookie's domain (leading dot ignored) must be the website's host or a parent domain of it. */
export function cookieDomainAllowed(domain: string, websiteHost: string): boolean {
  const d = domain.replace(/^\./, '').toLowerCase();
  // An address has no parent domains: `0.0.1` is not a domain 127.0.0.1 belongs to, only the address itself is.
  if (isIpLiteral(websiteHost) || isIpLiteral(d)) return d === websiteHost.toLowerCase();
  return d.length > 0 && d.includes('.') === websiteHost.includes('.') && isFirstParty(websiteHost, d);
}

export function hasSecrets(secrets: CaptureSecrets | undefined): secrets is CaptureSecrets {
  return !!secrets && (secrets.headers !== undefined || secrets.cookies !== undefined || secrets.httpAuth !== undefined || secrets.proxy !== undefined);
}

/** Values replaced by REDACTED; names, domains and flags kept. */
export function redactSecrets(secrets: CaptureSecrets): CaptureSecrets {
  return {
    ...(secrets.headers ? { headers: Object.fromEntries(Object.keys(secrets.headers).map((name) => [name, REDACTED])) } : {}),
    ...(secrets.cookies ? { cookies: secrets.cookies.map((c) => ({ ...c, value: REDACTED })) } : {}),
    ...(secrets.httpAuth ? { httpAuth: { username: REDACTED, password: REDACTED } } : {}),
    ...(secrets.proxy !== undefined ? { proxy: maskProxyUrl(secrets.proxy) } : {}),
  };
}

/**
 * New secrets for a website whose stored ones are `stored`: a value sent back as REDACTED (a client echoing
 * GET) keeps the stored value of that header, cookie or credential.
 */
export function keepRedacted(next: CaptureSecrets, stored: CaptureSecrets | undefined): CaptureSecrets {
  const out: CaptureSecrets = {};
  if (next.headers) {
    const storedHeaders = new Map(Object.entries(stored?.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    out.headers = Object.fromEntries(
      Object.entries(next.headers).map(([name, value]) => [name, value === REDACTED ? (storedHeaders.get(name.toLowerCase()) ?? value) : value]),
    );
  }
  if (next.cookies) {
    out.cookies = next.cookies.map((c) => (c.value === REDACTED ? { ...c, value: stored?.cookies?.find((s) => s.name === c.name)?.value ?? c.value } : c));
  }
  if (next.httpAuth) {
    out.httpAuth = {
      username: next.httpAuth.username === REDACTED ? (stored?.httpAuth?.username ?? REDACTED) : next.httpAuth.username,
      password: next.httpAuth.password === REDACTED ? (stored?.httpAuth?.password ?? REDACTED) : next.httpAuth.password,
    };
  }
  if (next.proxy !== undefined) out.proxy = stored?.proxy !== undefined && isMaskOf(next.proxy, stored.proxy) ? stored.proxy : next.proxy;
  return out;
}

/** Cookies whose domain is not the website's (`cookies[i].domain`): a capture never sets a third party's cookie. */
export function secretConflicts(secrets: CaptureSecrets | undefined, websiteHost: string): Array<{ field: string; message: string }> {
  return (secrets?.cookies ?? []).flatMap((cookie, i) =>
    cookie.domain === undefined || cookieDomainAllowed(cookie.domain, websiteHost)
      ? []
      : [{ field: `cookies[${i}].domain`, message: `cookies[${i}].domain must be the website's host (${websiteHost}) or a domain it belongs to` }],
  );
}

/** The request's secrets over the website's, field by field (headers, cookies, http_auth each as a whole). */
export function mergeSecrets(request: CaptureSecrets | undefined, website: CaptureSecrets | undefined): CaptureSecrets {
  return {
    ...((request?.headers ?? website?.headers) ? { headers: request?.headers ?? website?.headers } : {}),
    ...((request?.cookies ?? website?.cookies) ? { cookies: request?.cookies ?? website?.cookies } : {}),
    ...((request?.httpAuth ?? website?.httpAuth) ? { httpAuth: request?.httpAuth ?? website?.httpAuth } : {}),
    ...((request?.proxy ?? website?.proxy) !== undefined ? { proxy: request?.proxy ?? website?.proxy } : {}),
  };
}
