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
} as const;

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
