import { ProtocolError, TimeoutError } from 'puppeteer';

import { CaptureFailure } from '../../modules/screenshots/application/capture.port';
import { PAGE_CRASHED_MESSAGE, NAVIGATED_AWAY_MESSAGE, toCaptureFailure } from './capture-errors';

const alive = { timeoutMessage: 'Navigation timeout of 30000 ms exceeded', browserLost: false };

function classify(error: unknown, context = alive): { kind: string; message: string } {
  const failure = toCaptureFailure(error, context);
  return { kind: failure.kind, message: failure.message };
}

describe('toCaptureFailure', () => {
  it('keeps the net:: code of a navigation error and drops the URL', () => {
    expect(classify(new Error('net::ERR_NAME_NOT_RESOLVED at http://nope.invalid/'))).toEqual({
      kind: 'page',
      message: 'net::ERR_NAME_NOT_RESOLVED',
    });
    expect(classify(new Error('net::ERR_CERT_AUTHORITY_INVALID at https://self-signed/'))).toEqual({
      kind: 'page',
      message: 'net::ERR_CERT_AUTHORITY_INVALID',
    });
  });

  it('phrases puppeteer timeouts for what was being waited for', () => {
    expect(classify(new TimeoutError('Navigation timeout of 2987 ms exceeded'))).toEqual({
      kind: 'page',
      message: 'Navigation timeout of 30000 ms exceeded',
    });
  });

  it('treats a crashed renderer, an invalid selector and a navigation race as the page', () => {
    expect(classify(new Error('Page crashed!'))).toEqual({ kind: 'page', message: PAGE_CRASHED_MESSAGE });
    expect(classify(new Error("Failed to execute 'querySelector' on 'Document': 'a[[' is not a valid selector."))).toEqual({
      kind: 'page',
      message: 'Invalid CSS selector: a[[',
    });
    expect(classify(new Error('Execution context was destroyed, most likely because of a navigation.'))).toEqual({
      kind: 'page',
      message: NAVIGATED_AWAY_MESSAGE,
    });
  });

  it('treats a closed target or a protocol error as infrastructure', () => {
    expect(classify(new Error('Protocol error (Target.createTarget): Target closed')).kind).toBe('infrastructure');
    expect(classify(new ProtocolError('Protocol error (Page.captureScreenshot): Session closed')).kind).toBe('infrastructure');
  });

  it('blames the infrastructure for anything once the browser is lost', () => {
    expect(classify(new Error('net::ERR_ABORTED at http://x/'), { ...alive, browserLost: true })).toEqual({
      kind: 'infrastructure',
      message: 'Browser disconnected during capture: net::ERR_ABORTED at http://x/',
    });
  });

  it('passes a CaptureFailure through untouched', () => {
    const failure = new CaptureFailure('page', 'No option with value "x" in "#y"');

    expect(toCaptureFailure(failure, { ...alive, browserLost: true })).toBe(failure);
  });
});
