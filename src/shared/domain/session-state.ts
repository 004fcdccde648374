/**
 * A saved session's browser state (API.md fourth round, "Saved sessions"; docs/sessions.md): the cookies and the
 * localStorage / sessionStorage of the origins a login visited. The sessions context keeps it sealed; the capture
 * port receives it resolved (never an id) and starts the page with it. Here: its shape, the readers of the three
 * formats people bring (the capture options' cookie objects, a Netscape cookies.txt, a Playwright storage state),
 * and what may be shown of it (names, domains, expiry — never a value).
 */
import { isFieldValue, isHeaderName, type CookieSpec } from './capture-secrets';

export interface SessionCookie {
  name: string;
  value: string;
  /** Without a leading dot. */
  domain: string;
  /** true: sent to `domain` only (no subdomains); false: to it and its subdomains (a `.example.com` cookie). */
  hostOnly: boolean;
  path: string;
  /** Unix seconds; null for a session cookie (ends with the browser). */
  expires: number | null;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

export interface StorageItem {
  name: string;
  value: string;
}

export interface OriginStorage {
  /** `https://shop.example.com` (scheme, host, port: a browser's origin). */
  origin: string;
  localStorage: StorageItem[];
  sessionStorage: StorageItem[];
}

export interface SessionState {
  cookies: SessionCookie[];
  origins: OriginStorage[];
}

export const SESSION_STATE_LIMITS = { cookies: 300, origins: 20, itemsPerOrigin: 500, textMax: 1024 * 1024, valueMax: 64 * 1024 } as const;

/** What may be shown of a cookie: never its value. */
export interface CookieSummary {
  name: string;
  domain: string;
  path: string;
  expires: string | null;
}

export type Parsed = { state: SessionState; problems: [] } | { state: null; problems: Array<{ field: string; message: string }> };

function problem(field: string, message: string): Parsed {
  return { state: null, problems: [{ field, message }] };
}

const SAME_SITE = new Set(['Strict', 'Lax', 'None']);

/** One cookie's rules, whatever format it came in; null when it is fine. */
function cookieProblem(c: SessionCookie): string | null {
  if (!isHeaderName(c.name)) return 'has a name a browser refuses';
  if (!isFieldValue(c.value) || c.value.includes(';') || c.value.length > SESSION_STATE_LIMITS.valueMax) return 'has a value a browser refuses';
  if (!/^[a-z0-9.-]+$/i.test(c.domain) && !/^\[[0-9a-f:.]+\]$/i.test(c.domain)) return 'needs a domain (a host name such as example.com)';
  if (!c.path.startsWith('/')) return 'has a path that does not start with /';
  return null;
}

function normalizeOrigin(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin;
  } catch {
    return null;
  }
}

function finish(state: SessionState, field: string): Parsed {
  if (state.cookies.length === 0 && state.origins.every((o) => o.localStorage.length + o.sessionStorage.length === 0))
    return problem(field, `${field} holds no cookie and no storage: nothing to log in with`);
  if (state.cookies.length > SESSION_STATE_LIMITS.cookies) return problem(field, `${field} holds more than ${SESSION_STATE_LIMITS.cookies} cookies`);
  if (state.origins.length > SESSION_STATE_LIMITS.origins) return problem(field, `${field} holds more than ${SESSION_STATE_LIMITS.origins} origins`);
  return { state, problems: [] };
}

/** `from.cookies`: the capture options' cookie objects; a session belongs to no website, so each names its domain. */
export function stateFromCookieSpecs(cookies: readonly CookieSpec[]): Parsed {
  const out: SessionCookie[] = [];
  for (const [i, c] of cookies.entries()) {
    const field = `from.cookies[${i}]`;
    if (c.domain === undefined) return problem(`${field}.domain`, `${field}.domain is required: a saved session belongs to no one website`);
    const cookie: SessionCookie = {
      name: c.name,
      value: c.value,
      domain: c.domain.replace(/^\./, '').toLowerCase(),
      hostOnly: false,
      path: c.path ?? '/',
      expires: null,
      secure: c.secure ?? false,
      httpOnly: c.httpOnly ?? false,
      ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    };
    const why = cookieProblem(cookie);
    if (why) return problem(field, `${field} ${why}`);
    out.push(cookie);
  }
  return finish({ cookies: out, origins: [] }, 'from.cookies');
}

/**
 * `from.cookies_txt`: the Netscape cookie file browser extensions and curl export. Tab-separated lines: domain,
 * include-subdomains flag, path, secure flag, expiry (Unix seconds, 0 for a session cookie), name, value; `#` starts
 * a comment, except `#HttpOnly_` before a domain, which marks an HttpOnly cookie.
 */
export function stateFromCookiesTxt(text: string): Parsed {
  const field = 'from.cookies_txt';
  if (text.length > SESSION_STATE_LIMITS.textMax) return problem(field, `${field} is longer than ${SESSION_STATE_LIMITS.textMax} characters`);
  const cookies: SessionCookie[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    let line = raw;
    let httpOnly = false;
    if (line.startsWith('#HttpOnly_')) {
      httpOnly = true;
      line = line.slice('#HttpOnly_'.length);
    } else if (line.trim() === '' || line.startsWith('#')) continue;
    const parts = line.split('\t');
    if (parts.length < 7)
      return problem(
        field,
        `${field} line ${i + 1} is not a cookie: a line has 7 fields separated by tabs (domain, subdomains, path, secure, expiry, name, value)`,
      );
    const [domain, subdomains, path, secure, expiry, name, ...rest] = parts;
    const expires = Number(expiry);
    if (!/^\d+$/.test(expiry.trim()) || !Number.isSafeInteger(expires)) return problem(field, `${field} line ${i + 1}: the expiry is not a number of seconds`);
    const cookie: SessionCookie = {
      name,
      value: rest.join('\t'),
      domain: domain.replace(/^\./, '').toLowerCase(),
      hostOnly: subdomains.toUpperCase() !== 'TRUE' && !domain.startsWith('.'),
      path: path || '/',
      expires: expires === 0 ? null : expires,
      secure: secure.toUpperCase() === 'TRUE',
      httpOnly,
    };
    const why = cookieProblem(cookie);
    if (why) return problem(field, `${field} line ${i + 1}: the cookie ${why}`);
    cookies.push(cookie);
  }
  return finish({ cookies, origins: [] }, field);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function storageItems(v: unknown, field: string): StorageItem[] | string {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return `${field} must be a list of {name, value}`;
  if (v.length > SESSION_STATE_LIMITS.itemsPerOrigin) return `${field} holds more than ${SESSION_STATE_LIMITS.itemsPerOrigin} items`;
  const items: StorageItem[] = [];
  for (const [i, item] of v.entries()) {
    if (!isRecord(item) || typeof item.name !== 'string' || typeof item.value !== 'string') return `${field}[${i}] must be {name, value} with two strings`;
    if (item.value.length > SESSION_STATE_LIMITS.valueMax) return `${field}[${i}].value is longer than ${SESSION_STATE_LIMITS.valueMax} characters`;
    items.push({ name: item.name, value: item.value });
  }
  return items;
}

/**
 * `from.storage_state`: Playwright's `storageState()` ({cookies, origins}): cookies with `expires` in Unix seconds
 * (-1 for a session cookie), a leading dot on a domain cookie; origins with their localStorage (and, beyond
 * Playwright, sessionStorage).
 */
export function stateFromStorageState(input: unknown): Parsed {
  const field = 'from.storage_state';
  if (!isRecord(input)) return problem(field, `${field} must be an object {cookies, origins}`);
  const cookies: SessionCookie[] = [];
  const rawCookies = input.cookies ?? [];
  if (!Array.isArray(rawCookies)) return problem(`${field}.cookies`, `${field}.cookies must be a list`);
  for (const [i, c] of rawCookies.entries()) {
    const f = `${field}.cookies[${i}]`;
    if (!isRecord(c) || typeof c.name !== 'string' || typeof c.value !== 'string' || typeof c.domain !== 'string')
      return problem(f, `${f} must have name, value and domain as strings`);
    if (c.sameSite !== undefined && !(typeof c.sameSite === 'string' && SAME_SITE.has(c.sameSite)))
      return problem(`${f}.sameSite`, `${f}.sameSite must be Strict, Lax or None`);
    const expires = typeof c.expires === 'number' && c.expires > 0 ? Math.floor(c.expires) : null;
    const cookie: SessionCookie = {
      name: c.name,
      value: c.value,
      domain: c.domain.replace(/^\./, '').toLowerCase(),
      hostOnly: !c.domain.startsWith('.'),
      path: typeof c.path === 'string' && c.path !== '' ? c.path : '/',
      expires,
      secure: c.secure === true,
      httpOnly: c.httpOnly === true,
      ...(c.sameSite !== undefined ? { sameSite: c.sameSite as SessionCookie['sameSite'] } : {}),
    };
    const why = cookieProblem(cookie);
    if (why) return problem(f, `${f} ${why}`);
    cookies.push(cookie);
  }
  const rawOrigins = input.origins ?? [];
  if (!Array.isArray(rawOrigins)) return problem(`${field}.origins`, `${field}.origins must be a list`);
  const origins: OriginStorage[] = [];
  for (const [i, o] of rawOrigins.entries()) {
    const f = `${field}.origins[${i}]`;
    if (!isRecord(o) || typeof o.origin !== 'string') return problem(f, `${f} must be {origin, localStorage}`);
    const origin = normalizeOrigin(o.origin);
    if (!origin) return problem(`${f}.origin`, `${f}.origin must be an http:// or https:// origin`);
    const local = storageItems(o.localStorage, `${f}.localStorage`);
    if (typeof local === 'string') return problem(`${f}.localStorage`, local);
    const session = storageItems(o.sessionStorage, `${f}.sessionStorage`);
    if (typeof session === 'string') return problem(`${f}.sessionStorage`, session);
    origins.push({ origin, localStorage: local, sessionStorage: session });
  }
  return finish({ cookies, origins }, field);
}

/** When the session stops working by itself: its first persistent cookie to expire; null when none expires. */
export function sessionExpiresAt(state: SessionState): Date | null {
  const ends = state.cookies.flatMap((c) => (c.expires === null ? [] : [c.expires]));
  return ends.length === 0 ? null : new Date(Math.min(...ends) * 1000);
}

/** The cookies as answers show them: names, domains, paths and expiry; never a value. */
export function cookieSummaries(state: SessionState): CookieSummary[] {
  return state.cookies.map((c) => ({
    name: c.name,
    domain: c.hostOnly ? c.domain : `.${c.domain}`,
    path: c.path,
    expires: c.expires === null ? null : new Date(c.expires * 1000).toISOString(),
  }));
}

/** The origins the state keeps storage for. */
export function sessionOrigins(state: SessionState): string[] {
  return state.origins.filter((o) => o.localStorage.length + o.sessionStorage.length > 0).map((o) => o.origin);
}

/** The domains its cookies go to, each once. */
export function cookieDomains(state: SessionState): string[] {
  return [...new Set(state.cookies.map((c) => c.domain))];
}

/** What a capture needs of a saved session: its state, and how to tell it still logs in. */
export interface ResolvedSession {
  id: number;
  name: string;
  state: SessionState;
  /** A CSS selector present only when logged in; null: not checked. */
  loggedInSelector: string | null;
}

/** The words of a capture whose saved session no longer logs in (API.md: `session_expired`). */
export function loggedOutMessage(name: string): string {
  return `The saved session '${name}' is logged out`;
}

export const SESSION_EXPIRED = 'session_expired';
