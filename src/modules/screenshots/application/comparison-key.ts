import type { CaptureRequest } from './capture.port';
import { isImageFormat, type OutputFormat } from '../../../shared/domain/output-format';
import { CAPTURE_OPTION_TABLE } from '../../../shared/domain/capture-option-table';
import { devicePreset } from '../../../shared/domain/page-options';
import { compareKey } from '../domain/change';

/**
 * Like for like (API.md "Text changes"): a capture is compared only with the previous capture of its website taken
 * with the same options that change the picture — the capture-option table's rows with `changesPicture`
 * (shared/domain/capture-option-table.ts says which, and why timing, format and secrets are not). Each is read from
 * the effective capture request (request > website > default, already merged) under its table key, or by the reader
 * below where the request carries it elsewhere. The viewport, scale, device, full_page, selector and clip are the
 * key's core (domain/change.ts), so existing histories keep their keys.
 */
const CORE = new Set(['viewport_width', 'viewport_height', 'device_scale_factor', 'device', 'full_page', 'selector', 'clip']);

type Reader = (r: CaptureRequest, device: string | null) => unknown;

const READERS: Readonly<Record<string, Reader>> = {
  block_resources: (r) => (r.blockResources ? [...r.blockResources].sort() : undefined),
  // A device's own user agent comes with the device (already in the key): only one set by the client counts.
  user_agent: (r, device) => (r.emulation?.userAgent === devicePreset(device ?? undefined)?.userAgent ? undefined : r.emulation?.userAgent),
  locale: (r) => r.emulation?.locale,
  timezone: (r) => r.emulation?.timezone,
  omit_background: (r) => r.output?.omitBackground,
};

const PICTURE_OPTIONS: ReadonlyArray<readonly [string, Reader]> = CAPTURE_OPTION_TABLE.filter((spec) => spec.changesPicture && !CORE.has(spec.wire)).map(
  (spec) => [spec.wire, READERS[spec.wire] ?? ((r: CaptureRequest) => field(r, spec.key))] as const,
);

function field(source: object, name: string): unknown {
  return (source as Record<string, unknown>)[name];
}

/**
 * The compare key of a capture: the viewport, scale, device, full_page, selector and clip (domain/change.ts), plus
 * every PICTURE_OPTIONS entry in use. Null for a PDF or page content: never compared.
 */
export function comparisonKey(request: CaptureRequest, device: string | null, format: OutputFormat): string | null {
  if (!isImageFormat(format)) return null;
  const picture: Record<string, unknown> = {};
  for (const [name, read] of PICTURE_OPTIONS) picture[name] = read(request, device);
  return compareKey(
    {
      viewportWidth: request.viewportWidth,
      viewportHeight: request.viewportHeight,
      deviceScaleFactor: request.deviceScaleFactor,
      device,
      fullPage: request.fullPage,
      selector: request.selector ?? null,
      clip: request.clip ?? null,
    },
    picture,
  );
}
