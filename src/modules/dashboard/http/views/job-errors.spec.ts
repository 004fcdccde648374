import { readableError } from './job-errors';

/** Issue 31: the dashboard shows a job's error in people's words, the API's raw text kept beside it. */
describe('readableError', () => {
  it.each([
    ['net::ERR_NAME_NOT_RESOLVED', "The site's address could not be found"],
    ['net::ERR_NAME_NOT_RESOLVED at http://nowhere.invalid/', "The site's address could not be found"],
    ['net::ERR_CONNECTION_REFUSED', 'The site refused the connection'],
    ['net::ERR_CONNECTION_TIMED_OUT', 'The site took too long to answer'],
    ['net::ERR_TIMED_OUT', 'The site took too long to answer'],
    ['net::ERR_CERT_AUTHORITY_INVALID', "The site's security certificate is not valid (expired, self-signed or for another name)"],
    ['net::ERR_CERT_DATE_INVALID', "The site's security certificate is not valid (expired, self-signed or for another name)"],
    ['net::ERR_CERT_COMMON_NAME_INVALID', "The site's security certificate is not valid (expired, self-signed or for another name)"],
    ['net::ERR_SSL_PROTOCOL_ERROR', 'A secure (HTTPS) connection to the site could not be made'],
    ['net::ERR_TOO_MANY_REDIRECTS', 'The site redirected too many times (a redirect loop)'],
    ['net::ERR_ABORTED', 'Loading the page was aborted before it finished (for example, the address is a file download)'],
    ['net::ERR_EMPTY_RESPONSE', 'The site closed the connection without sending anything'],
    ['net::ERR_CONNECTION_RESET', 'The connection to the site was interrupted'],
    ['net::ERR_SOMETHING_NEW', 'The site could not be loaded'],
  ])('%s → "%s", the raw text kept', (raw, text) => {
    expect(readableError(raw)).toEqual({ text, raw });
  });

  it.each([
    ['Navigation timeout of 30000 ms exceeded', 'The page did not finish loading within 30 s'],
    ['Navigation timeout of 2500 ms exceeded', 'The page did not finish loading within 2.5 s'],
    ['Timed out after 5000 ms waiting for selector "#app .ready"', 'The element “#app .ready” (wait_for_selector) did not appear within 5 s'],
    ['Timed out after 5000 ms waiting for an element matching selector "main"', 'No element matching “main” (selector) appeared within 5 s'],
    ['Page did not finish rendering within 60000 ms', 'The page did not finish rendering within 60 s'],
  ])('the capture timeout "%s" → "%s"', (raw, text) => {
    expect(readableError(raw)).toEqual({ text, raw });
  });

  it.each(['The page answered HTTP 404', 'the browser crashed or could not be started', 'Invalid CSS selector: div[', 'net::'])(
    'an error already in words is shown as it is, with nothing in small print: %s',
    (raw) => {
      expect(readableError(raw)).toEqual({ text: raw, raw: null });
    },
  );
});
