import type { CaptureRequest } from '../../modules/screenshots/application/capture.port';

/**
 * A capture request with the plain defaults (1280×800 viewport, no extras) for the given URL; callers
 * override what they need. One place for the defaults, so a new request field is added once.
 */
export function captureRequest(url: string, overrides: Partial<CaptureRequest> = {}): CaptureRequest {
  return {
    url,
    viewportWidth: 1280,
    viewportHeight: 800,
    fullPage: false,
    deviceScaleFactor: 1,
    delayMs: 0,
    waitForSelector: null,
    hideSelectors: [],
    darkMode: false,
    ...overrides,
  };
}
