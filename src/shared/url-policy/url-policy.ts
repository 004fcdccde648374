import { lookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';
import { asError } from '../domain/error-message';
import { classifyAddress } from './address-classifier';

/** Resolves a hostname to ALL of its addresses (IPv4 and IPv6). */
export type HostResolver = (hostname: string) => Promise<string[]>;

export interface UrlPolicyOptions {
  /**
   * Turns the address check off (for deployments that screenshot their own
   * intranet). Never relaxes the scheme, credentials or length checks.
   */
  allowPrivateNetworks: boolean;
  /**
   * Exact origins (e.g. "http://intranet.local:8080") that skip the address check.
   * Compared with `new URL(entry).origin`, so paths in entries are ignored and
   * default ports are normalised away.
   */
  allowlist: string[];
  /** Defaults to `dns.promises.lookup(host, { all: true, verbatim: true })`. */
  resolve?: HostResolver;
  /** How long name resolution may take before the URL is refused. Default 5000 ms. */
  resolveTimeoutMs?: number;
}

export type UrlVerdict =
  | {
      allowed: true;
      url: URL;
      /** The checked addresses; empty when the address check was skipped (or deferred, for checkSyntax on a hostname). */
      addresses: string[];
    }
  | { allowed: false; reason: string };

export const MAX_URL_LENGTH = 2048;
export const DEFAULT_RESOLVE_TIMEOUT_MS = 5000;

/** Reason strings are part of the API: callers surface them to customers and tests assert on them. */
export const UrlPolicyReasons = {
  notAString: 'url must be a string',
  tooLong: `url must be at most ${MAX_URL_LENGTH} characters`,
  invalid: 'url is not a valid URL',
  scheme: 'url scheme must be http or https',
  credentials: 'url must not contain credentials',
  unresolvable: 'url host could not be resolved',
  loopback: 'url resolves to a loopback address',
  private: 'url resolves to a private address',
} as const;

const defaultResolver: HostResolver = async (hostname) => {
  // verbatim: keep the resolver's order and do not drop IPv6 results; every
  // address is checked anyway, because Chromium may connect to any of them.
  const results = await lookup(hostname, { all: true, verbatim: true });
  return results.map((r) => r.address);
};

/** Result of the synchronous stage, carrying what check() needs to continue. */
type SyntaxStage = { done: true; verdict: UrlVerdict } | { done: false; url: URL; hostname: string };

/**
 * The single SSRF policy for every URL the service will fetch: entry points
 * (websites, capture options, scenario steps) and every request Chromium makes.
 *
 * Residual risk the caller must handle: check() resolves the name itself, and
 * Chromium resolves it again when it connects, so a DNS-rebinding server can
 * answer differently the second time. The capture adapter should therefore also
 * re-check each request Chromium issues and, ideally, pin the checked addresses
 * (e.g. via --host-resolver-rules) or run behind an egress firewall.
 */
export class UrlPolicy {
  private readonly allowPrivateNetworks: boolean;
  private readonly allowedOrigins: ReadonlySet<string>;
  private readonly resolver: HostResolver;
  private readonly resolveTimeoutMs: number;

  constructor(options: UrlPolicyOptions) {
    this.allowPrivateNetworks = options.allowPrivateNetworks === true;
    this.resolver = options.resolve ?? defaultResolver;
    this.resolveTimeoutMs = options.resolveTimeoutMs ?? DEFAULT_RESOLVE_TIMEOUT_MS;
    this.allowedOrigins = new Set(options.allowlist.map(normaliseAllowlistEntry));
  }

  /** Synchronous checks only (scheme, userinfo, length, parse, numeric-host normalisation + literal-IP classification): usable in validators. */
  checkSyntax(raw: string): UrlVerdict {
    const stage = this.syntaxStage(raw);
    // For a hostname the address check needs DNS, which a synchronous validator
    // cannot do; check() must still run before anything is fetched.
    return stage.done ? stage.verdict : { allowed: true, url: stage.url, addresses: [] };
  }

  /** Full check: syntax, then resolve the host and require EVERY resolved address to be public (unless allowPrivateNetworks or the origin is allowlisted). */
  async check(raw: string): Promise<UrlVerdict> {
    const stage = this.syntaxStage(raw);
    if (stage.done) return stage.verdict;

    let addresses: string[];
    try {
      addresses = await this.resolveWithTimeout(stage.hostname);
    } catch {
      return refuse(UrlPolicyReasons.unresolvable);
    }
    if (!Array.isArray(addresses) || addresses.length === 0) {
      return refuse(UrlPolicyReasons.unresolvable);
    }

    // EVERY address must be public: Chromium may pick any of them (and happy
    // eyeballs tries several), so one private record is enough to reach it.
    for (const address of addresses) {
      const cls = classifyAddress(address);
      if (cls !== null) return refuse(addressReason(cls));
    }
    return { allowed: true, url: stage.url, addresses: [...addresses] };
  }

  private syntaxStage(raw: string): SyntaxStage {
    if (typeof raw !== 'string') return finished(refuse(UrlPolicyReasons.notAString));
    // Checked before parsing so a huge input is not parsed at all.
    if (raw.length > MAX_URL_LENGTH) return finished(refuse(UrlPolicyReasons.tooLong));

    let url: URL;
    try {
      // The WHATWG parser (same family as Chromium's) lower-cases the scheme and
      // host, decodes percent-encoded hosts and normalises every numeric IPv4
      // notation (2130706433, 0x7f000001, 017700000001, 127.1) to dotted quad,
      // so the policy sees the same host Chromium will connect to.
      url = new URL(raw);
    } catch {
      return finished(refuse(UrlPolicyReasons.invalid));
    }

    // After parsing, so "FILE:", "view-source:", "chrome:", "javascript:", "data:"
    // and friends are all caught regardless of case or embedded whitespace.
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return finished(refuse(UrlPolicyReasons.scheme));
    }
    // Credentials would be sent to the target and logged with the URL; they also
    // enable "http://trusted@evil/" style confusion in anything that displays it.
    if (url.username !== '' || url.password !== '') {
      return finished(refuse(UrlPolicyReasons.credentials));
    }
    // Percent-encoding can grow the URL during normalisation.
    if (url.href.length > MAX_URL_LENGTH) return finished(refuse(UrlPolicyReasons.tooLong));

    const skipAddressCheck = this.allowPrivateNetworks || this.allowedOrigins.has(url.origin);
    const hostname = url.hostname;

    const literal = literalAddress(hostname);
    if (literal !== null) {
      // IP literals are classified directly and never handed to a resolver.
      if (skipAddressCheck) return finished({ allowed: true, url, addresses: [] });
      const cls = classifyAddress(literal);
      if (cls !== null) return finished(refuse(addressReason(cls)));
      return finished({ allowed: true, url, addresses: [literal] });
    }

    if (skipAddressCheck) return finished({ allowed: true, url, addresses: [] });

    // "localhost" and "*.localhost" are loopback by definition (RFC 6761) and
    // Chromium resolves them to loopback itself without asking DNS, so refuse them
    // without resolving. Trailing dots ("localhost.", "localhost..") denote the
    // same name.
    if (isLocalhostName(stripTrailingDots(hostname))) {
      return finished(refuse(UrlPolicyReasons.loopback));
    }

    // The hostname is resolved exactly as it appears in the URL (trailing dot
    // included): "intranet." and "intranet" can resolve differently because of DNS
    // search domains, and Chromium resolves the former as written.
    return { done: false, url, hostname };
  }

  private resolveWithTimeout(hostname: string): Promise<string[]> {
    return new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`resolving ${hostname} timed out`)), this.resolveTimeoutMs);
      // A lookup that never settles must not keep the process alive.
      timer.unref?.();
      let pending: Promise<string[]>;
      try {
        pending = Promise.resolve(this.resolver(hostname));
      } catch (err) {
        // A resolver that throws synchronously is treated like a failed lookup.
        clearTimeout(timer);
        reject(asError(err));
        return;
      }
      pending.then(
        (addresses) => {
          clearTimeout(timer);
          resolve(addresses);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(asError(err));
        },
      );
    });
  }
}

function refuse(reason: string): UrlVerdict {
  return { allowed: false, reason };
}

function finished(verdict: UrlVerdict): SyntaxStage {
  return { done: true, verdict };
}

/** The IP address a WHATWG-normalised hostname denotes, or null for a name. */
function literalAddress(hostname: string): string | null {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  // The URL parser has already turned every numeric IPv4 notation into a dotted
  // quad, so only the canonical form needs recognising here.
  if (isIPv4(hostname)) return hostname;
  return null;
}

function stripTrailingDots(hostname: string): string {
  let end = hostname.length;
  while (end > 0 && hostname[end - 1] === '.') end--;
  return hostname.slice(0, end);
}

function isLocalhostName(hostname: string): boolean {
  // The URL parser has lower-cased the host already.
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

/**
 * Maps a classifier reason to the customer-facing message. RFC 1918 and IPv6
 * unique-local space are both reported as "private" so callers (and tests) can
 * rely on one exact phrase for internal networks.
 */
function addressReason(cls: string): string {
  if (cls === 'private' || cls === 'unique local') return UrlPolicyReasons.private;
  return `url resolves to ${indefiniteArticle(cls)} ${cls} address`;
}

function indefiniteArticle(word: string): string {
  // Only the classifier's fixed vocabulary needs handling: "an unspecified",
  // "an invalid", but "a unique local", "a loopback", "a multicast".
  const lower = word.toLowerCase();
  if (lower.startsWith('uni')) return 'a';
  return 'aeio'.includes(lower.charAt(0)) || lower.startsWith('un') ? 'an' : 'a';
}

/** An allowlist entry as an exact origin; refuses anything that is not an http(s) origin without credentials. */
export function normaliseAllowlistEntry(entry: string): string {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw new Error(`UrlPolicy: allowlist entry "${entry}" is not a valid URL`);
  }
  // Non-http(s) URLs have the opaque origin "null", which must never be able to
  // match anything; misconfiguration should fail at startup, not silently.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`UrlPolicy: allowlist entry "${entry}" must be an http(s) origin`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new Error(`UrlPolicy: allowlist entry "${entry}" must not contain credentials`);
  }
  return url.origin;
}
