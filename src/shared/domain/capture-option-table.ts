/**
 * THE capture-option table (API.md, Capture options): one row per option a capture can be asked for, and the
 * one place that says what it is called on the wire, what values it takes, its default, where it may be set,
 * whether it is a secret, which formats it applies to and whether it changes the picture. Everything else
 * derives from it: the request and website DTOs (validation and OpenAPI, shared/http/capture-option-fields.ts),
 * the domain type `CaptureOptions`, the website's saved defaults and how GET shows them, the merge request >
 * website > default, the capture request handed to the capturer (its "plain" fields) and the dashboard's form.
 *
 * Adding a plain option (a boolean, a number, a choice, a selector) = a row here, the page step that applies it
 * (adapters/capture), its test and its docs line. See docs/capture-option-table.md.
 */
import type { CaptureSecrets } from './capture-secrets';
import { DEVICE_NAMES } from './devices';
import {
  DEFAULT_FORMAT,
  DEFAULT_PDF_PAPER,
  IMAGE_FORMATS,
  SCROLL_DURATION_MS,
  VIDEO_FORMATS as VIDEOS,
  LOSSY_FORMATS,
  OUTPUT_FORMATS,
  OutputFormat,
  PDF_PAPERS,
  PdfPaper,
  QUALITY,
  TRANSPARENT_FORMATS,
} from './output-format';
import { BLOCKABLE_RESOURCES, BlockableResource, Clip, MEDIA_TYPES, MediaType, OUTPUT_SIZE, PAGE_OPTION_LIMITS as P, TIMEOUT_MS_MIN } from './page-options';
import { PDF_LIMITS, PdfTextRule } from './pdf-options';
import { DEFAULT_WAIT_UNTIL, WAIT_UNTIL_VALUES, WaitUntil } from './wait-until';

/** Where an option may be set: a Take Screenshot body, a website's saved `capture_options`, a render call. */
export type OptionScope = 'request' | 'website' | 'render';

/**
 * The values an option takes. The plain kinds (boolean, integer, number, choice, text, selector, selectors,
 * choices) need nothing but their row; the others have a rule of their own in the DTO layer.
 */
export type OptionValueType =
  | { kind: 'boolean' }
  /** A whole number; no `max`: bounded elsewhere (timeout_ms by CAPTURE_TIMEOUT_MS). */
  | { kind: 'integer'; min: number; max?: number }
  | { kind: 'number'; min: number; max: number }
  | { kind: 'choice'; values: readonly string[] }
  /** One line of header-safe text (no control characters). */
  | { kind: 'text'; minLength: number; maxLength: number }
  | { kind: 'selector' }
  /** A list of CSS selectors. */
  | { kind: 'selectors'; maxItems: number }
  /** A set of values from a list (no repeats). */
  | { kind: 'choices'; values: readonly string[] }
  | { kind: 'locale' }
  | { kind: 'timezone' }
  | { kind: 'stylesheet'; maxBytes: number }
  /** JavaScript: one script or a list, bounded in count and in bytes of UTF-8 in all (page-options.ts). */
  | { kind: 'scripts' }
  /** URLs with `*` wildcards (block_requests). */
  | { kind: 'urlPatterns'; maxItems: number }
  | { kind: 'clip' }
  | { kind: 'statuses' }
  | { kind: 'headers' }
  | { kind: 'cookies' }
  | { kind: 'httpAuth' }
  /** A PDF control's text, judged by its rule in pdf-options.ts (a margin, a page side, page ranges, a template). */
  | { kind: 'pdfText'; rule: PdfTextRule; maxLength: number }
  /** An upstream proxy URL: http://, https:// or socks5://, credentials allowed (shared/domain/proxy-url.ts). */
  | { kind: 'proxyUrl' };

/** How the dashboard shows an option (the control follows from the type unless named). */
export interface OptionFormHints {
  label: string;
  /** How a sentence names it, lower case (the dashboard's form errors: "PDF scale must be at most 2."); else its wire name in words. */
  name?: string;
  section: 'capture' | 'output' | 'page' | 'blocking' | 'secrets';
  /**
   * A control other than the type's own: `tristate` for a flag whose default depends on others; `session` for a pick
   * of the account's saved sessions (session_id).
   */
  control?: 'tristate' | 'textarea' | 'session';
  placeholder?: string;
  hint?: string;
  suggestions?: readonly string[];
}

declare const VALUE: unique symbol;

export interface CaptureOptionSpec {
  /** The name in JSON bodies, query strings and the dashboard's form. */
  readonly wire: string;
  /** The name in the domain (`CaptureOptions`), in job rows and in the website's saved options. */
  readonly key: string;
  readonly type: OptionValueType;
  /**
   * What applies when neither the request nor the website sets it: a value; `null` for "nothing" (no selector);
   * left out when the option only has an effect when set. See `defaultFrom` for defaults that are not values.
   */
  readonly default?: unknown;
  /** 'website': the website's own field of that name (full_page, viewport); 'server': a server setting. */
  readonly defaultFrom?: 'website' | 'server';
  readonly setOn: readonly OptionScope[];
  /** Encrypted at rest, never shown (values are "********"); kept in `CaptureOptions.secrets`. */
  readonly secret: boolean;
  /**
   * The output formats it applies to; another format with it set is a 422 naming the field, worded alike for every
   * option (`<wire> applies only to <formats>, not <format>`): capture-option-rules.ts `outputConflicts` reads this.
   */
  readonly formats: readonly OutputFormat[];
  /**
   * Whether a website's saved value still counts when a request names another format. Left out (false): the saved
   * value is a default for the website's own format and is set aside when the request chooses the format (a saved
   * quality does not refuse a request for png). True for what the page is cut or sized to (selector, clip,
   * output size): the saved value would still apply, so the request's format is refused with it.
   */
  readonly formatsBindWebsite?: boolean;
  /** 'true': only the value true asks for something (false is the default, no conflict); left out: any value set. */
  readonly formatsRefuse?: 'true';
  /** Words added to the format refusal for one format (how to get the same with it). */
  readonly formatsHint?: Partial<Record<OutputFormat, string>>;
  /**
   * Two captures differing in it are not like for like (change history compares like with like:
   * screenshots/application/comparison-key.ts reads this flag). False for timing (when the picture is taken, not
   * what it shows), the image format and quality (png, jpeg and webp are one family; a PDF is never compared) and
   * secrets (never hashed into a stored key).
   */
  readonly changesPicture: boolean;
  /**
   * 'plain': handed to the capturer as it is, default applied (CaptureRequest has a field of its key);
   * 'derived': the capturer gets something computed from it (the viewport and emulation, the output, the secrets).
   */
  readonly capturer: 'plain' | 'derived';
  /** GET /websites shows it with its default when the format uses it; the others only when saved. */
  readonly shownWithDefault?: boolean;
  /** For the OpenAPI document. */
  readonly description?: string;
  readonly example?: unknown;
  readonly form: OptionFormHints;
}

/** A row whose values are of type T (a compile-time tag, nothing at run time). */
type Row<T> = { readonly [VALUE]?: T };
const row =
  <T>() =>
  <const S extends CaptureOptionSpec>(spec: S): S & Row<T> =>
    spec;

const ALL_FORMATS = OUTPUT_FORMATS;
const IMAGES: readonly OutputFormat[] = IMAGE_FORMATS;
const PDF_ONLY: readonly OutputFormat[] = ['pdf'];
const VIDEO_FORMATS: readonly OutputFormat[] = VIDEOS;
/** Every option of Take Screenshot applies to a render call too (API.md, Render in one call). */
const REQUEST = ['request', 'render'] as const;
const EVERYWHERE = ['request', 'website', 'render'] as const;

/** Viewport bounds (API.md, Websites): the website's fields and a request's override alike. */
export const VIEWPORT = {
  width: { min: 320, max: 3840, default: 1280 },
  height: { min: 240, max: 2160, default: 800 },
} as const;

/** What wait_until means, for the request body and the website's saved default alike. */
export const WAIT_UNTIL_DESCRIPTION =
  'When the capture is taken. `stable`: after `load`, as soon as the page has been still for a short settle window ' +
  '(no request in flight, no pending timer of at most 2 s, no DOM change, fonts loaded, images decoded; intervals, ' +
  'longer timers and endless animations do not hold it), at most 3 s after `load`. `load` / `domcontentloaded`: at ' +
  'that event, nothing more. `network_idle`: after `load`, once the network has been quiet for 500 ms (at most 3 s).';

/**
 * Every capture option, in the order the API documents them: first those a website saves (also accepted by a
 * request), then those only a request sets. The order is the DTOs' and the form's.
 */
export const CAPTURE_OPTION_TABLE = [
  row<WaitUntil>()({
    wire: 'wait_until',
    key: 'waitUntil',
    type: { kind: 'choice', values: WAIT_UNTIL_VALUES },
    default: DEFAULT_WAIT_UNTIL,
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: false,
    // Left unset when nobody chose: the capturer knows its default.
    capturer: 'derived',
    shownWithDefault: true,
    description: WAIT_UNTIL_DESCRIPTION,
    form: { name: 'wait until', label: 'Wait until', section: 'page' },
  }),
  row<OutputFormat>()({
    wire: 'format',
    key: 'format',
    type: { kind: 'choice', values: OUTPUT_FORMATS },
    default: DEFAULT_FORMAT,
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: false,
    capturer: 'derived',
    shownWithDefault: true,
    description:
      "File format. `pdf` prints the page (print media) on `pdf_paper`. `webm` and `gif` are a video of a smooth scroll through the page at the viewport's size (`scroll_duration_ms`). `html` (the DOM after scripts ran), `markdown` (the main content, as a reader view takes it), `text` (the visible text) and `metadata` (JSON: title, description, canonical, lang, Open Graph, Twitter cards, icons, JSON-LD) store the page’s content instead of a picture.",
    form: { name: 'format', label: 'Format', section: 'output' },
  }),
  row<number>()({
    wire: 'quality',
    key: 'quality',
    type: { kind: 'integer', min: QUALITY.min, max: QUALITY.max },
    default: QUALITY.default,
    setOn: EVERYWHERE,
    secret: false,
    formats: LOSSY_FORMATS,
    changesPicture: false,
    capturer: 'derived',
    shownWithDefault: true,
    description: 'jpeg and webp only (422 with png or pdf)',
    form: { name: 'quality', label: 'Quality (jpeg, webp)', section: 'output' },
  }),
  row<PdfPaper>()({
    wire: 'pdf_paper',
    key: 'pdfPaper',
    type: { kind: 'choice', values: PDF_PAPERS },
    default: DEFAULT_PDF_PAPER,
    setOn: EVERYWHERE,
    secret: false,
    formats: PDF_ONLY,
    changesPicture: false,
    capturer: 'derived',
    shownWithDefault: true,
    description: 'pdf only',
    form: { name: 'PDF paper', label: 'PDF paper', section: 'output' },
  }),
  row<boolean>()({
    wire: 'pdf_landscape',
    key: 'pdfLandscape',
    type: { kind: 'boolean' },
    default: false,
    setOn: EVERYWHERE,
    secret: false,
    formats: PDF_ONLY,
    changesPicture: false,
    capturer: 'derived',
    shownWithDefault: true,
    description: 'pdf only',
    form: { name: 'PDF landscape', label: 'PDF landscape', section: 'output', control: 'tristate' },
  }),
  row<boolean>()({
    wire: 'pdf_print_background',
    key: 'pdfPrintBackground',
    type: { kind: 'boolean' },
    default: true,
    setOn: EVERYWHERE,
    secret: false,
    formats: PDF_ONLY,
    changesPicture: false,
    capturer: 'derived',
    shownWithDefault: true,
    description: 'pdf only: print background colours and images',
    form: { name: 'PDF prints backgrounds', label: 'PDF prints backgrounds', section: 'output', control: 'tristate' },
  }),
  row<string>()({
    wire: 'pdf_margin',
    key: 'pdfMargin',
    type: { kind: 'pdfText', rule: 'margin', maxLength: 100 },
    setOn: EVERYWHERE,
    secret: false,
    formats: PDF_ONLY,
    changesPicture: false,
    capturer: 'derived',
    example: '20mm 15mm 20mm 15mm',
    description:
      'pdf only: the page margins, one CSS length for all sides or four (top right bottom left), in px, in, cm or mm. Default: none (0), or 0.6 in top and bottom when a header or footer is printed.',
    form: { name: 'PDF margins', label: 'PDF margins', section: 'output', placeholder: '0 (e.g. 20mm, or 1in 0.5in 1in 0.5in)' },
  }),
  row<string>()({
    wire: 'pdf_header',
    key: 'pdfHeader',
    type: { kind: 'pdfText', rule: 'template', maxLength: PDF_LIMITS.templateMaxBytes },
    setOn: EVERYWHERE,
    secret: false,
    formats: PDF_ONLY,
    changesPicture: false,
    capturer: 'derived',
    example: '<div style="font-size:9px;width:100%;text-align:center"><span class="title"></span></div>',
    description: `pdf only: HTML printed at the top of every page (at most ${PDF_LIMITS.templateMaxBytes} bytes). Elements of class \`pageNumber\`, \`totalPages\`, \`title\`, \`url\` and \`date\` are filled in. Chromium renders it apart from the page, without network and without scripts: style it inline (its default font size is tiny), images as data: URLs.`,
    form: {
      name: 'PDF header',
      label: 'PDF header (HTML)',
      section: 'output',
      control: 'textarea',
      placeholder: '<div><span class="title"></span> · <span class="date"></span></div>',
      hint: 'Classes pageNumber, totalPages, title, url and date are filled in; give a font size inline (the default is tiny).',
    },
  }),
  row<string>()({
    wire: 'pdf_footer',
    key: 'pdfFooter',
    type: { kind: 'pdfText', rule: 'template', maxLength: PDF_LIMITS.templateMaxBytes },
    setOn: EVERYWHERE,
    secret: false,
    formats: PDF_ONLY,
    changesPicture: false,
    capturer: 'derived',
    example: '<div style="font-size:9px;margin:0 auto">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
    description: `pdf only: HTML printed at the bottom of every page, like pdf_header (at most ${PDF_LIMITS.templateMaxBytes} bytes).`,
    form: {
      name: 'PDF footer',
      label: 'PDF footer (HTML)',
      section: 'output',
      control: 'textarea',
      placeholder: '<div>Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
      hint: 'Classes pageNumber, totalPages, title, url and date are filled in; give a font size inline (the default is tiny).',
    },
  }),
  row<string>()({
    wire: 'pdf_page_ranges',
    key: 'pdfPageRanges',
    type: { kind: 'pdfText', rule: 'ranges', maxLength: PDF_LIMITS.pageRangesMax },
    setOn: EVERYWHERE,
    secret: false,
    formats: PDF_ONLY,
    changesPicture: false,
    capturer: 'derived',
    example: '1-3,5',
    description:
      'pdf only: the pages kept, counted from 1 (`1-3,5`, `2-` for the second to the last). A range beyond the last page fails the job, naming the page count.',
    form: { name: 'PDF pages', label: 'PDF pages', section: 'output', placeholder: 'all (e.g. 1-3,5)' },
  }),
  row<number>()({
    wire: 'pdf_scale',
    key: 'pdfScale',
    type: { kind: 'number', min: PDF_LIMITS.scale.min, max: PDF_LIMITS.scale.max },
    default: PDF_LIMITS.scale.default,
    setOn: EVERYWHERE,
    secret: false,
    formats: PDF_ONLY,
    changesPicture: false,
    capturer: 'derived',
    description: `pdf only: the page printed at this scale (${PDF_LIMITS.scale.min}–${PDF_LIMITS.scale.max})`,
    form: { name: 'PDF scale', label: 'PDF scale (0.1–2)', section: 'output', placeholder: '1' },
  }),
  row<string>()({
    wire: 'pdf_width',
    key: 'pdfWidth',
    type: { kind: 'pdfText', rule: 'side', maxLength: 20 },
    setOn: EVERYWHERE,
    secret: false,
    formats: PDF_ONLY,
    changesPicture: false,
    capturer: 'derived',
    example: '100mm',
    description: `pdf only: the page's width, a CSS length in px, in, cm or mm (${PDF_LIMITS.sideMinInches}–${PDF_LIMITS.sideMaxInches} in), over pdf_paper's (and pdf_landscape's); its height stays the paper's unless pdf_height is set.`,
    form: { name: 'PDF page width', label: 'PDF page width', section: 'output', placeholder: 'the paper’s (e.g. 100mm)' },
  }),
  row<string>()({
    wire: 'pdf_height',
    key: 'pdfHeight',
    type: { kind: 'pdfText', rule: 'side', maxLength: 20 },
    setOn: EVERYWHERE,
    secret: false,
    formats: PDF_ONLY,
    changesPicture: false,
    capturer: 'derived',
    example: '150mm',
    description: `pdf only: the page's height, like pdf_width.`,
    form: { name: 'PDF page height', label: 'PDF page height', section: 'output', placeholder: 'the paper’s (e.g. 150mm)' },
  }),
  row<boolean>()({
    wire: 'pdf_outline',
    key: 'pdfOutline',
    type: { kind: 'boolean' },
    default: false,
    setOn: EVERYWHERE,
    secret: false,
    formats: PDF_ONLY,
    changesPicture: false,
    capturer: 'derived',
    description: 'pdf only: bookmarks (the PDF outline) made from the page’s headings h1–h6 (a tagged PDF)',
    form: { name: 'PDF bookmarks', label: 'PDF bookmarks from headings', section: 'output', control: 'tristate' },
  }),
  row<number>()({
    wire: 'scroll_duration_ms',
    key: 'scrollDurationMs',
    type: { kind: 'integer', min: SCROLL_DURATION_MS.min, max: SCROLL_DURATION_MS.max },
    default: SCROLL_DURATION_MS.default,
    setOn: EVERYWHERE,
    secret: false,
    formats: VIDEO_FORMATS,
    changesPicture: false,
    capturer: 'derived',
    description: `webm and gif only: how long the video's smooth scroll from the top of the page to its bottom takes, in ms (a still half second at each end).`,
    form: { name: 'Scroll duration', label: 'Scroll duration (ms, webm and gif)', section: 'output', placeholder: String(SCROLL_DURATION_MS.default) },
  }),
  row<boolean>()({
    wire: 'omit_background',
    key: 'omitBackground',
    type: { kind: 'boolean' },
    default: false,
    setOn: EVERYWHERE,
    secret: false,
    formats: TRANSPARENT_FORMATS,
    formatsRefuse: 'true',
    changesPicture: true,
    capturer: 'derived',
    shownWithDefault: true,
    description: 'Transparent background where the page sets none (png and webp only)',
    form: { name: 'transparent background', label: 'Transparent background (png, webp)', section: 'output', control: 'tristate' },
  }),
  row<string | null>()({
    wire: 'selector',
    key: 'selector',
    type: { kind: 'selector' },
    default: null,
    setOn: EVERYWHERE,
    secret: false,
    formats: IMAGES,
    formatsBindWebsite: true,
    changesPicture: true,
    capturer: 'plain',
    example: '#pricing',
    description:
      'Capture only the first element matching this CSS selector (scrolled into view; full_page ignored). No match within the wait → the job fails naming it. Images only.',
    form: { name: 'selector', label: 'Capture only this element (CSS selector)', section: 'page', placeholder: '#pricing' },
  }),
  row<Clip | null>()({
    wire: 'clip',
    key: 'clip',
    type: { kind: 'clip' },
    default: null,
    setOn: EVERYWHERE,
    secret: false,
    formats: IMAGES,
    formatsBindWebsite: true,
    changesPicture: true,
    capturer: 'plain',
    description: 'Capture only this rectangle of the page, CSS px (not with selector; images only)',
    form: { name: 'rectangle to capture', label: 'Capture only this rectangle (CSS px)', section: 'page' },
  }),
  row<string>()({
    wire: 'device',
    key: 'device',
    type: { kind: 'choice', values: DEVICE_NAMES },
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'derived',
    example: 'iPhone 15 Pro',
    description:
      'A device preset (GET /devices): viewport, scale factor, mobile, touch and user agent. Not with viewport_width/viewport_height/device_scale_factor in the same request.',
    form: { name: 'device', label: 'Device', section: 'page', placeholder: 'none (desktop viewport)' },
  }),
  row<string>()({
    wire: 'user_agent',
    key: 'userAgent',
    type: { kind: 'text', minLength: 1, maxLength: P.userAgentMax },
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'derived',
    description: 'User-Agent header and navigator.userAgent (over a device’s)',
    form: { name: 'user agent', label: 'User agent', section: 'page' },
  }),
  row<string>()({
    wire: 'locale',
    key: 'locale',
    type: { kind: 'locale' },
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'derived',
    example: 'de-DE',
    description: 'BCP 47 language tag: Accept-Language, navigator.language and Intl',
    form: { name: 'locale', label: 'Locale', section: 'page', placeholder: 'en-US' },
  }),
  row<string>()({
    wire: 'timezone',
    key: 'timezone',
    type: { kind: 'timezone' },
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'derived',
    example: 'Asia/Tokyo',
    description: 'IANA time zone the page’s clock runs in',
    form: { name: 'time zone', label: 'Time zone', section: 'page', placeholder: 'Europe/Berlin', suggestions: Intl.supportedValuesOf('timeZone') },
  }),
  row<BlockableResource[]>()({
    wire: 'block_resources',
    key: 'blockResources',
    type: { kind: 'choices', values: BLOCKABLE_RESOURCES },
    default: [],
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    description: 'Resource types not loaded at all',
    form: { name: 'do not load', label: 'Do not load', section: 'blocking' },
  }),
  row<string | null>()({
    wire: 'css',
    key: 'css',
    type: { kind: 'stylesheet', maxBytes: P.cssMax },
    default: null,
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    description: `A style sheet added to the page before the capture (at most ${P.cssMax} bytes of UTF-8)`,
    form: { name: 'extra CSS', label: 'Extra CSS', section: 'page', control: 'textarea', placeholder: '.chat-widget { display: none }' },
  }),
  row<string[]>()({
    wire: 'scripts',
    key: 'scripts',
    type: { kind: 'scripts' },
    default: [],
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    example: "document.querySelector('#promo')?.remove()",
    description: `JavaScript run in the page (its own world, like a script of its own) once it settled, before the clicks and the capture; the page settles again after. One script or a list of at most ${P.scriptsMaxItems}, run in order, at most ${P.scriptsMax} bytes of UTF-8 in all; each may \`await\` (its promise is waited for, within timeout_ms). A script that throws fails the job ("scripts[0] failed: ReferenceError: …"). Every request a script makes goes through the URL policy like the page's own.`,
    form: {
      label: 'Run JavaScript before the capture',
      section: 'page',
      placeholder: "document.querySelector('#promo')?.remove()",
      hint: 'Runs once the page settled; it may await. Several scripts: separate them with a line // ---',
    },
  }),
  row<string[]>()({
    wire: 'click',
    key: 'click',
    type: { kind: 'selectors', maxItems: P.clickMaxItems },
    default: [],
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    example: '#load-more',
    description: `CSS selectors clicked in order (at most ${P.clickMaxItems}) after the page settled and the scripts ran, before the capture; the page settles after each click. A selector matching nothing fails the job ("Click target not found: #load-more").`,
    form: { label: 'Click these elements first (one selector a line)', section: 'page', placeholder: '#load-more' },
  }),
  row<string[]>()({
    wire: 'remove_selectors',
    key: 'removeSelectors',
    type: { kind: 'selectors', maxItems: P.removeSelectorsMaxItems },
    default: [],
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    example: '.newsletter-popup',
    description: 'Elements removed before the capture (display: none): unlike hide_selectors, the space they took is freed.',
    form: { label: 'Remove elements (one selector a line)', section: 'page', placeholder: '.newsletter-popup' },
  }),
  row<boolean>()({
    wire: 'reduced_motion',
    key: 'reducedMotion',
    type: { kind: 'boolean' },
    default: false,
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    description: 'Emulate prefers-reduced-motion: reduce (pages that honour it stop their animations and carousels)',
    form: { label: 'Reduced motion', section: 'page' },
  }),
  row<MediaType>()({
    wire: 'media_type',
    key: 'mediaType',
    type: { kind: 'choice', values: MEDIA_TYPES },
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    description: 'The CSS media the page is rendered for. Default: `screen` for images, `print` for a PDF.',
    form: { label: 'CSS media type', section: 'page', placeholder: 'screen (print for a PDF)' },
  }),
  row<boolean>()({
    wire: 'block_cookie_banners',
    key: 'blockCookieBanners',
    type: { kind: 'boolean' },
    default: false,
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    description:
      'Answer cookie consent dialogs with “reject” (or hide them) before the capture, with the rule set of @duckduckgo/autoconsent (shipped, never downloaded)',
    form: { name: 'reject cookie banners', label: 'Reject cookie banners', section: 'blocking' },
  }),
  row<boolean>()({
    wire: 'block_ads',
    key: 'blockAds',
    type: { kind: 'boolean' },
    default: false,
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    description:
      'Never request known advertising hosts (the advertising categories of Ghostery’s tracker database, @ghostery/trackerdb, shipped in the package). Network requests only: an ad slot is left empty.',
    form: { name: 'block ads', label: 'Block ads', section: 'blocking' },
  }),
  row<boolean>()({
    wire: 'block_trackers',
    key: 'blockTrackers',
    type: { kind: 'boolean' },
    default: false,
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    description: 'Never request known analytics trackers (the site_analytics category of Ghostery’s tracker database).',
    form: { name: 'block trackers', label: 'Block trackers', section: 'blocking' },
  }),
  row<boolean>()({
    wire: 'block_chat_widgets',
    key: 'blockChatWidgets',
    type: { kind: 'boolean' },
    default: false,
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    description:
      'Never request known chat and support widgets (Intercom, Drift, Crisp, Tawk, Zendesk chat, …: the chat and help-desk services of the customer_interaction category of Ghostery’s tracker database).',
    form: { label: 'Block chat widgets', section: 'blocking' },
  }),
  row<string[]>()({
    wire: 'block_requests',
    key: 'blockRequests',
    type: { kind: 'urlPatterns', maxItems: P.blockRequestsMaxItems },
    default: [],
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    example: '*://cdn.example.com/banner*',
    description: `Requests whose URL matches one of these patterns (\`*\` matches any characters; at most ${P.blockRequestsMaxItems}) are never sent. The page's own document is not matched.`,
    form: { label: 'Block requests to (one URL pattern a line, * for any characters)', section: 'blocking', placeholder: '*://cdn.example.com/banner*' },
  }),
  row<boolean | number[]>()({
    wire: 'fail_on_status',
    key: 'failOnStatus',
    type: { kind: 'statuses' },
    default: false,
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: false,
    capturer: 'derived',
    description:
      '`true`: the job fails when the page answers any 4xx or 5xx (after redirects), with `error` "The page answered HTTP 404" — a page failure, not retried. A list: only these codes (400..599). `false` or `[]`: an error page is captured like any page (its status is in the screenshot’s `capture.http_status`).',
    form: {
      name: 'fail on HTTP status',
      label: 'Fail on HTTP status',
      section: 'page',
      placeholder: 'all, or 404, 500',
      hint: '“all”: the capture fails when the page answers any 4xx or 5xx; or only the codes listed. Empty: error pages are captured.',
    },
  }),
  row<number>()({
    wire: 'timeout_ms',
    key: 'timeoutMs',
    type: { kind: 'integer', min: TIMEOUT_MS_MIN },
    defaultFrom: 'server',
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: false,
    capturer: 'plain',
    description:
      'The whole capture’s time limit in ms (navigation, waits, picture); at most the server’s CAPTURE_TIMEOUT_MS (default 30000, also the default here): above it 422. Past it the job fails ("The page did not answer within 5 s" when the page never answered; a page that answered is captured as it is by then, with the warning hung_requests).',
    form: { name: 'time limit', label: 'Time limit (ms)', section: 'page', placeholder: 'the server’s CAPTURE_TIMEOUT_MS' },
  }),
  row<number>()({
    wire: 'output_width',
    key: 'outputWidth',
    type: { kind: 'integer', min: OUTPUT_SIZE.min, max: OUTPUT_SIZE.max },
    setOn: EVERYWHERE,
    secret: false,
    formats: IMAGES,
    formatsHint: { pdf: 'choose the paper with pdf_paper' },
    formatsBindWebsite: true,
    changesPicture: true,
    capturer: 'plain',
    description: `The image resized to this width in pixels (${OUTPUT_SIZE.min}–${OUTPUT_SIZE.max}); without output_height the height keeps the aspect ratio. Images only (422 with pdf).`,
    form: { label: 'Resize to width (px)', section: 'output', placeholder: 'as captured' },
  }),
  row<number>()({
    wire: 'output_height',
    key: 'outputHeight',
    type: { kind: 'integer', min: OUTPUT_SIZE.min, max: OUTPUT_SIZE.max },
    setOn: EVERYWHERE,
    secret: false,
    formats: IMAGES,
    formatsHint: { pdf: 'choose the paper with pdf_paper' },
    formatsBindWebsite: true,
    changesPicture: true,
    capturer: 'plain',
    description: `The image resized to this height in pixels (${OUTPUT_SIZE.min}–${OUTPUT_SIZE.max}); without output_width the width keeps the aspect ratio; with both, exactly that size (stretched). Images only (422 with pdf).`,
    form: { label: 'Resize to height (px)', section: 'output', placeholder: 'as captured' },
  }),
  row<Record<string, string>>()({
    wire: 'headers',
    key: 'headers',
    type: { kind: 'headers' },
    setOn: EVERYWHERE,
    secret: true,
    formats: ALL_FORMATS,
    changesPicture: false,
    capturer: 'derived',
    example: { 'X-Api-Version': '2' },
    description:
      'Extra request headers, sent only to the website’s host and its subdomains (never to third parties). Host, Cookie, Content-Length, Connection, Transfer-Encoding and Proxy-* are refused. Encrypted at rest; values never returned.',
    form: {
      name: 'extra request headers',
      label: 'Extra request headers',
      section: 'secrets',
      placeholder: 'X-Api-Version: 2',
      hint: 'One "Name: value" a line. Saved values show as ******** — leave them so to keep them.',
    },
  }),
  row<NonNullable<CaptureSecrets['cookies']>>()({
    wire: 'cookies',
    key: 'cookies',
    type: { kind: 'cookies' },
    setOn: EVERYWHERE,
    secret: true,
    formats: ALL_FORMATS,
    changesPicture: false,
    capturer: 'derived',
    description: 'Cookies set for the website before loading it. Encrypted at rest; values never returned.',
    form: {
      name: 'cookies',
      label: 'Cookies',
      section: 'secrets',
      placeholder: 'session=abc; Domain=example.com; Path=/; Secure; HttpOnly; SameSite=Lax',
      hint: 'One cookie a line: name=value, then optional Domain, Path, Secure, HttpOnly, SameSite.',
    },
  }),
  row<NonNullable<CaptureSecrets['httpAuth']>>()({
    wire: 'http_auth',
    key: 'httpAuth',
    type: { kind: 'httpAuth' },
    setOn: EVERYWHERE,
    secret: true,
    formats: ALL_FORMATS,
    changesPicture: false,
    capturer: 'derived',
    description: 'HTTP Basic credentials, sent only to the website’s host and its subdomains. Encrypted at rest; never returned.',
    form: { name: 'HTTP Basic credentials', label: 'HTTP Basic credentials', section: 'secrets' },
  }),
  row<string>()({
    wire: 'proxy',
    key: 'proxy',
    type: { kind: 'proxyUrl' },
    setOn: ['request', 'website'],
    secret: true,
    formats: ALL_FORMATS,
    changesPicture: false,
    capturer: 'derived',
    example: 'http://user:secret@proxy.example.com:8080',
    description:
      'An upstream proxy every request of the page goes through, after the URL policy (http://, https:// or socks5://, credentials allowed). Its own address passes the URL policy too. Encrypted at rest; shown as http://********@host:port. A proxy that fails fails the capture with `proxy_failed`.',
    form: {
      label: 'Proxy',
      section: 'secrets',
      placeholder: 'http://user:password@proxy.example.com:8080',
      hint: 'http://, https:// or socks5://. A saved proxy shows masked — leave it so to keep it.',
    },
  }),
  row<string>()({
    wire: 'proxy_pool',
    key: 'proxyPool',
    type: { kind: 'text', minLength: 1, maxLength: 100 },
    setOn: ['request', 'website'],
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: false,
    capturer: 'derived',
    example: 'residential',
    description:
      'The name of one of the account’s proxy pools (/proxy-pools): the capture goes through one of its proxies, chosen by the pool’s rotation; a proxy that fails to connect is skipped for a cool-down. Not with `proxy`.',
    form: { label: 'Proxy pool', section: 'secrets', placeholder: 'the name of a proxy pool' },
  }),
  row<number>()({
    wire: 'session_id',
    key: 'sessionId',
    type: { kind: 'integer', min: 1, max: 2_147_483_647 },
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: false,
    capturer: 'derived',
    example: 1,
    description:
      'The id of one of the account’s saved sessions (/sessions): the page starts with its cookies (each sent to its own hosts) and its storage (set for its origin before the page’s scripts run). With the session’s logged_in_selector missing after load, a session made from a login scenario logs in again once and the capture is retried; otherwise the capture fails `session_expired`. Allowed in a signed /render link (the link carries the id, never a secret).',
    form: { label: 'Saved session', section: 'secrets', control: 'session', placeholder: 'none', hint: 'Captures start logged in (see Sessions).' },
  }),
  // Only a request (or a render) sets these; a website has full_page and the viewport as fields of its own.
  row<boolean>()({
    wire: 'full_page',
    key: 'fullPage',
    type: { kind: 'boolean' },
    defaultFrom: 'website',
    setOn: REQUEST,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    description: 'Default: the website’s full_page',
    form: { name: 'full page', label: 'Full page', section: 'capture', control: 'tristate', placeholder: 'the website’s' },
  }),
  row<string | null>()({
    wire: 'full_page_scroll_selector',
    key: 'fullPageScrollSelector',
    type: { kind: 'selector' },
    default: null,
    setOn: EVERYWHERE,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    example: 'main',
    description:
      'Full page (and PDF) of an app shell: the CSS selector of the element whose own scroll area holds the page’s content, captured whole. Found by itself when the document does not scroll; name it where it is not (one that does not parse is 422)',
    form: { label: 'Full-page scroll element', section: 'capture', placeholder: 'found by itself' },
  }),
  row<number>()({
    wire: 'viewport_width',
    key: 'viewportWidth',
    type: { kind: 'integer', min: VIEWPORT.width.min, max: VIEWPORT.width.max },
    defaultFrom: 'website',
    setOn: REQUEST,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'derived',
    description: 'Default: the website’s',
    form: { name: 'viewport width', label: 'Viewport width', section: 'capture', placeholder: 'the website’s' },
  }),
  row<number>()({
    wire: 'viewport_height',
    key: 'viewportHeight',
    type: { kind: 'integer', min: VIEWPORT.height.min, max: VIEWPORT.height.max },
    defaultFrom: 'website',
    setOn: REQUEST,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'derived',
    description: 'Default: the website’s',
    form: { name: 'viewport height', label: 'Viewport height', section: 'capture', placeholder: 'the website’s' },
  }),
  row<number>()({
    wire: 'delay_ms',
    key: 'delayMs',
    type: { kind: 'integer', min: 0, max: 10_000 },
    default: 0,
    setOn: REQUEST,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: false,
    capturer: 'plain',
    description: 'Milliseconds to wait after the page settled',
    form: { name: 'delay after load', label: 'Delay after load (ms)', section: 'capture', placeholder: '0' },
  }),
  row<string | null>()({
    wire: 'wait_for_selector',
    key: 'waitForSelector',
    type: { kind: 'selector' },
    default: null,
    setOn: REQUEST,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: false,
    capturer: 'plain',
    example: '#cookie-banner',
    description: 'Wait until this CSS selector matches before capturing (one that does not parse is 422)',
    form: { name: 'wait-for selector', label: 'Wait for selector', section: 'capture', placeholder: '#app.ready' },
  }),
  row<number>()({
    wire: 'device_scale_factor',
    key: 'deviceScaleFactor',
    type: { kind: 'number', min: 1, max: 3 },
    default: 1,
    setOn: REQUEST,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'derived',
    form: { name: 'scale factor', label: 'Scale factor (1–3)', section: 'capture', placeholder: '1' },
  }),
  row<string[]>()({
    wire: 'hide_selectors',
    key: 'hideSelectors',
    type: { kind: 'selectors', maxItems: 50 },
    default: [],
    setOn: REQUEST,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    example: '#cookie-banner',
    description: 'Elements hidden before capturing',
    form: { name: 'elements to hide', label: 'Hide elements (one selector a line)', section: 'capture', placeholder: '.cookie-banner' },
  }),
  row<boolean>()({
    wire: 'dark_mode',
    key: 'darkMode',
    type: { kind: 'boolean' },
    default: false,
    setOn: REQUEST,
    secret: false,
    formats: ALL_FORMATS,
    changesPicture: true,
    capturer: 'plain',
    description: 'Emulate prefers-color-scheme: dark',
    form: { name: 'dark mode', label: 'Dark mode', section: 'capture' },
  }),
] as const;

type Entry = (typeof CAPTURE_OPTION_TABLE)[number];
type ValueOf<E> = E extends Row<infer T> ? Exclude<T, null> : never;
/** The value the capturer gets: the row's type, with null where the row's default is "nothing". */
type ResolvedOf<E> = E extends Row<infer T> ? (E extends { default: unknown } ? T : E extends { defaultFrom: 'website' } ? T : T | undefined) : never;

/**
 * How to capture, as the domain holds it: a request's choices, a website's saved defaults, a job's options.
 * Every field optional (left out = the next default applies); secrets together, in `secrets`.
 */
export type CaptureOptions = { -readonly [E in Entry as E['secret'] extends true ? never : E['key']]?: ValueOf<E> } & {
  /** Headers, cookies, credentials (plain here; sealed wherever they are stored, never shown). */
  secrets?: CaptureSecrets;
};

/** The options the capturer takes as they are (rows with capturer 'plain'), every default applied. */
export type PlainCaptureChoices = { -readonly [E in Entry as E['capturer'] extends 'plain' ? E['key'] : never]: ResolvedOf<E> };

/** The rows that may be set in `scope`. */
export function optionsSetOn(scope: OptionScope): readonly CaptureOptionSpec[] {
  return (CAPTURE_OPTION_TABLE as readonly CaptureOptionSpec[]).filter((spec) => spec.setOn.includes(scope));
}

/** The rows of options a website saves in `capture_options`. */
export const WEBSITE_OPTIONS = optionsSetOn('website');
/** The rows only a request sets (the website has no saved default for them in `capture_options`). */
export const REQUEST_ONLY_OPTIONS = optionsSetOn('request').filter((spec) => !spec.setOn.includes('website'));

const NOT_SECRET = (CAPTURE_OPTION_TABLE as readonly CaptureOptionSpec[]).filter((spec) => !spec.secret);

/**
 * Each field: the request's if set, else the website's (its saved options and, for full_page and the viewport,
 * its own fields). Defaults are not applied here: `plainChoices` does for the capturer.
 */
export function mergeCaptureOptions(request: CaptureOptions, website: CaptureOptions): CaptureOptions {
  const merged: Record<string, unknown> = {};
  for (const { key } of NOT_SECRET) {
    const value = (request as Record<string, unknown>)[key] ?? (website as Record<string, unknown>)[key];
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

/** The plain options of merged choices for the capturer, each one's default where none is set. */
export function plainChoices(merged: CaptureOptions): PlainCaptureChoices {
  const out: Record<string, unknown> = {};
  for (const spec of CAPTURE_OPTION_TABLE as readonly CaptureOptionSpec[]) {
    if (spec.capturer !== 'plain') continue;
    const value = (merged as Record<string, unknown>)[spec.key];
    out[spec.key] = value !== undefined ? value : spec.default;
  }
  return out as PlainCaptureChoices;
}
