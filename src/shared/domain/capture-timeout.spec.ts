import { isCaptureTimeout, notAnsweredMessage } from './capture-timeout';

describe('isCaptureTimeout', () => {
  it('the capture’s time limits, in their words, are timeouts', () => {
    for (const message of [
      'The page did not answer within 30 s',
      'The page did not answer within 1.5 s',
      'Navigation timeout of 30000 ms exceeded',
      'Timed out after 5000 ms waiting for selector "#x"',
      'Page did not finish rendering within 30000 ms',
      'The scripts did not finish within 30000 ms',
    ]) {
      expect({ message, timeout: isCaptureTimeout(message) }).toEqual({ message, timeout: true });
    }
  });

  it('a page’s failure is not', () => {
    for (const message of [
      'net::ERR_CONNECTION_REFUSED',
      'The page answered HTTP 404',
      'blocked by URL policy: private address',
      'scripts[0] failed: Error: boom',
    ]) {
      expect({ message, timeout: isCaptureTimeout(message) }).toEqual({ message, timeout: false });
    }
  });

  it('the message of a page that never answered names its limit in seconds, and is a timeout', () => {
    expect(notAnsweredMessage(30_000)).toBe('The page did not answer within 30 s');
    expect(notAnsweredMessage(1_500)).toBe('The page did not answer within 1.5 s');
    expect(isCaptureTimeout(notAnsweredMessage(2_000))).toBe(true);
  });
});
