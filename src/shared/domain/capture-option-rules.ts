/**
 * The rules that join capture options (capture-option-table.ts) once the request is laid over the website: the
 * output a capture produces, the viewport and emulation it renders with, and the choices that cannot go together.
 */
import { CAPTURE_OPTION_TABLE, type CaptureOptions, type CaptureOptionSpec } from './capture-option-table';
import { devicePreset, PAGE_OPTION_LIMITS } from './page-options';
import {
  DEFAULT_FORMAT,
  DEFAULT_PDF_PAPER,
  IMAGE_FORMATS,
  isVideoFormat,
  LOSSY_FORMATS,
  OUTPUT_FORMATS,
  OutputFormat,
  PdfPaper,
  QUALITY,
  SCROLL_DURATION_MS,
  TRANSPARENT_FORMATS,
  VideoFormat,
} from './output-format';

/** The output of one capture, every default applied. */
export interface ResolvedOutput {
  format: OutputFormat;
  /** Only for jpeg and webp. */
  quality: number | null;
  /** The PDF controls beyond paper, orientation and backgrounds are present only when set (pdf-options.ts). */
  pdf: {
    paper: PdfPaper;
    landscape: boolean;
    printBackground: boolean;
    margin?: string;
    header?: string;
    footer?: string;
    pageRanges?: string;
    scale?: number;
    width?: string;
    height?: string;
    outline?: boolean;
  } | null;
  /** Only for webm and gif: the scroll through the page the video shows. */
  video?: { format: VideoFormat; scrollDurationMs: number } | null;
  omitBackground: boolean;
}

/** The request's choices over the website's, field by field, then the service defaults. */
export function resolveOutput(request: CaptureOptions, website: CaptureOptions): ResolvedOutput {
  const pick = <K extends keyof CaptureOptions>(key: K): CaptureOptions[K] => (request[key] !== undefined ? request[key] : website[key]);
  const format = pick('format') ?? DEFAULT_FORMAT;
  return {
    format,
    quality: LOSSY_FORMATS.includes(format) ? (pick('quality') ?? QUALITY.default) : null,
    pdf:
      format === 'pdf'
        ? {
            paper: pick('pdfPaper') ?? DEFAULT_PDF_PAPER,
            landscape: pick('pdfLandscape') ?? false,
            printBackground: pick('pdfPrintBackground') ?? true,
            ...pdfControls(pick),
          }
        : null,
    // Present only for a video, so every other output resolves exactly as before videos existed.
    ...(isVideoFormat(format) ? { video: { format, scrollDurationMs: pick('scrollDurationMs') ?? SCROLL_DURATION_MS.default } } : {}),
    omitBackground: TRANSPARENT_FORMATS.includes(format) ? (pick('omitBackground') ?? false) : false,
  };
}

/** The PDF controls set (request over website), defaults left out so a PDF without them resolves as before. */
function pdfControls(pick: <K extends keyof CaptureOptions>(key: K) => CaptureOptions[K]): Partial<NonNullable<ResolvedOutput['pdf']>> {
  const controls = {
    margin: pick('pdfMargin'),
    header: pick('pdfHeader'),
    footer: pick('pdfFooter'),
    pageRanges: pick('pdfPageRanges'),
    scale: pick('pdfScale'),
    width: pick('pdfWidth'),
    height: pick('pdfHeight'),
    outline: pick('pdfOutline'),
  };
  return Object.fromEntries(Object.entries(controls).filter(([, value]) => value !== undefined));
}

/** `jpeg and webp`, `pdf`, `images (png, jpeg and webp)`: the formats of a refusal, in words. */
export function formatsInWords(formats: readonly OutputFormat[]): string {
  const list = formats.length === 1 ? formats[0] : `${formats.slice(0, -1).join(', ')} and ${formats[formats.length - 1]}`;
  const images = formats.length === IMAGE_FORMATS.length && IMAGE_FORMATS.every((f) => formats.includes(f));
  return images ? `images (${list})` : list;
}

/** The rows of the table that apply to some formats only. */
const FORMAT_LIMITED = CAPTURE_OPTION_TABLE.filter((spec) => spec.formats.length < OUTPUT_FORMATS.length) as readonly CaptureOptionSpec[];

/**
 * Choices that contradict the format they end up with (the request's over the website's), from the table's
 * `formats` column: quality without a lossy format, PDF settings without PDF, a transparent background in a format
 * without alpha, a selector, clip or output size without an image. One wording for all, naming the field as the API
 * spells it: `<field> applies only to <formats>, not <format>`. A website's saved value counts unless the request
 * chooses the format itself (then it is that format's default no more), except for the rows marked
 * `formatsBindWebsite`, whose saved value would still apply.
 */
export function outputConflicts(request: CaptureOptions, website: CaptureOptions = {}): Array<{ field: string; message: string }> {
  const format = request.format ?? website.format ?? DEFAULT_FORMAT;
  const problems: Array<{ field: string; message: string }> = [];
  for (const spec of FORMAT_LIMITED) {
    if (spec.formats.includes(format)) continue;
    const key = spec.key as keyof CaptureOptions;
    const value = request[key] !== undefined ? request[key] : request.format === undefined || spec.formatsBindWebsite ? website[key] : undefined;
    if (value === undefined || (spec.formatsRefuse === 'true' && value !== true)) continue;
    const hint = spec.formatsHint?.[format];
    problems.push({ field: spec.wire, message: `${spec.wire} applies only to ${formatsInWords(spec.formats)}, not ${format}${hint ? ` (${hint})` : ''}` });
  }
  return problems;
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
  options: CaptureOptions,
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

interface Conflict {
  field: string;
  message: string;
}

/** Request fields a device preset sets, by their domain and wire names. */
const VIEWPORT_FIELDS = [
  ['viewportWidth', 'viewport_width'],
  ['viewportHeight', 'viewport_height'],
  ['deviceScaleFactor', 'device_scale_factor'],
] as const;

/** The fields a device preset sets that this request sends itself (refused beside a device), by their wire names. */
export function viewportFieldsSet(options: CaptureOptions): Array<(typeof VIEWPORT_FIELDS)[number][1]> {
  return VIEWPORT_FIELDS.filter(([key]) => options[key] !== undefined).map(([, field]) => field);
}

/**
 * Choices that cannot go together once the request is laid over the website: selector with clip, a device with an
 * explicit viewport, a clip beyond the width the page is rendered at.
 */
export function pageOptionConflicts(
  options: CaptureOptions,
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
  // Options that apply to some formats only (selector, clip, output size: images) are refused by outputConflicts.
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
