/**
 * Why a capture failed, in words with a next step (issue 46, item 4): ONE table turning every failure a capture,
 * a scenario step or a render can end with — Chromium's `net::ERR_*` codes, the capture's time limits, the URL
 * policy, a crashed browser, an HTTP status the capture was told to fail on, a selector that never appeared, a
 * logged-out session, a proxy that failed — into a sentence people can act on. The raw text is kept as it was
 * (the jobs table stores it; scripts may match on it) and shown beside the sentence: the API's `error_code`, the
 * dashboard's small print. Everything that shows a failure to people reads it here: the Job and Execution
 * resources (and so the webhooks' payloads and the channels' messages built from them), /render's 502 and 504
 * bodies, the dashboard's job, screenshot and playground pages.
 */

export interface FailureWords {
  /** The sentence: what went wrong, then what to do about it. */
  text: string;
  /**
   * The failure's stable code: Chromium's (`net::ERR_NAME_NOT_RESOLVED`) or the service's own (`capture_timeout`,
   * `url_blocked`, `browser_crashed`, `http_status`, `selector_timeout`, `session_expired`, `proxy_failed`, …);
   * null when the raw text is not one the table knows (then `text` is that raw text, unchanged).
   */
  code: string | null;
}

/** Chromium's network errors: the words, given the host when the raw text named it ("the site" when not). */
const NET_ERRORS: Record<string, (host: string) => string> = {
  ERR_NAME_NOT_RESOLVED: (h) => notFound(h),
  ERR_NAME_RESOLUTION_FAILED: (h) => notFound(h),
  ERR_CONNECTION_REFUSED: (h) => `${cap(h)} refused the connection. Check that the site is up and that the address and port are right.`,
  ERR_CONNECTION_TIMED_OUT: (h) => `${cap(h)} did not answer in time. Check that the site is up, then try again.`,
  ERR_TIMED_OUT: (h) => `${cap(h)} did not answer in time. Check that the site is up, then try again.`,
  ERR_CONNECTION_RESET: (h) =>
    `The connection to ${h} was cut off before the page arrived. Try again; if it keeps happening, the site may refuse automated visits.`,
  ERR_CONNECTION_CLOSED: (h) =>
    `${cap(h)} closed the connection before the page arrived. Try again; if it keeps happening, the site may refuse automated visits.`,
  ERR_EMPTY_RESPONSE: (h) => `${cap(h)} closed the connection without sending anything. Check that the site is up, then try again.`,
  ERR_CONNECTION_FAILED: (h) => `The connection to ${h} failed. Check that the site is up, then try again.`,
  ERR_ADDRESS_UNREACHABLE: (h) => `${cap(h)} could not be reached from the capture server. Check the address and the server's network.`,
  ERR_INTERNET_DISCONNECTED: () => 'The capture server is not connected to the internet. Ask the operator to check its network.',
  ERR_TUNNEL_CONNECTION_FAILED: (h) =>
    `The way to ${h} through the proxy could not be opened. Check the proxy's address and credentials, or capture without it.`,
  ERR_PROXY_CONNECTION_FAILED: () => 'The proxy could not be reached. Check its address and that it is running.',
  ERR_PROXY_AUTH_UNSUPPORTED: () => 'The proxy asks for a kind of login the service cannot give. Use a proxy with Basic credentials, or none.',
  ERR_PROXY_CERTIFICATE_INVALID: () => "The proxy's security certificate is not valid. Fix the certificate or use another proxy.",
  ERR_UNSAFE_PORT: () => 'Browsers do not open addresses on this port. Use the site’s usual web port (80 or 443).',
  ERR_TOO_MANY_REDIRECTS: (h) =>
    `${cap(h)} redirected too many times (a redirect loop). Open the address in a browser to see where it loops, and capture the address it should end on.`,
  ERR_ABORTED: () => 'Loading the page was stopped before it finished (the address may be a file download). Capture the address of a web page.',
  ERR_BLOCKED_BY_CLIENT: () =>
    'The page was blocked by the capture’s own blocking options. Remove the block_requests rule (or ad blocking) that matches its address.',
  ERR_BLOCKED_BY_RESPONSE: (h) => `${cap(h)} does not allow its page to be shown this way. Capture the page's own address.`,
  ERR_INVALID_RESPONSE: (h) => `${cap(h)} sent an answer that is not a valid web page. Check the address in a browser.`,
  ERR_INVALID_HTTP_RESPONSE: (h) => `${cap(h)} sent an answer that is not a valid web page. Check the address in a browser.`,
  ERR_HTTP2_PROTOCOL_ERROR: (h) => `${cap(h)} sent an answer that is not a valid web page. Check the address in a browser, then try again.`,
  ERR_FILE_NOT_FOUND: () => 'The page was not found. Check the address.',
};

const NET_FAMILIES: Array<[prefix: string, text: (host: string) => string]> = [
  [
    'ERR_CERT_',
    (h) => `The security certificate of ${h} is not valid (expired, self-signed or for another name). Fix the certificate, or capture the http:// address.`,
  ],
  ['ERR_SSL_', (h) => `A secure (HTTPS) connection to ${h} could not be made. Check the site's HTTPS settings, or capture the http:// address.`],
  ['ERR_BAD_SSL_', (h) => `A secure (HTTPS) connection to ${h} could not be made. Check the site's HTTPS settings, or capture the http:// address.`],
  ['ERR_PROXY_', () => 'The proxy failed. Check its address and credentials, or capture without it.'],
  ['ERR_SOCKS_', () => 'The SOCKS proxy failed. Check its address and credentials, or capture without it.'],
];

const SITE = 'the site';
const notFound = (host: string) =>
  `${host === SITE ? "The site's address" : `The address ${host}`} could not be found (DNS). Check the spelling of the domain.`;
const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const seconds = (ms: string) => `${Math.round(Number(ms) / 100) / 10} s`;

/** Texts of the browser and of puppeteer's waits the capture passes on (capture-run, the scenario tab): reworded. */
const BROWSER: Array<[pattern: RegExp, code: string, text: (m: RegExpExecArray) => string]> = [
  [
    /^Navigation timeout of (\d+) ms exceeded$/,
    'capture_timeout',
    (m) => `The page did not finish loading within ${seconds(m[1])}. Give it longer (timeout_ms), or wait for less (wait_until: "domcontentloaded").`,
  ],
  [
    /^Page did not finish rendering within (\d+) ms$/,
    'capture_timeout',
    (m) => `The page did not finish rendering within ${seconds(m[1])}. Give it longer (timeout_ms).`,
  ],
  [
    /^Timed out after (\d+) ms waiting for selector "(.*)"$/s,
    'selector_timeout',
    (m) => `The element “${m[2]}” did not appear within ${seconds(m[1])}. Check the selector against the page.`,
  ],
  [
    /^Timed out after (\d+) ms waiting for an element matching selector "(.*)"$/s,
    'selector_not_found',
    (m) => `No element matching “${m[2]}” (selector) appeared within ${seconds(m[1])}. Check the selector against the page.`,
  ],
  [
    /^(Failed after \d+ attempts: )?Browser disconnected during capture/,
    'browser_crashed',
    () => 'The browser stopped during the capture: a fault of the capture server, not of the page. Try again; tell the operator if it keeps happening.',
  ],
];

/**
 * The service's own texts, already words (several are documented word for word: "The page answered HTTP 404", "The
 * page did not answer within 30 s"): kept as they are, given their code.
 */
const OWN: Array<[pattern: RegExp, code: string]> = [
  [/^The page did not answer within /, 'capture_timeout'],
  [/^The render did not finish within /, 'capture_timeout'],
  [/^blocked by URL policy: /, 'url_blocked'],
  [/^The page answered HTTP \d{3}/, 'http_status'],
  [/^The page crashed the browser tab/, 'page_crashed'],
  [/^The page navigated away while it was being captured/, 'navigated_away'],
  [/^Invalid CSS selector: /, 'invalid_selector'],
  [/^The saved session .* is logged out/s, 'session_expired'],
];

const PROXY_FAILED = /\(proxy_failed\)$|^The proxy /;

/**
 * The words for a raw failure text; `code` null (and the text unchanged) for one the table does not know. A step's
 * failure ("Step 2 (click) failed: net::ERR_…", "Opening the website failed: …") keeps its head and words the rest.
 */
export function failureWords(raw: string): FailureWords {
  const step = /^((?:Step \d+ \([a-z_]+\)|Opening the website|Final screenshot) failed: )(.*)$/s.exec(raw);
  if (step) {
    const inner = failureWords(step[2]);
    return { text: `${step[1]}${inner.text}`, code: inner.code };
  }
  // A proxy's failure is worded where it happens (naming the masked proxy), whatever code it quotes.
  if (PROXY_FAILED.test(raw)) return { text: raw, code: 'proxy_failed' };
  const net = /net::(ERR_[A-Z0-9_]+)(?: at (\S+))?/.exec(raw);
  if (net) {
    const code = net[1];
    const host = hostOf(net[2]) ?? SITE;
    const words = NET_ERRORS[code] ?? NET_FAMILIES.find(([prefix]) => code.startsWith(prefix))?.[1];
    return { text: words ? words(host) : `The page could not be loaded (${code}). Check the address, then try again.`, code: `net::${code}` };
  }
  for (const [pattern, code, text] of BROWSER) {
    const m = pattern.exec(raw);
    if (m) return { text: text(m), code };
  }
  const own = OWN.find(([pattern]) => pattern.test(raw));
  return { text: raw, code: own ? own[1] : null };
}

/** The host of "http://host:port/path" (puppeteer's "net::ERR_… at <url>"), or null. */
function hostOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}
