/**
 * A job's error in people's words, for the dashboard only (issue 31). The API keeps Chromium's and the capture's own
 * texts (`net::ERR_NAME_NOT_RESOLVED`, `Page did not finish rendering within 30000 ms`): scripts match on them, the README
 * documents them. The dashboard shows a sentence and keeps that raw text beside it in small print, so a person can
 * still search for it or quote it to support. One table, here; every page that shows a job's error goes through it.
 */

export interface ReadableError {
  /** The sentence shown to people. */
  text: string;
  /** The raw error as the API reports it; null when the sentence is the raw text (nothing to translate). */
  raw: string | null;
}

/** Chromium's network error codes (without `net::`), exact names first, then families by prefix. */
const NET_ERRORS: Record<string, string> = {
  ERR_NAME_NOT_RESOLVED: "The site's address could not be found",
  ERR_NAME_RESOLUTION_FAILED: "The site's address could not be found",
  ERR_CONNECTION_REFUSED: 'The site refused the connection',
  ERR_CONNECTION_TIMED_OUT: 'The site took too long to answer',
  ERR_TIMED_OUT: 'The site took too long to answer',
  ERR_CONNECTION_RESET: 'The connection to the site was interrupted',
  ERR_CONNECTION_CLOSED: 'The site closed the connection',
  ERR_EMPTY_RESPONSE: 'The site closed the connection without sending anything',
  ERR_CONNECTION_FAILED: 'The connection to the site failed',
  ERR_ADDRESS_UNREACHABLE: 'The site could not be reached',
  ERR_INTERNET_DISCONNECTED: 'The site could not be reached',
  ERR_TUNNEL_CONNECTION_FAILED: 'The site could not be reached',
  ERR_UNSAFE_PORT: 'Browsers do not open addresses on this port',
  ERR_TOO_MANY_REDIRECTS: 'The site redirected too many times (a redirect loop)',
  ERR_ABORTED: 'Loading the page was aborted before it finished (for example, the address is a file download)',
  ERR_BLOCKED_BY_CLIENT: 'The page was blocked by the capture’s blocking options',
  ERR_INVALID_RESPONSE: 'The site sent an answer that is not a valid web page',
  ERR_HTTP2_PROTOCOL_ERROR: 'The site sent an answer that is not a valid web page',
};

const NET_FAMILIES: Array<[prefix: string, text: string]> = [
  ['ERR_CERT_', "The site's security certificate is not valid (expired, self-signed or for another name)"],
  ['ERR_SSL_', 'A secure (HTTPS) connection to the site could not be made'],
  ['ERR_BAD_SSL_', 'A secure (HTTPS) connection to the site could not be made'],
];

const seconds = (ms: string) => `${Number(ms) / 1000} s`;

/** The capture's own timeout messages (capture-run.ts), and what they mean. */
const TIMEOUTS: Array<[pattern: RegExp, text: (m: RegExpExecArray) => string]> = [
  [/^Navigation timeout of (\d+) ms exceeded$/, (m) => `The page did not finish loading within ${seconds(m[1])}`],
  [/^Timed out after (\d+) ms waiting for selector "(.*)"$/s, (m) => `The element “${m[2]}” (wait_for_selector) did not appear within ${seconds(m[1])}`],
  [
    /^Timed out after (\d+) ms waiting for an element matching selector "(.*)"$/s,
    (m) => `No element matching “${m[2]}” (selector) appeared within ${seconds(m[1])}`,
  ],
  [/^Page did not finish rendering within (\d+) ms$/, (m) => `The page did not finish rendering within ${seconds(m[1])}`],
];

/** The sentence for an error text; `raw` is set whenever the sentence differs from it. */
export function readableError(error: string): ReadableError {
  const net = /net::(ERR_[A-Z0-9_]+)/.exec(error);
  if (net) {
    const code = net[1];
    const text = NET_ERRORS[code] ?? NET_FAMILIES.find(([prefix]) => code.startsWith(prefix))?.[1] ?? 'The site could not be loaded';
    return { text, raw: error };
  }
  for (const [pattern, text] of TIMEOUTS) {
    const m = pattern.exec(error);
    if (m) return { text: text(m), raw: error };
  }
  return { text: error, raw: null };
}
