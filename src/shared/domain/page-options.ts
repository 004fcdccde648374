/**
 * How the page is rendered and what is captured of it (API.md, Capture options: `selector`, `clip`, `device`,
 * `user_agent`, `locale`, `timezone`, `block_resources`, `block_ads`, `block_trackers`, `css`). One definition shared by request and website
 * validation, job rows and the capture request.
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

/** Page choices as stored on a job or a website (every field optional). */
export interface PageOptions {
  selector?: string;
  clip?: Clip;
  device?: string;
  userAgent?: string;
  locale?: string;
  timezone?: string;
  blockResources?: BlockableResource[];
  css?: string;
  blockCookieBanners?: boolean;
  /** Requests to advertising hosts never made (Ghostery's tracker database). */
  blockAds?: boolean;
  /** Requests to analytics trackers never made (same database). */
  blockTrackers?: boolean;
  /**
   * fail_on_status: the job fails when the page answers one of these HTTP statuses ("The page answered HTTP 404");
   * true = any 4xx or 5xx, false or [] = never (an error page is captured like any page).
   */
  failOnStatus?: boolean | number[];
  /** timeout_ms: this capture's budget, at most the server's CAPTURE_TIMEOUT_MS. */
  timeoutMs?: number;
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

/** Device and browser emulation beyond the viewport, as the capturer applies it. */
export interface Emulation {
  mobile: boolean;
  touch: boolean;
  userAgent: string | null;
  /** BCP 47: navigator.language, Intl and Accept-Language. */
  locale: string | null;
  /** IANA zone the page's clock runs in. */
  timezone: string | null;
}

/** The viewport and emulation a page is rendered with: a device preset's, else the given viewport. */
export function renderingFor(
  options: PageOptions,
  viewport: { viewportWidth: number; viewportHeight: number; deviceScaleFactor: number },
): { viewportWidth: number; viewportHeight: number; deviceScaleFactor: number; emulation: Emulation } {
  const device = devicePreset(options.device);
  return {
    viewportWidth: device?.width ?? viewport.viewportWidth,
    viewportHeight: device?.height ?? viewport.viewportHeight,
    deviceScaleFactor: device?.deviceScaleFactor ?? viewport.deviceScaleFactor,
    emulation: {
      mobile: device?.mobile ?? false,
      touch: device?.touch ?? false,
      userAgent: options.userAgent ?? device?.userAgent ?? null,
      locale: options.locale ?? null,
      timezone: options.timezone ?? null,
    },
  };
}

/** Each field: the request's if set, else the website's. */
export function mergePageOptions(request: PageOptions, website: PageOptions): PageOptions {
  const merged: PageOptions = { ...website };
  for (const key of Object.keys(request) as Array<keyof PageOptions>) {
    if (request[key] !== undefined) (merged as Record<string, unknown>)[key] = request[key];
  }
  return merged;
}

interface Conflict {
  field: string;
  message: string;
}

/**
 * Choices that cannot go together once the request is laid over the website: selector with clip, either with a
 * PDF, a device with an explicit viewport, a clip beyond the width the page is rendered at.
 */
export function pageOptionConflicts(
  options: PageOptions,
  context: {
    format: string;
    viewportWidth: number;
    viewportSetByRequest: Array<'viewport_width' | 'viewport_height' | 'device_scale_factor'>;
    /** The server's CAPTURE_TIMEOUT_MS: timeout_ms may not exceed it. */
    captureTimeoutMs?: number;
  },
): Conflict[] {
  const problems: Conflict[] = [];
  if (options.timeoutMs !== undefined && context.captureTimeoutMs !== undefined && options.timeoutMs > context.captureTimeoutMs) {
    problems.push({ field: 'timeout_ms', message: `timeout_ms must not be greater than ${context.captureTimeoutMs} (the server's CAPTURE_TIMEOUT_MS)` });
  }
  if (options.selector !== undefined && options.clip !== undefined) {
    problems.push({ field: 'clip', message: 'clip cannot be combined with selector: choose one' });
  }
  if (context.format === 'pdf') {
    if (options.selector !== undefined) problems.push({ field: 'selector', message: 'selector applies to images, not pdf' });
    if (options.clip !== undefined) problems.push({ field: 'clip', message: 'clip applies to images, not pdf' });
  }
  const device = devicePreset(options.device);
  if (device) {
    for (const field of context.viewportSetByRequest) problems.push({ field, message: `${field} cannot be combined with device (the device sets it)` });
  }
  const width = device ? device.width : context.viewportWidth;
  if (options.clip && options.clip.x + options.clip.width > width) {
    problems.push({ field: 'clip', message: `clip must lie within the page's width of ${width} px (x + width ≤ ${width})` });
  }
  if (options.clip && options.clip.y + options.clip.height > PAGE_OPTION_LIMITS.clipMax) {
    problems.push({
      field: 'clip',
      message: `clip must lie within ${PAGE_OPTION_LIMITS.clipMax} px from the top (y + height ≤ ${PAGE_OPTION_LIMITS.clipMax})`,
    });
  }
  return problems;
}
