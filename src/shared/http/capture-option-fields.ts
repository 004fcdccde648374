/**
 * The capture options on the wire, derived from the capture-option table (shared/domain/capture-option-table.ts):
 * each row becomes a validated, documented DTO field (class-validator and @nestjs/swagger metadata applied
 * here, as the decorators on a hand-written field would be, in the same order, so rules and messages are the
 * same), and bodies convert to and from the domain's `CaptureOptions` row by row. Used by the website's
 * `capture_options`, Take Screenshot (and render), and the dashboard's forms through them.
 */
import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { ApiPropertyOptions } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  ValidateNested,
} from 'class-validator';
import {
  CaptureSecrets,
  caseDuplicate,
  FIELD_VALUE_RULE,
  hasSecrets,
  isFieldValue,
  isForbiddenHeader,
  isHeaderName,
  REDACTED,
  redactSecrets,
  SECRET_LIMITS as S,
} from '../domain/capture-secrets';
import { CaptureOptions, CaptureOptionSpec, REQUEST_ONLY_OPTIONS, WEBSITE_OPTIONS } from '../domain/capture-option-table';
import { parseProxyUrl, PROXY_URL_MAX, PROXY_URL_RULE } from '../domain/proxy-url';
import { resolveOutput } from '../domain/capture-option-rules';
import { OUTPUT_FORMATS } from '../domain/output-format';
import {
  FAIL_ON_STATUS_RANGE,
  isFailOnStatus,
  isUrlPattern,
  isValidLocale,
  isValidTimeZone,
  PAGE_OPTION_LIMITS as P,
  scriptsProblem,
} from '../domain/page-options';
import { PdfTextRule, pdfTextProblem } from '../domain/pdf-options';
import { MaxEntries, NestedDto } from './body-bounds';
import { IsCssSelector, OptionalField, Satisfies } from './validation';

export const OBJECT_MESSAGE = { message: ({ property }: { property: string }) => `${property} must be an object` };

/** ValidateNested takes an array for a list of objects: refused here, with the same message. */
export function IsNotArray(): PropertyDecorator {
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

/** `scripts`: a script or a list of them, bounded in count and bytes (page-options.ts says how). */
function IsScripts(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isScripts',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: ({ value }) => scriptsProblem(value) ?? '' },
      validator: { validate: (value: unknown) => scriptsProblem(value) === null },
    });
}

/** A PDF control's text (pdf_margin, pdf_width, pdf_page_ranges, pdf_header, …), judged by its rule in pdf-options.ts. */
function IsPdfText(rule: PdfTextRule): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isPdfText',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: ({ property, value }) => `${property} ${pdfTextProblem(rule, value) ?? ''}` },
      validator: { validate: (value: unknown) => pdfTextProblem(rule, value) === null },
    });
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

/** A selector as OpenAPI shows it. */
const SELECTOR_SCHEMA = { type: 'string', format: 'css-selector', minLength: 1, maxLength: P.selectorMax } as const;

/** The OpenAPI schema of a row's values (bounds included), without its default and description. */
function schemaOf(spec: CaptureOptionSpec): ApiPropertyOptions {
  const t = spec.type;
  switch (t.kind) {
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
      return { type: 'integer', minimum: t.min, ...(t.max !== undefined ? { maximum: t.max } : {}) };
    case 'number':
      return { type: 'number', minimum: t.min, maximum: t.max };
    case 'choice':
      return { enum: [...t.values] };
    case 'text':
      return { type: 'string', minLength: t.minLength, maxLength: t.maxLength };
    case 'selector':
      return { ...SELECTOR_SCHEMA };
    case 'selectors':
      return {
        type: 'array',
        items: { ...SELECTOR_SCHEMA, description: 'A standard CSS selector (one that does not parse is 422)', example: spec.example },
        maxItems: t.maxItems,
      };
    case 'choices':
      return { type: 'array', items: { enum: [...t.values] }, uniqueItems: true };
    case 'locale':
    case 'timezone':
      return { type: 'string' };
    case 'stylesheet':
      return { type: 'string', maxLength: t.maxBytes };
    case 'scripts':
      return {
        oneOf: [
          { type: 'string', minLength: 1 },
          { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: P.scriptsMaxItems },
        ],
      };
    case 'urlPatterns':
      return {
        type: 'array',
        items: { type: 'string', minLength: 1, maxLength: P.urlPatternMax, description: 'A URL; * matches any characters', example: spec.example },
        maxItems: t.maxItems,
      };
    case 'clip':
      return { type: ClipDto };
    case 'statuses':
      return {
        oneOf: [
          { type: 'boolean' },
          {
            type: 'array',
            items: { type: 'integer', minimum: FAIL_ON_STATUS_RANGE.min, maximum: FAIL_ON_STATUS_RANGE.max },
            maxItems: FAIL_ON_STATUS_RANGE.max - FAIL_ON_STATUS_RANGE.min + 1,
            example: [404, 500, 503],
          },
        ],
      };
    case 'headers':
      return { type: 'object', additionalProperties: { type: 'string' }, maxProperties: S.headers };
    case 'cookies':
      return { type: [CookieDto], maxItems: S.cookies };
    case 'httpAuth':
      return { type: HttpAuthDto };
    case 'pdfText':
      return { type: 'string', maxLength: t.maxLength };
    case 'proxyUrl':
      return { type: 'string', maxLength: PROXY_URL_MAX, format: 'uri' };
  }
}

/** The rules of a row's values, top to bottom as they would be written on a field. */
function validatorsOf(spec: CaptureOptionSpec): PropertyDecorator[] {
  const t = spec.type;
  switch (t.kind) {
    case 'boolean':
      return [IsBoolean()];
    case 'integer':
      return [IsInt(), Min(t.min), ...(t.max !== undefined ? [Max(t.max)] : [])];
    case 'number':
      return [IsNumber(), Min(t.min), Max(t.max)];
    case 'choice':
      return [IsIn(t.values as string[])];
    case 'text':
      return [IsString(), MinLength(t.minLength), MaxLength(t.maxLength), FieldValue(FIELD_VALUE_RULE)];
    case 'selector':
      return [IsString(), MinLength(1), MaxLength(P.selectorMax), IsCssSelector()];
    case 'selectors':
      return [
        IsArray(),
        ArrayMaxSize(t.maxItems),
        IsString({ each: true }),
        MinLength(1, { each: true }),
        MaxLength(P.selectorMax, { each: true }),
        IsCssSelector({ each: true }),
      ];
    case 'choices':
      return [IsArray(), ArrayMaxSize(t.values.length), ArrayUnique(), IsIn(t.values as string[], { each: true })];
    case 'locale':
      return [IsString(), Satisfies('isLocale', (v) => typeof v === 'string' && isValidLocale(v), 'must be a BCP 47 language tag such as en-US')];
    case 'timezone':
      return [IsString(), Satisfies('isTimeZone', (v) => typeof v === 'string' && isValidTimeZone(v), 'must be an IANA time zone such as Europe/Berlin')];
    case 'stylesheet':
      return [IsString(), Satisfies('cssSize', (v) => typeof v === 'string' && Buffer.byteLength(v) <= t.maxBytes, `must be at most ${t.maxBytes} bytes`)];
    case 'scripts':
      return [IsScripts()];
    case 'urlPatterns':
      return [
        IsArray(),
        ArrayMaxSize(t.maxItems),
        Satisfies(
          'isUrlPattern',
          (v) => Array.isArray(v) && v.every(isUrlPattern),
          `must be URL patterns of 1 to ${P.urlPatternMax} printable characters without spaces (* matches any characters)`,
        ),
      ];
    case 'clip':
      return [IsNotArray(), ValidateNested(OBJECT_MESSAGE), NestedDto(() => ClipDto)];
    case 'statuses':
      return [Satisfies('failOnStatus', isFailOnStatus, 'must be true, false or a list of HTTP status codes from 400 to 599')];
    case 'headers':
      return [IsCaptureHeaders()];
    case 'cookies':
      return [IsArray(), ArrayMaxSize(S.cookies), ValidateNested({ each: true }), NestedDto(() => CookieDto)];
    case 'httpAuth':
      return [IsNotArray(), ValidateNested(OBJECT_MESSAGE), NestedDto(() => HttpAuthDto)];
    case 'pdfText':
      return [IsPdfText(t.rule)];
    case 'proxyUrl':
      return [IsString(), Satisfies('isProxyUrl', (v) => typeof v === 'string' && parseProxyUrl(v) !== null, PROXY_URL_RULE)];
  }
}

/** What TypeScript would record as the field's type (`design:type`), which swagger reads. */
function designTypeOf(spec: CaptureOptionSpec): unknown {
  switch (spec.type.kind) {
    case 'boolean':
      return Boolean;
    case 'integer':
    case 'number':
      return Number;
    case 'selectors':
    case 'choices':
    case 'cookies':
    case 'urlPatterns':
      return Array;
    case 'scripts':
      return Object;
    case 'clip':
      return ClipDto;
    case 'httpAuth':
      return HttpAuthDto;
    case 'statuses':
    case 'headers':
      return Object;
    default:
      return String;
  }
}

/** A default worth documenting: a value (not "nothing", not an empty list). */
function documentedDefault(spec: CaptureOptionSpec): { default?: unknown } {
  return spec.default === undefined || spec.default === null || Array.isArray(spec.default) ? {} : { default: spec.default };
}

/**
 * Declares each row as an optional field of `dto`: its OpenAPI property and its rules, applied as decorators
 * written on the field would be (the bottom one first).
 */
export function declareCaptureOptionFields(dto: { prototype: object }, specs: readonly CaptureOptionSpec[]): void {
  for (const spec of specs) {
    const schema = { ...schemaOf(spec), ...documentedDefault(spec) } as Record<string, unknown>;
    if (spec.example !== undefined && spec.type.kind !== 'selectors' && spec.type.kind !== 'urlPatterns') schema.example = spec.example;
    if (spec.description !== undefined) schema.description = spec.description;
    const decorators = [ApiPropertyOptional(schema), OptionalField(), ...validatorsOf(spec)];
    Reflect.defineMetadata('design:type', designTypeOf(spec), dto.prototype, spec.wire);
    for (const decorate of decorators.reverse()) decorate(dto.prototype, spec.wire);
  }
}

/** An OpenAPI query parameter (as @ApiQuery takes it). */
export interface QueryParameterSpec {
  name: string;
  required: boolean;
  description: string;
  schema: Record<string, unknown>;
}

/** How a row's values are spelled in a query string (render-query.ts converts them back), as an OpenAPI schema. */
function querySchemaOf(spec: CaptureOptionSpec): { schema: Record<string, unknown>; spelling?: string } {
  switch (spec.type.kind) {
    case 'clip':
      return { schema: { type: 'string', minLength: 1 }, spelling: 'JSON: `{"x":0,"y":0,"width":800,"height":600}`' };
    case 'statuses':
      return { schema: { type: 'string', minLength: 1, example: '404,500' }, spelling: '`true`, `false` or status codes separated by commas (`404,500`)' };
    case 'scripts':
      return {
        schema: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: P.scriptsMaxItems },
        spelling: 'repeat the parameter for each script',
      };
    case 'choices':
      return { schema: schemaOf(spec) as Record<string, unknown>, spelling: 'repeat the parameter, or separate values by commas' };
    case 'selectors':
    case 'urlPatterns':
      return { schema: schemaOf(spec) as Record<string, unknown>, spelling: 'repeat the parameter for each one' };
    default: {
      // The row's example, where a query string can spell it (a text, a number): what a client can copy.
      const example = typeof spec.example === 'string' || typeof spec.example === 'number' ? { example: spec.example } : {};
      return { schema: { ...(schemaOf(spec) as Record<string, unknown>), ...documentedDefault(spec), ...example } };
    }
  }
}

/**
 * The query parameters of the table's rows settable on `scope`, for a GET that takes capture options in its
 * query (GET /render): one per row, so a new option is documented with no other change. Secret rows
 * (cookies, headers, http_auth…) are left out: a query string never carries them (422), a POST body does.
 */
export function captureOptionQueryParameters(specs: readonly CaptureOptionSpec[]): QueryParameterSpec[] {
  return specs
    .filter((spec) => !spec.secret)
    .map((spec) => {
      const { schema, spelling } = querySchemaOf(spec);
      const description = [spec.description ?? spec.form.label, spelling && `In a query: ${spelling}.`].filter(Boolean).join(' ');
      return { name: spec.wire, required: false, schema, description };
    });
}

/** A body of capture options in the API's names (the fields are declared from the table). */
type WireOptions = Record<string, unknown>;

/**
 * The capture options a website saves as defaults and a Take Screenshot body overrides (API.md, Capture
 * options): one class, so both validate and document them alike. Unknown fields inside are refused like at
 * the top level.
 */
@ApiSchema({ name: 'CaptureOptionsInput', description: 'The website’s capture defaults, all optional; saving replaces the whole object.' })
export class CaptureOptionsDto {
  [field: string]: unknown;
}
declareCaptureOptionFields(CaptureOptionsDto, WEBSITE_OPTIONS);

/** Optional body of Take Screenshot (API.md): the website's options, and what only a capture request sets. */
@ApiSchema({ description: 'All optional: overrides of the website’s settings for this capture.' })
export class TakeScreenshotDto extends CaptureOptionsDto {}
declareCaptureOptionFields(TakeScreenshotDto, REQUEST_ONLY_OPTIONS);

/** A wire value in the domain's shape (a copy: the body is not kept). */
function fromWire(spec: CaptureOptionSpec, value: unknown): unknown {
  switch (spec.type.kind) {
    case 'clip': {
      const c = value as ClipDto;
      return { x: c.x, y: c.y, width: c.width, height: c.height };
    }
    case 'statuses':
      return Array.isArray(value) ? [...(value as number[])] : value;
    case 'scripts':
      return typeof value === 'string' ? [value] : [...(value as string[])];
    case 'headers':
      return { ...(value as Record<string, string>) };
    case 'cookies':
      return (value as CookieDto[]).map((c) => ({
        name: c.name,
        value: c.value,
        ...(c.domain !== undefined ? { domain: c.domain } : {}),
        ...(c.path !== undefined ? { path: c.path } : {}),
        ...(c.secure !== undefined ? { secure: c.secure } : {}),
        ...(c.http_only !== undefined ? { httpOnly: c.http_only } : {}),
        ...(c.same_site !== undefined ? { sameSite: c.same_site } : {}),
      }));
    case 'httpAuth': {
      const a = value as HttpAuthDto;
      return { username: a.username, password: a.password };
    }
    default:
      return value;
  }
}

/** The options a body sets, in the domain's names; a field left out stays out (the next default applies). */
export function toCaptureOptions(dto: WireOptions | undefined): CaptureOptions {
  if (!dto) return {};
  const options: Record<string, unknown> = {};
  const secrets: Record<string, unknown> = {};
  const take = (spec: CaptureOptionSpec) => {
    if (dto[spec.wire] !== undefined) (spec.secret ? secrets : options)[spec.key] = fromWire(spec, dto[spec.wire]);
  };
  WEBSITE_OPTIONS.forEach(take);
  if (hasSecrets(secrets)) options.secrets = secrets;
  REQUEST_ONLY_OPTIONS.forEach(take);
  return options;
}

/** Redacted secrets in the API's names. */
function secretsView(s: CaptureSecrets): WireOptions {
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
    ...(s.proxy !== undefined ? { proxy: s.proxy } : {}),
  };
}

/**
 * What GET shows of saved defaults: the values a capture would use of the options shown with their default
 * (those that apply to its format only: quality for jpeg/webp, pdf_* for pdf, omit_background for png/webp),
 * the others only when saved, so the object can be sent back as it is.
 */
export function captureOptionsView(o: CaptureOptions): CaptureOptionsView {
  const saved = o as Record<string, unknown>;
  const view: WireOptions = {};
  for (const { key, wire, shown, fallback } of viewPlan(resolveOutput({}, o).format)) {
    const value = saved[key];
    if (shown) view[wire] = value ?? fallback;
    else if (value !== undefined) view[wire] = value;
  }
  return o.secrets ? { ...view, ...secretsView(redactSecrets(o.secrets)) } : view;
}

/** Per output format, the view's fields in table order: shown with their default, or only when saved. */
const viewPlans = new Map<string, Array<{ key: string; wire: string; shown: boolean; fallback: unknown }>>();

/**
 * The rows of WEBSITE_OPTIONS a view of `format` may show, worked out once per format rather than per website
 * (a list of websites drew each one's view from the whole table: ~20 µs of a 15-row GET /websites).
 */
function viewPlan(format: string): Array<{ key: string; wire: string; shown: boolean; fallback: unknown }> {
  let plan = viewPlans.get(format);
  if (!plan) {
    plan = WEBSITE_OPTIONS.filter((spec) => !spec.secret && (!spec.shownWithDefault || (spec.formats as readonly string[]).includes(format))).map((spec) => ({
      key: spec.key,
      wire: spec.wire,
      shown: Boolean(spec.shownWithDefault),
      fallback: spec.default,
    }));
    viewPlans.set(format, plan);
  }
  return plan;
}

/** The view's OpenAPI property of a row: its values as saved (secrets redacted), when they show. */
function viewSchemaOf(spec: CaptureOptionSpec): ApiPropertyOptions {
  const t = spec.type;
  if (spec.shownWithDefault) {
    const formats = spec.formats.length === OUTPUT_FORMATS.length ? {} : { description: `${spec.formats.join(' and ')} only` };
    return { ...schemaOf(spec), ...formats };
  }
  const whenSaved = { description: 'When saved' };
  switch (t.kind) {
    case 'clip':
      return {
        type: 'object',
        properties: { x: { type: 'integer' }, y: { type: 'integer' }, width: { type: 'integer' }, height: { type: 'integer' } },
        required: ['x', 'y', 'width', 'height'],
        ...whenSaved,
      };
    case 'statuses':
      return {
        oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'integer', minimum: FAIL_ON_STATUS_RANGE.min, maximum: FAIL_ON_STATUS_RANGE.max } }],
        ...whenSaved,
      };
    case 'choices':
    case 'selectors':
    case 'urlPatterns':
    case 'scripts':
      return { type: 'array', items: { type: 'string' }, ...whenSaved };
    case 'headers':
      return { type: 'object', additionalProperties: { type: 'string', enum: [REDACTED] }, description: 'When saved: names, values never shown' };
    case 'cookies':
      return {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            value: { type: 'string', enum: [REDACTED] },
            domain: { type: 'string' },
            path: { type: 'string' },
            secure: { type: 'boolean' },
            http_only: { type: 'boolean' },
            same_site: { type: 'string', enum: ['Strict', 'Lax', 'None'] },
          },
          required: ['name', 'value'],
        },
        description: 'When saved: values never shown',
      };
    case 'httpAuth':
      return {
        type: 'object',
        properties: { username: { type: 'string', enum: [REDACTED] }, password: { type: 'string', enum: [REDACTED] } },
        required: ['username', 'password'],
        description: 'When saved: never shown',
      };
    case 'proxyUrl':
      return { type: 'string', example: 'http://********@proxy.example.com:8080', description: 'When saved: credentials masked' };
    case 'boolean':
      return { type: 'boolean', ...whenSaved };
    case 'integer':
      return { type: 'integer', ...whenSaved };
    case 'number':
      return { type: 'number', ...whenSaved };
    default:
      return { type: 'string', ...whenSaved };
  }
}

/** A website's saved options as GET shows them (the fields are declared from the table). */
@ApiSchema({
  name: 'CaptureOptions',
  description:
    'The website’s capture defaults as a capture would use them (only the fields that apply to its format); a Take Screenshot body overrides them field by field.',
})
export class CaptureOptionsView {
  [field: string]: unknown;
}
for (const spec of WEBSITE_OPTIONS) {
  const schema = viewSchemaOf(spec);
  // Always there: the options shown with their default whatever the format.
  const always = spec.shownWithDefault === true && spec.formats.length === OUTPUT_FORMATS.length;
  const designType = designTypeOf(spec);
  Reflect.defineMetadata('design:type', designType === ClipDto || designType === HttpAuthDto ? Object : designType, CaptureOptionsView.prototype, spec.wire);
  (always
    ? ApiProperty({ ...schema, ...documentedDefault(spec), ...(spec.description ? { description: spec.description } : {}) })
    : ApiPropertyOptional(schema))(CaptureOptionsView.prototype, spec.wire);
}
