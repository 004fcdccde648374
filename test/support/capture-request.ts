import { plainChoices, VIEWPORT } from '../../src/shared/domain/capture-option-table';
import type { CaptureRequest } from '../../src/modules/screenshots/application/capture.port';

/**
 * A capture request with the plain defaults (the table's: 1280×800 viewport, no extras) for the given URL;
 * callers override what they need.
 */
export function captureRequest(url: string, overrides: Partial<CaptureRequest> = {}): CaptureRequest {
  return {
    url,
    viewportWidth: VIEWPORT.width.default,
    viewportHeight: VIEWPORT.height.default,
    deviceScaleFactor: 1,
    ...plainChoices({ fullPage: false }),
    ...overrides,
  };
}
