import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min, registerDecorator, ValidateNested } from 'class-validator';
import { DEFAULT_WAIT_UNTIL, WAIT_UNTIL_VALUES, WaitUntil } from '../../../shared/domain/wait-until';
import { AlsoChecks, BodyRequired, FieldCheckContext, OptionalField } from '../../../shared/http/validation';
import { WEBSITE_RULES, WEBSITE_STATUSES, WebsiteCaptureOptions, WebsiteProps, WebsiteStatus } from '../domain/website';
import { WAIT_UNTIL_DESCRIPTION, WEBSITE_FIELDS as F, WebsiteView } from './openapi';

const R = WEBSITE_RULES;

// One definition per field rule, shared by create (required fields) and update (all optional).
const Name = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(R.nameMax));
const Url = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(R.urlMax));
const ViewportWidth = () => applyDecorators(OptionalField(), IsInt(), Min(R.viewportWidth.min), Max(R.viewportWidth.max));
const ViewportHeight = () => applyDecorators(OptionalField(), IsInt(), Min(R.viewportHeight.min), Max(R.viewportHeight.max));
const FullPage = () => applyDecorators(OptionalField(), IsBoolean());
const Status = () => applyDecorators(OptionalField(), IsIn(WEBSITE_STATUSES));

/** The website's capture defaults; unknown fields inside are refused like at the top level. */
@ApiSchema({ name: 'CaptureOptionsInput', description: 'The website’s capture defaults, all optional; saving replaces the whole object.' })
export class CaptureOptionsDto {
  @ApiPropertyOptional({ enum: WAIT_UNTIL_VALUES, default: DEFAULT_WAIT_UNTIL, description: WAIT_UNTIL_DESCRIPTION })
  @OptionalField()
  @IsIn(WAIT_UNTIL_VALUES)
  wait_until?: WaitUntil;
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

export function toWebsiteCaptureOptions(dto: CaptureOptionsDto): WebsiteCaptureOptions {
  return dto.wait_until === undefined ? {} : { waitUntil: dto.wait_until };
}

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
    capture_options: { wait_until: w.captureOptions.waitUntil ?? DEFAULT_WAIT_UNTIL },
    ...(withLastScreenshot ? { last_screenshot_at: w.lastScreenshotAt?.toISOString() ?? null } : {}),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}
