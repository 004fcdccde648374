import type { ContentFormat } from '../../../shared/domain/output-format';
import type { CaptureSecrets } from '../../../shared/domain/capture-secrets';
import { renderingFor, resolveOutput } from '../../../shared/domain/capture-option-rules';
import { CaptureOptions, plainChoices, VIEWPORT } from '../../../shared/domain/capture-option-table';
import { failOnStatusForCapture } from '../../../shared/domain/page-options';
import type { CaptureRequest } from '../../screenshots/application/capture.port';

/**
 * What a render captures: the request's options over the table's defaults. A render has no website, so where a
 * Take Screenshot falls back on the website (full_page, the viewport) it falls back on the website's own defaults
 * (API.md, Websites: 1280 × 800, not full page).
 */
export function renderCaptureRequest(url: string, options: CaptureOptions, secrets?: CaptureSecrets, contents?: readonly ContentFormat[]): CaptureRequest {
  const rendering = renderingFor(options, {
    viewportWidth: options.viewportWidth ?? VIEWPORT.width.default,
    viewportHeight: options.viewportHeight ?? VIEWPORT.height.default,
    deviceScaleFactor: options.deviceScaleFactor ?? 1,
  });
  return {
    url,
    ...plainChoices({ ...options, fullPage: options.fullPage ?? false }),
    viewportWidth: rendering.viewportWidth,
    viewportHeight: rendering.viewportHeight,
    deviceScaleFactor: rendering.deviceScaleFactor,
    waitUntil: options.waitUntil,
    output: resolveOutput(options, {}),
    emulation: rendering.emulation,
    secrets,
    failOnStatus: failOnStatusForCapture(options.failOnStatus),
    ...(contents?.length ? { contents } : {}),
  };
}
