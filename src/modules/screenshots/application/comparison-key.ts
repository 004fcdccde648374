import type { CaptureRequest } from './capture.port';
import type { OutputFormat } from '../../../shared/domain/output-format';
import { devicePreset } from '../../../shared/domain/page-options';
import { compareKey } from '../domain/change';

/**
 * Like for like (API.md "Text changes"): a capture is compared only with the previous capture of its website taken
 * with the same options that change the picture. THE list of those options, by wire name, with where each is read
 * from the effective capture request (request > website > default, already merged). When the capture-option table
 * gains its "changes the picture" flag, this list becomes a filter of the table.
 *
 * Not listed, on purpose: timing (wait_until, delay_ms, wait_for_selector, timeout_ms: when the picture is taken,
 * not what it shows), fail_on_status, secrets (headers, cookies, http_auth: never hashed into a stored key), and
 * the image format and quality (png, jpeg and webp are one family, compared pixel by pixel; a PDF is never compared).
 * Options introduced after this list (scripts, click, remove_selectors, block_requests, block_chat_widgets,
 * media_type, reduced_motion, output_width/height) are read by their request field's name, so they count as soon as
 * the capture request carries them.
 */
const PICTURE_OPTIONS: Readonly<Record<string, (r: CaptureRequest, device: string | null) => unknown>> = {
  hide_selectors: (r) => r.hideSelectors,
  css: (r) => r.css,
  dark_mode: (r) => r.darkMode,
  block_resources: (r) => (r.blockResources ? [...r.blockResources].sort() : undefined),
  block_ads: (r) => r.blockAds,
  block_trackers: (r) => r.blockTrackers,
  block_cookie_banners: (r) => r.blockCookieBanners,
  // A device's own user agent comes with the device (already in the key): only one set by the client counts.
  user_agent: (r, device) => (r.emulation?.userAgent === devicePreset(device ?? undefined)?.userAgent ? undefined : r.emulation?.userAgent),
  locale: (r) => r.emulation?.locale,
  timezone: (r) => r.emulation?.timezone,
  omit_background: (r) => r.output?.omitBackground,
  scripts: (r) => field(r, 'scripts'),
  click: (r) => field(r, 'click'),
  remove_selectors: (r) => field(r, 'removeSelectors'),
  block_requests: (r) => field(r, 'blockRequests'),
  block_chat_widgets: (r) => field(r, 'blockChatWidgets'),
  media_type: (r) => field(r, 'mediaType'),
  reduced_motion: (r) => field(r, 'reducedMotion'),
  output_width: (r) => field(r, 'outputWidth') ?? field(r.output ?? {}, 'width'),
  output_height: (r) => field(r, 'outputHeight') ?? field(r.output ?? {}, 'height'),
};

function field(source: object, name: string): unknown {
  return (source as Record<string, unknown>)[name];
}

/**
 * The compare key of a capture: the viewport, scale, device, full_page, selector and clip (domain/change.ts), plus
 * every PICTURE_OPTIONS entry in use. Null for a PDF: it is never compared.
 */
export function comparisonKey(request: CaptureRequest, device: string | null, format: OutputFormat): string | null {
  if (format === 'pdf') return null;
  const picture: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(PICTURE_OPTIONS)) picture[name] = read(request, device);
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
