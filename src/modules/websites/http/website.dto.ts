import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  CaptureSecrets,
  caseDuplicate,
  FIELD_VALUE_RULE,
  hasSecrets,
  isFieldValue,
  isForbiddenHeader,
  isHeaderName,
  redactSecrets,
  SECRET_LIMITS as S,
} from '../../../shared/domain/capture-secrets';
import { MaxEntries, NestedDto } from '../../../shared/http/body-bounds';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  Matches,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  ValidateNested,
} from 'class-validator';
import { DEVICE_NAMES } from '../../../shared/domain/devices';
import {
  BLOCKABLE_RESOURCES,
  BlockableResource,
  isFailOnStatus,
  isValidLocale,
  isValidTimeZone,
  PAGE_OPTION_LIMITS as P,
  TIMEOUT_MS_MIN,
} from '../../../shared/domain/page-options';
import { DEFAULT_WAIT_UNTIL, WAIT_UNTIL_VALUES, WaitUntil } from '../../../shared/domain/wait-until';
import { AlsoChecks, BodyRequired, FieldCheckContext, IsCssSelector, OptionalField, Satisfies } from '../../../shared/http/validation';
import { WEBSITE_RULES, WEBSITE_STATUSES, WebsiteCaptureOptions, WebsiteProps, WebsiteStatus } from '../domain/website';
import { CaptureOptionsView, WAIT_UNTIL_DESCRIPTION, WEBSITE_FIELDS as F, WebsiteView } from './openapi';
import {
  DEFAULT_FORMAT,
  DEFAULT_PDF_PAPER,
  OUTPUT_FORMATS,
  OutputFormat,
  PDF_PAPERS,
  PdfPaper,
  QUALITY,
  resolveOutput,
  TRANSPARENT_FORMATS,
} from '../../../shared/domain/output-format';

const R = WEBSITE_RULES;

// One definition per field rule, shared by create (required fields) and update (all optional).
const Name = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(R.nameMax));
const Url = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(R.urlMax));
const ViewportWidth = () => applyDecorators(OptionalField(), IsInt(), Min(R.viewportWidth.min), Max(R.viewportWidth.max));
const ViewportHeight = () => applyDecorators(OptionalField(), IsInt(), Min(R.viewportHeight.min), Max(R.viewportHeight.max));
const FullPage = () => applyDecorators(OptionalField(), IsBoolean());
const Status = () => applyDecorators(OptionalField(), IsIn(WEBSITE_STATUSES));
const ChangeThreshold = () =>
  applyDecorators(
    ApiPropertyOptional({ ...F.change_threshold, default: R.changeThreshold.default }),
    OptionalField(),
    // One message whatever is wrong (a string, NaN, out of range), not one per rule.
    Satisfies(
      'isThreshold',
      (v) => typeof v === 'number' && v >= R.changeThreshold.min && v <= R.changeThreshold.max,
      `must be a number from ${R.changeThreshold.min} to ${R.changeThreshold.max}`,
    ),
  );
const ChangeIgnoreSelectors = () =>
  applyDecorators(
    ApiPropertyOptional({ ...F.change_ignore_selectors, default: [] }),
    OptionalField(),
    MaxEntries(R.changeIgnoreSelectorsMax, `must be an array of at most ${R.changeIgnoreSelectorsMax} CSS selectors`),
    Satisfies('isSelectorList', (v) => Array.isArray(v), `must be an array of at most ${R.changeIgnoreSelectorsMax} CSS selectors`),
    IsString({ each: true }),
    MinLength(1, { each: true }),
    MaxLength(R.selectorMax, { each: true }),
    IsCssSelector({ each: true }),
  );

const OBJECT_MESSAGE = { message: ({ property }: { property: string }) => `${property} must be an object` };

/** ValidateNested takes an array for a list of objects: refused here, with the same message. */
function IsNotArray(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isNotArray',
      target: target.constructor,
      propertyName: String(propertyName),
      options: OBJECT_MESSAGE,
      validator: { validate: (value: unknown) => !Array.isArray(value) },
    });
}

/** `clip`: a rectangle in CSS px; its bounds are checked against the page's width once the request is merged. */
@ApiSchema({ name: 'Clip' })
export class ClipDto {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: P.clipMax }) @IsInt() @Min(0) @Max(P.clipMax) x!: number;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: P.clipMax }) @IsInt() @Min(0) @Max(P.clipMax) y!: number;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: P.clipMax }) @IsInt() @Min(1) @Max(P.clipMax) width!: number;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: P.clipMax }) @IsInt() @Min(1) @Max(P.clipMax) height!: number;
}

/** Text an HTTP field may hold (RFC 9110 field-value characters: see isFieldValue), named in the message. */
const FieldValue = (what: string) => Satisfies('isFieldValue', (v) => typeof v !== 'string' || isFieldValue(v), `must not contain ${what}`);

/** What is wrong with a `headers` object, or null: checked in this order, the first problem named. */
function headersProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'headers must be an object of header names to string values';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > S.headers) return `headers must have at most ${S.headers} entries`;
  const bad = entries.find(([name]) => !isHeaderName(name));
  if (bad) return `headers: ${JSON.stringify(bad[0])} is not a header name`;
  const forbidden = entries.find(([name]) => isForbiddenHeader(name));
  if (forbidden)
    return `headers: "${forbidden[0]}" cannot be set (Host, Cookie, Content-Length, Connection, Transfer-Encoding and Proxy-* are refused; use cookies for cookies)`;
  const duplicate = caseDuplicate(entries.map(([name]) => name));
  if (duplicate) return `headers: "${duplicate.name}" repeats "${duplicate.first}" (header names ignore case)`;
  const notString = entries.find(([, v]) => typeof v !== 'string' || v.length > S.valueMax);
  if (notString) return `headers: the value of ${notString[0]} must be a string of at most ${S.valueMax} characters`;
  const control = entries.find(([, v]) => !isFieldValue(v as string));
  if (control) return `headers: the value of ${control[0]} must not contain ${FIELD_VALUE_RULE}`;
  return null;
}

/**
 * `headers`: an object of at most 20 string values, standard names (case-insensitively distinct), none the
 * browser or proxy owns, values of RFC 9110 field-value characters only.
 */
function IsCaptureHeaders(): PropertyDecorator {
  return applyDecorators(MaxEntries(S.headers), (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isCaptureHeaders',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: ({ value }) => headersProblem(value) ?? '' },
      validator: { validate: (value: unknown) => headersProblem(value) === null },
    }),
  );
}

@ApiSchema({ name: 'Cookie' })
export class CookieDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: 256 })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: 'name must be a cookie name (an HTTP token)' })
  name!: string;
  @ApiProperty({ type: 'string', maxLength: S.valueMax, description: 'Never returned: shown as "********"' })
  @IsString()
  @MaxLength(S.valueMax)
  @Matches(/^[^;]*$/, { message: 'value must not contain ;' })
  @FieldValue(FIELD_VALUE_RULE)
  value!: string;
  @ApiPropertyOptional({ type: 'string', description: 'Default: the website’s host; must be that host or a domain it belongs to' })
  @OptionalField()
  @IsString()
  @MaxLength(253)
  domain?: string;
  @ApiPropertyOptional({ type: 'string', default: '/' })
  @OptionalField()
  @IsString()
  @MaxLength(1024)
  @Matches(/^\//, { message: 'path must start with /' })
  path?: string;
  @ApiPropertyOptional({ type: 'boolean' }) @OptionalField() @IsBoolean() secure?: boolean;
  @ApiPropertyOptional({ type: 'boolean' }) @OptionalField() @IsBoolean() http_only?: boolean;
  @ApiPropertyOptional({ enum: ['Strict', 'Lax', 'None'] }) @OptionalField() @IsIn(['Strict', 'Lax', 'None']) same_site?: 'Strict' | 'Lax' | 'None';
}

@ApiSchema({ name: 'HttpAuth' })
export class HttpAuthDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: 256 })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @Matches(/^[^:]*$/, { message: 'username must not contain :' })
  @FieldValue(FIELD_VALUE_RULE)
  username!: string;
  @ApiProperty({ type: 'string', maxLength: 1024, description: 'Never returned' })
  @IsString()
  @MaxLength(1024)
  @FieldValue(FIELD_VALUE_RULE)
  password!: string;
}

/**
 * The capture options a website saves as defaults and a Take Screenshot body overrides (API.md, Capture
 * options): one class, so both validate and document them alike. Unknown fields inside are refused like at
 * the top level.
 */
@ApiSchema({ name: 'CaptureOptionsInput', description: 'The website’s capture defaults, all optional; saving replaces the whole object.' })
export class CaptureOptionsDto {
  @ApiPropertyOptional({ enum: WAIT_UNTIL_VALUES, default: DEFAULT_WAIT_UNTIL, description: WAIT_UNTIL_DESCRIPTION })
  @OptionalField()
  @IsIn(WAIT_UNTIL_VALUES)
  wait_until?: WaitUntil;
  @ApiPropertyOptional({ enum: OUTPUT_FORMATS, default: DEFAULT_FORMAT, description: 'File format. `pdf` prints the page (print media) on `pdf_paper`.' })
  @OptionalField()
  @IsIn(OUTPUT_FORMATS)
  format?: OutputFormat;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: QUALITY.min,
    maximum: QUALITY.max,
    default: QUALITY.default,
    description: 'jpeg and webp only (422 with png or pdf)',
  })
  @OptionalField()
  @IsInt()
  @Min(QUALITY.min)
  @Max(QUALITY.max)
  quality?: number;
  @ApiPropertyOptional({ enum: PDF_PAPERS, default: DEFAULT_PDF_PAPER, description: 'pdf only' })
  @OptionalField()
  @IsIn(PDF_PAPERS)
  pdf_paper?: PdfPaper;
  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'pdf only' })
  @OptionalField()
  @IsBoolean()
  pdf_landscape?: boolean;
  @ApiPropertyOptional({ type: 'boolean', default: true, description: 'pdf only: print background colours and images' })
  @OptionalField()
  @IsBoolean()
  pdf_print_background?: boolean;
  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'Transparent background where the page sets none (png and webp only)' })
  @OptionalField()
  @IsBoolean()
  omit_background?: boolean;
  @ApiPropertyOptional({
    type: 'string',
    format: 'css-selector',
    minLength: 1,
    maxLength: P.selectorMax,
    example: '#pricing',
    description:
      'Capture only the first element matching this CSS selector (scrolled into view; full_page ignored). No match within the wait → the job fails naming it. Images only.',
  })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(P.selectorMax)
  @IsCssSelector()
  selector?: string;
  @ApiPropertyOptional({ type: ClipDto, description: 'Capture only this rectangle of the page, CSS px (not with selector; images only)' })
  @OptionalField()
  @IsNotArray()
  @ValidateNested(OBJECT_MESSAGE)
  @NestedDto(() => ClipDto)
  clip?: ClipDto;
  @ApiPropertyOptional({
    enum: DEVICE_NAMES,
    example: 'iPhone 15 Pro',
    description:
      'A device preset (GET /devices): viewport, scale factor, mobile, touch and user agent. Not with viewport_width/viewport_height/device_scale_factor in the same request.',
  })
  @OptionalField()
  @IsIn(DEVICE_NAMES)
  device?: string;
  @ApiPropertyOptional({ type: 'string', minLength: 1, maxLength: P.userAgentMax, description: 'User-Agent header and navigator.userAgent (over a device’s)' })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(P.userAgentMax)
  @FieldValue(FIELD_VALUE_RULE)
  user_agent?: string;
  @ApiPropertyOptional({ type: 'string', example: 'de-DE', description: 'BCP 47 language tag: Accept-Language, navigator.language and Intl' })
  @OptionalField()
  @IsString()
  @Satisfies('isLocale', (v) => typeof v === 'string' && isValidLocale(v), 'must be a BCP 47 language tag such as en-US')
  locale?: string;
  @ApiPropertyOptional({ type: 'string', example: 'Asia/Tokyo', description: 'IANA time zone the page’s clock runs in' })
  @OptionalField()
  @IsString()
  @Satisfies('isTimeZone', (v) => typeof v === 'string' && isValidTimeZone(v), 'must be an IANA time zone such as Europe/Berlin')
  timezone?: string;
  @ApiPropertyOptional({ type: 'array', items: { enum: [...BLOCKABLE_RESOURCES] }, uniqueItems: true, description: 'Resource types not loaded at all' })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(BLOCKABLE_RESOURCES.length)
  @ArrayUnique()
  @IsIn(BLOCKABLE_RESOURCES, { each: true })
  block_resources?: BlockableResource[];
  @ApiPropertyOptional({
    type: 'string',
    maxLength: P.cssMax,
    description: `A style sheet added to the page before the capture (at most ${P.cssMax} bytes of UTF-8)`,
  })
  @OptionalField()
  @IsString()
  @Satisfies('cssSize', (v) => typeof v === 'string' && Buffer.byteLength(v) <= P.cssMax, `must be at most ${P.cssMax} bytes`)
  css?: string;
  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description:
      'Answer cookie consent dialogs with “reject” (or hide them) before the capture, with the rule set of @duckduckgo/autoconsent (shipped, never downloaded)',
  })
  @OptionalField()
  @IsBoolean()
  block_cookie_banners?: boolean;
  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description:
      'Never request known advertising hosts (the advertising categories of Ghostery’s tracker database, @ghostery/trackerdb, shipped in the package). Network requests only: an ad slot is left empty.',
  })
  @OptionalField()
  @IsBoolean()
  block_ads?: boolean;
  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description: 'Never request known analytics trackers (the site_analytics category of Ghostery’s tracker database).',
  })
  @OptionalField()
  @IsBoolean()
  block_trackers?: boolean;
  @ApiPropertyOptional({
    oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'integer', minimum: 400, maximum: 599 }, maxItems: 200, example: [404, 500, 503] }],
    default: false,
    description:
      '`true`: the job fails when the page answers any 4xx or 5xx (after redirects), with `error` "The page answered HTTP 404" — a page failure, not retried. A list: only these codes (400..599). `false` or `[]`: an error page is captured like any page (its status is in the screenshot’s `capture.http_status`).',
  })
  @OptionalField()
  @Satisfies('failOnStatus', isFailOnStatus, 'must be true, false or a list of HTTP status codes from 400 to 599')
  fail_on_status?: boolean | number[];
  @ApiPropertyOptional({
    type: 'integer',
    minimum: TIMEOUT_MS_MIN,
    description:
      'The whole capture’s time limit in ms (navigation, waits, picture); at most the server’s CAPTURE_TIMEOUT_MS (default 30000, also the default here): above it 422. Past it the job fails ("Navigation timeout of 5000 ms exceeded").',
  })
  @OptionalField()
  @IsInt()
  @Min(TIMEOUT_MS_MIN)
  timeout_ms?: number;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    maxProperties: S.headers,
    example: { 'X-Api-Version': '2' },
    description:
      'Extra request headers, sent only to the website’s host and its subdomains (never to third parties). Host, Cookie, Content-Length, Connection, Transfer-Encoding and Proxy-* are refused. Encrypted at rest; values never returned.',
  })
  @OptionalField()
  @IsCaptureHeaders()
  headers?: Record<string, string>;
  @ApiPropertyOptional({
    type: [CookieDto],
    maxItems: S.cookies,
    description: 'Cookies set for the website before loading it. Encrypted at rest; values never returned.',
  })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(S.cookies)
  @ValidateNested({ each: true })
  @NestedDto(() => CookieDto)
  cookies?: CookieDto[];
  @ApiPropertyOptional({
    type: HttpAuthDto,
    description: 'HTTP Basic credentials, sent only to the website’s host and its subdomains. Encrypted at rest; never returned.',
  })
  @OptionalField()
  @IsNotArray()
  @ValidateNested(OBJECT_MESSAGE)
  @NestedDto(() => HttpAuthDto)
  http_auth?: HttpAuthDto;
}

/** The options a body sets, in the domain's names; a field left out stays out (the next default applies). */
export function toCaptureDefaults(dto: CaptureOptionsDto): WebsiteCaptureOptions {
  const o: WebsiteCaptureOptions = {};
  if (dto.wait_until !== undefined) o.waitUntil = dto.wait_until;
  if (dto.format !== undefined) o.format = dto.format;
  if (dto.quality !== undefined) o.quality = dto.quality;
  if (dto.pdf_paper !== undefined) o.pdfPaper = dto.pdf_paper;
  if (dto.pdf_landscape !== undefined) o.pdfLandscape = dto.pdf_landscape;
  if (dto.pdf_print_background !== undefined) o.pdfPrintBackground = dto.pdf_print_background;
  if (dto.omit_background !== undefined) o.omitBackground = dto.omit_background;
  if (dto.selector !== undefined) o.selector = dto.selector;
  if (dto.clip !== undefined) o.clip = { x: dto.clip.x, y: dto.clip.y, width: dto.clip.width, height: dto.clip.height };
  if (dto.device !== undefined) o.device = dto.device;
  if (dto.user_agent !== undefined) o.userAgent = dto.user_agent;
  if (dto.locale !== undefined) o.locale = dto.locale;
  if (dto.timezone !== undefined) o.timezone = dto.timezone;
  if (dto.block_resources !== undefined) o.blockResources = dto.block_resources;
  if (dto.css !== undefined) o.css = dto.css;
  if (dto.block_cookie_banners !== undefined) o.blockCookieBanners = dto.block_cookie_banners;
  if (dto.block_ads !== undefined) o.blockAds = dto.block_ads;
  if (dto.block_trackers !== undefined) o.blockTrackers = dto.block_trackers;
  if (dto.fail_on_status !== undefined) o.failOnStatus = Array.isArray(dto.fail_on_status) ? [...dto.fail_on_status] : dto.fail_on_status;
  if (dto.timeout_ms !== undefined) o.timeoutMs = dto.timeout_ms;
  const secrets: CaptureSecrets = {};
  if (dto.headers !== undefined) secrets.headers = { ...dto.headers };
  if (dto.cookies !== undefined) {
    secrets.cookies = dto.cookies.map((c) => ({
      name: c.name,
      value: c.value,
      ...(c.domain !== undefined ? { domain: c.domain } : {}),
      ...(c.path !== undefined ? { path: c.path } : {}),
      ...(c.secure !== undefined ? { secure: c.secure } : {}),
      ...(c.http_only !== undefined ? { httpOnly: c.http_only } : {}),
      ...(c.same_site !== undefined ? { sameSite: c.same_site } : {}),
    }));
  }
  if (dto.http_auth !== undefined) secrets.httpAuth = { username: dto.http_auth.username, password: dto.http_auth.password };
  if (hasSecrets(secrets)) o.secrets = secrets;
  return o;
}

/**
 * What GET shows of saved defaults: the values a capture would use, and only the fields that apply to its
 * format (quality for jpeg/webp, pdf_* for pdf, omit_background for png/webp), so the object can be sent back
 * as it is.
 */
export function captureOptionsView(o: WebsiteCaptureOptions): CaptureOptionsView {
  const output = resolveOutput({}, o);
  return {
    wait_until: o.waitUntil ?? DEFAULT_WAIT_UNTIL,
    format: output.format,
    ...(output.quality !== null ? { quality: output.quality } : {}),
    ...(output.pdf ? { pdf_paper: output.pdf.paper, pdf_landscape: output.pdf.landscape, pdf_print_background: output.pdf.printBackground } : {}),
    ...(TRANSPARENT_FORMATS.includes(output.format) ? { omit_background: output.omitBackground } : {}),
    // Page options only when saved: they have no default worth showing.
    ...(o.selector !== undefined ? { selector: o.selector } : {}),
    ...(o.clip !== undefined ? { clip: o.clip } : {}),
    ...(o.device !== undefined ? { device: o.device } : {}),
    ...(o.userAgent !== undefined ? { user_agent: o.userAgent } : {}),
    ...(o.locale !== undefined ? { locale: o.locale } : {}),
    ...(o.timezone !== undefined ? { timezone: o.timezone } : {}),
    ...(o.blockResources !== undefined ? { block_resources: o.blockResources } : {}),
    ...(o.css !== undefined ? { css: o.css } : {}),
    ...(o.blockCookieBanners !== undefined ? { block_cookie_banners: o.blockCookieBanners } : {}),
    ...(o.blockAds !== undefined ? { block_ads: o.blockAds } : {}),
    ...(o.blockTrackers !== undefined ? { block_trackers: o.blockTrackers } : {}),
    ...(o.failOnStatus !== undefined ? { fail_on_status: o.failOnStatus } : {}),
    ...(o.timeoutMs !== undefined ? { timeout_ms: o.timeoutMs } : {}),
    ...(o.secrets ? secretsView(redactSecrets(o.secrets)) : {}),
  };
}

/** Redacted secrets in the API's names. */
function secretsView(s: CaptureSecrets): Pick<CaptureOptionsView, 'headers' | 'cookies' | 'http_auth'> {
  return {
    ...(s.headers ? { headers: s.headers } : {}),
    ...(s.cookies
      ? {
          cookies: s.cookies.map((c) => ({
            name: c.name,
            value: c.value,
            ...(c.domain !== undefined ? { domain: c.domain } : {}),
            ...(c.path !== undefined ? { path: c.path } : {}),
            ...(c.secure !== undefined ? { secure: c.secure } : {}),
            ...(c.httpOnly !== undefined ? { http_only: c.httpOnly } : {}),
            ...(c.sameSite !== undefined ? { same_site: c.sameSite } : {}),
          })),
        }
      : {}),
    ...(s.httpAuth ? { http_auth: s.httpAuth } : {}),
  };
}

/** One message whichever way it is not an object (IsObject beside ValidateNested would give two). */
const CaptureOptions = () =>
  applyDecorators(
    ApiPropertyOptional({ type: CaptureOptionsDto }),
    OptionalField(),
    IsNotArray(),
    ValidateNested(OBJECT_MESSAGE),
    NestedDto(() => CaptureOptionsDto),
  );

/** The URL policy's rules that need no DNS (scheme, credentials, length, literal addresses): see AlsoChecks. */
function urlErrors(body: Record<string, unknown>, { urlPolicy }: FieldCheckContext) {
  if (typeof body.url !== 'string') return [];
  const verdict = urlPolicy.checkSyntax(body.url);
  return verdict.allowed ? [] : [{ field: 'url', message: verdict.reason }];
}

@ApiSchema({ description: 'Unknown fields are refused (422).' })
@AlsoChecks(urlErrors)
export class CreateWebsiteDto {
  @ApiProperty(F.name) @Name() name!: string;
  @ApiProperty(F.url) @Url() url!: string;
  @ApiPropertyOptional({ ...F.viewport_width, default: R.viewportWidth.default }) @ViewportWidth() viewport_width?: number;
  @ApiPropertyOptional({ ...F.viewport_height, default: R.viewportHeight.default }) @ViewportHeight() viewport_height?: number;
  @ApiPropertyOptional({ ...F.full_page, default: R.fullPageDefault }) @FullPage() full_page?: boolean;
  @ApiPropertyOptional({ ...F.status, default: 'active' }) @Status() status?: WebsiteStatus;
  @CaptureOptions() capture_options?: CaptureOptionsDto;
  @ChangeThreshold() change_threshold?: number;
  @ChangeIgnoreSelectors() change_ignore_selectors?: string[];
}

/** PUT is partial. Read-only fields a client echoes back from GET are accepted and ignored. */
@ApiSchema({
  description: 'Any subset of the fields. Read-only fields echoed back from GET (id, last_screenshot_at, created_at, updated_at) are accepted and ignored.',
})
@AlsoChecks(urlErrors)
@BodyRequired()
export class UpdateWebsiteDto {
  @ApiPropertyOptional(F.name) @OptionalField() @Name() name?: string;
  @ApiPropertyOptional(F.url) @OptionalField() @Url() url?: string;
  @ApiPropertyOptional(F.viewport_width) @ViewportWidth() viewport_width?: number;
  @ApiPropertyOptional(F.viewport_height) @ViewportHeight() viewport_height?: number;
  @ApiPropertyOptional(F.full_page) @FullPage() full_page?: boolean;
  @ApiPropertyOptional(F.status) @Status() status?: WebsiteStatus;
  @CaptureOptions() capture_options?: CaptureOptionsDto;
  @ChangeThreshold() change_threshold?: number;
  @ChangeIgnoreSelectors() change_ignore_selectors?: string[];

  @OptionalField() @IsInt() id?: number;
  @OptionalField() last_screenshot_at?: unknown;
  @OptionalField() created_at?: unknown;
  @OptionalField() updated_at?: unknown;
}

export function websiteView(w: WebsiteProps, withLastScreenshot = true): WebsiteView {
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    viewport_width: w.viewportWidth,
    viewport_height: w.viewportHeight,
    full_page: w.fullPage,
    status: w.status,
    capture_options: captureOptionsView(w.captureOptions),
    change_threshold: w.changeThreshold,
    change_ignore_selectors: w.changeIgnoreSelectors,
    ...(withLastScreenshot ? { last_screenshot_at: w.lastScreenshotAt?.toISOString() ?? null } : {}),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}
