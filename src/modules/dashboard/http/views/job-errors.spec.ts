import { readableError } from './job-errors';

/** The dashboard shows the failure table's sentence (failure-words.spec.ts has the table) and the raw text in small print. */
describe('readableError', () => {
  it('a known failure: the sentence, the raw text kept', () => {
    expect(readableError('net::ERR_CONNECTION_REFUSED')).toEqual({
      text: 'The site refused the connection. Check that the site is up and that the address and port are right.',
      raw: 'net::ERR_CONNECTION_REFUSED',
    });
  });

  it('an unknown text is shown as it is, with nothing in small print', () => {
    expect(readableError('the browser crashed or could not be started')).toEqual({ text: 'the browser crashed or could not be started', raw: null });
  });
});
