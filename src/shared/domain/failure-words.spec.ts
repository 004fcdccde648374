import { failureWords } from './failure-words';

/** Issue 46 item 4: every capture failure in words with a next step, the raw code kept. */
describe('failureWords', () => {
  it.each([
    [
      'net::ERR_NAME_NOT_RESOLVED at http://example.invalid/path?q=1',
      'The address example.invalid could not be found (DNS). Check the spelling of the domain.',
    ],
    ['net::ERR_NAME_NOT_RESOLVED', "The site's address could not be found (DNS). Check the spelling of the domain."],
    [
      'net::ERR_CONNECTION_REFUSED at http://127.0.0.1:8080/',
      '127.0.0.1:8080 refused the connection. Check that the site is up and that the address and port are right.',
    ],
    ['net::ERR_CONNECTION_REFUSED', 'The site refused the connection. Check that the site is up and that the address and port are right.'],
    [
      'net::ERR_CONNECTION_RESET',
      'The connection to the site was cut off before the page arrived. Try again; if it keeps happening, the site may refuse automated visits.',
    ],
    ['net::ERR_CONNECTION_TIMED_OUT', 'The site did not answer in time. Check that the site is up, then try again.'],
    ['net::ERR_TIMED_OUT', 'The site did not answer in time. Check that the site is up, then try again.'],
    [
      'net::ERR_CERT_DATE_INVALID',
      'The security certificate of the site is not valid (expired, self-signed or for another name). Fix the certificate, or capture the http:// address.',
    ],
    [
      'net::ERR_CERT_AUTHORITY_INVALID at https://self-signed.test/',
      'The security certificate of self-signed.test is not valid (expired, self-signed or for another name). Fix the certificate, or capture the http:// address.',
    ],
    [
      'net::ERR_SSL_PROTOCOL_ERROR',
      "A secure (HTTPS) connection to the site could not be made. Check the site's HTTPS settings, or capture the http:// address.",
    ],
    [
      'net::ERR_TOO_MANY_REDIRECTS',
      'The site redirected too many times (a redirect loop). Open the address in a browser to see where it loops, and capture the address it should end on.',
    ],
    ['net::ERR_ABORTED', 'Loading the page was stopped before it finished (the address may be a file download). Capture the address of a web page.'],
    ['net::ERR_PROXY_CONNECTION_FAILED', 'The proxy could not be reached. Check its address and that it is running.'],
    [
      'net::ERR_TUNNEL_CONNECTION_FAILED',
      "The way to the site through the proxy could not be opened. Check the proxy's address and credentials, or capture without it.",
    ],
    ['net::ERR_SOCKS_CONNECTION_FAILED', 'The SOCKS proxy failed. Check its address and credentials, or capture without it.'],
    ['net::ERR_SOMETHING_NEW', 'The page could not be loaded (ERR_SOMETHING_NEW). Check the address, then try again.'],
  ])('%s', (raw, text) => {
    const words = failureWords(raw);
    expect(words.text).toBe(text);
    expect(words.code).toBe(/net::ERR_[A-Z_]+/.exec(raw)![0]);
  });

  it.each([
    [
      'Navigation timeout of 30000 ms exceeded',
      'capture_timeout',
      'The page did not finish loading within 30 s. Give it longer (timeout_ms), or wait for less (wait_until: "domcontentloaded").',
    ],
    ['Page did not finish rendering within 2500 ms', 'capture_timeout', 'The page did not finish rendering within 2.5 s. Give it longer (timeout_ms).'],
    [
      'Timed out after 5000 ms waiting for selector "#app .ready"',
      'selector_timeout',
      'The element “#app .ready” did not appear within 5 s. Check the selector against the page.',
    ],
    [
      'Timed out after 5000 ms waiting for an element matching selector "main"',
      'selector_not_found',
      'No element matching “main” (selector) appeared within 5 s. Check the selector against the page.',
    ],
    [
      'Failed after 3 attempts: Browser disconnected during capture: Target closed',
      'browser_crashed',
      'The browser stopped during the capture: a fault of the capture server, not of the page. Try again; tell the operator if it keeps happening.',
    ],
  ])('the browser’s text %s → %s, reworded', (raw, code, text) => {
    expect(failureWords(raw)).toEqual({ text, code });
  });

  it.each([
    ['The page did not answer within 30 s', 'capture_timeout'],
    ['blocked by URL policy: url resolves to a private address', 'url_blocked'],
    ['blocked by URL policy: url host could not be resolved', 'url_blocked'],
    ['The page answered HTTP 404', 'http_status'],
    ['The page crashed the browser tab (renderer process)', 'page_crashed'],
    ['Invalid CSS selector: div[', 'invalid_selector'],
    ["The saved session 'Shop' is logged out", 'session_expired'],
    ['The proxy http://127.0.0.1:9 is refused by the URL policy: url resolves to a loopback address (proxy_failed)', 'proxy_failed'],
  ])('the service’s own words stay word for word (several are documented): %s → %s', (raw, code) => {
    expect(failureWords(raw)).toEqual({ text: raw, code });
  });

  it('a failed step keeps its "Step i (type) failed: " and words the rest', () => {
    expect(failureWords('Step 1 (navigate) failed: net::ERR_CONNECTION_REFUSED')).toEqual({
      text: 'Step 1 (navigate) failed: The site refused the connection. Check that the site is up and that the address and port are right.',
      code: 'net::ERR_CONNECTION_REFUSED',
    });
  });

  it('an unknown text stays as it is, without a code', () => {
    expect(failureWords('Website was deleted')).toEqual({ text: 'Website was deleted', code: null });
  });
});
