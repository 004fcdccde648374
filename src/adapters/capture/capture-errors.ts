import { TimeoutError } from 'puppeteer';

import { errorMessage } from '../../shared/domain/error-message';
import { CaptureFailure } from '../../modules/screenshots/application/capture.port';

export const PAGE_CRASHED_MESSAGE = 'The page crashed the browser tab (renderer process)';
export const NAVIGATED_AWAY_MESSAGE = 'The page navigated away while it was being captured';

export interface FailureContext {
  /** Message to use when a puppeteer wait timed out, phrased for what was being waited for. */
  timeoutMessage: string;
  /** True when the browser serving this capture has disconnected or crashed. */
  browserLost: boolean;
}

/**
 * Decides whose fault an error is. Only a lost browser is 'infrastructure' (the job is retried);
 * everything the page can cause is 'page', with a message fit to show to the client.
 */
export function toCaptureFailure(error: unknown, context: FailureContext): CaptureFailure {
  if (error instanceof CaptureFailure) return error;
  const message = errorMessage(error);
  // Checked first: when the browser dies, in-flight calls fail with all sorts of page-looking errors.
  if (context.browserLost) {
    return new CaptureFailure('infrastructure', `Browser disconnected during capture: ${message}`);
  }
  if (error instanceof TimeoutError) return new CaptureFailure('page', context.timeoutMessage);

  // "net::ERR_NAME_NOT_RESOLVED at http://…": the code is the useful part and is stable.
  const netError = /net::ERR_[A-Z0-9_]+/.exec(message);
  if (netError) return new CaptureFailure('page', netError[0]);

  if (/Page crashed|Target crashed/i.test(message)) {
    return new CaptureFailure('page', PAGE_CRASHED_MESSAGE);
  }
  const invalidSelector = /.*: '(.*)' is not a valid selector/s.exec(message);
  if (invalidSelector) {
    return new CaptureFailure('page', `Invalid CSS selector: ${invalidSelector[1]}`);
  }
  if (/Execution context was destroyed|Cannot find context with specified id|frame was detached/i.test(message)) {
    return new CaptureFailure('page', NAVIGATED_AWAY_MESSAGE);
  }
  if (/Target closed|Session closed|Connection closed|Protocol error|has disconnected/i.test(message)) {
    return new CaptureFailure('infrastructure', message);
  }
  return new CaptureFailure('page', message);
}

/** Navigation-during-capture errors that are worth retrying once the new document has loaded. */
export function isNavigationRace(error: unknown): boolean {
  return /Execution context was destroyed|Cannot find context with specified id/i.test(errorMessage(error));
}
