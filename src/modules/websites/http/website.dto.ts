import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min, registerDecorator, ValidateNested } from 'class-validator';
import { DEFAULT_WAIT_UNTIL, WAIT_UNTIL_VALUES, WaitUntil } from '../../../shared/domain/wait-until';
import { AlsoChecks, BodyRequired, FieldCheckContext, OptionalField } from '../../../shared/http/validation';
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
  };
}

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

/** One message whichever way it is not an object (IsObject beside ValidateNested would give two). */
const CaptureOptions = () =>
  applyDecorators(
    ApiPropertyOptional({ type: CaptureOptionsDto }),
    OptionalField(),
    IsNotArray(),
    ValidateNested(OBJECT_MESSAGE),
    Type(() => CaptureOptionsDto),
  );

export const toWebsiteCaptureOptions = toCaptureDefaults;

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
    ...(withLastScreenshot ? { last_screenshot_at: w.lastScreenshotAt?.toISOString() ?? null } : {}),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}
