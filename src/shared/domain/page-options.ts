/**
 * How the page is rendered and what is captured of it (API.md, Capture options: `selector`, `clip`, `device`,
 * `user_agent`, `locale`, `timezone`, `block_resources`, `block_ads`, `block_trackers`, `css`). One definition shared by request and website
 * validation, job rows and the capture request (the options themselves: capture-option-table.ts).
 */
import { DEVICES, DevicePreset } from './devices';

export interface Clip {
  /** CSS px from the page's top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Resource types a capture can refuse to load (puppeteer's names; never the document itself). */
export const BLOCKABLE_RESOURCES = [
  'image',
  'media',
  'font',
  'stylesheet',
  'script',
  'xhr',
  'fetch',
  'websocket',
  'eventsource',
  'manifest',
  'texttrack',
  'other',
] as const;
export type BlockableResource = (typeof BLOCKABLE_RESOURCES)[number];

export const PAGE_OPTION_LIMITS = {
  selectorMax: 1000,
  userAgentMax: 1000,
  localeMax: 35,
  /** Bytes of UTF-8. */
  cssMax: 20 * 1024,
  /** Chromium cannot render beyond this in either direction. */
  clipMax: 16_384,
  /** scripts: bytes of UTF-8 of all scripts together, and how many. */
  scriptsMax: 20 * 1024,
  scriptsMaxItems: 10,
  /** click: selectors clicked one after the other (each click settles the page: a long list is a long capture). */
  clickMaxItems: 10,
  removeSelectorsMaxItems: 50,
  /** block_requests: URL patterns, and the length of one. */
  blockRequestsMaxItems: 50,
  urlPatternMax: 2048,
} as const;

/**
 * output_width / output_height: the image resized to this many pixels. Below 16 nothing is recognisable; above
 * 8192 an image is larger than any screen shows, and a full page would be a very large decode for the resize.
 */
export const OUTPUT_SIZE = { min: 16, max: 8192 } as const;

/** media_type: the CSS media the page is rendered for (a PDF prints as `print` unless told `screen`). */
export const MEDIA_TYPES = ['screen', 'print'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/**
 * A block_requests pattern: a URL where `*` stands for any run of characters (Chromium's blocked-URL patterns),
 * printable ASCII without spaces.
 */
export function isUrlPattern(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0 && value.length <= PAGE_OPTION_LIMITS.urlPatternMax && /^[\x21-\x7e]+$/.test(value);
}

const UTF8 = new TextEncoder();

/** scripts: one script, or a list of at most scriptsMaxItems, at most scriptsMax bytes of UTF-8 in all. */
export function scriptsProblem(value: unknown): string | null {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) return 'scripts must be a string of JavaScript or a list of them';
  if (list.length > PAGE_OPTION_LIMITS.scriptsMaxItems) return `scripts must list at most ${PAGE_OPTION_LIMITS.scriptsMaxItems} scripts`;
  if (list.some((s: string) => s.trim() === '')) return 'scripts must not be empty';
  const bytes = list.reduce((sum: number, s: string) => sum + UTF8.encode(s).length, 0);
  if (bytes > PAGE_OPTION_LIMITS.scriptsMax) return `scripts must be at most ${PAGE_OPTION_LIMITS.scriptsMax} bytes of UTF-8 in all (got ${bytes})`;
  return null;
}

/** fail_on_status's list: HTTP error statuses. */
export const FAIL_ON_STATUS_RANGE = { min: 400, max: 599 } as const;
/** timeout_ms: below a second no page loads. */
export const TIMEOUT_MS_MIN = 1_000;

export function isFailOnStatus(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  return (
    Array.isArray(value) &&
    value.length <= FAIL_ON_STATUS_RANGE.max - FAIL_ON_STATUS_RANGE.min + 1 &&
    value.every((code) => Number.isInteger(code) && code >= FAIL_ON_STATUS_RANGE.min && code <= FAIL_ON_STATUS_RANGE.max)
  );
}

/** What the capturer is given for fail_on_status: undefined when nothing fails. */
export function failOnStatusForCapture(value: boolean | number[] | undefined): true | number[] | undefined {
  if (value === true) return true;
  return Array.isArray(value) && value.length > 0 ? [...new Set(value)] : undefined;
}

export function devicePreset(name: string | undefined): DevicePreset | null {
  return name !== undefined && Object.prototype.hasOwnProperty.call(DEVICES, name) ? DEVICES[name] : null;
}

/** A well-formed BCP 47 tag Intl knows (`en-US`, `de`, `zh-Hant-TW`). */
export function isValidLocale(tag: string): boolean {
  try {
    return tag.length <= PAGE_OPTION_LIMITS.localeMax && Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/** An IANA time zone Intl knows (`Europe/Berlin`, `UTC`). */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}
