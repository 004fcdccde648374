import { applyDecorators } from '@nestjs/common';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';
import { OptionalField } from '../../../shared/http/validation';
import { WEBSITE_RULES, WEBSITE_STATUSES, WebsiteProps, WebsiteStatus } from '../domain/website';

const R = WEBSITE_RULES;

// One definition per field rule, shared by create (required fields) and update (all optional).
const Name = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(R.nameMax));
const Url = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(R.urlMax));
const ViewportWidth = () => applyDecorators(OptionalField(), IsInt(), Min(R.viewportWidth.min), Max(R.viewportWidth.max));
const ViewportHeight = () => applyDecorators(OptionalField(), IsInt(), Min(R.viewportHeight.min), Max(R.viewportHeight.max));
const FullPage = () => applyDecorators(OptionalField(), IsBoolean());
const Status = () => applyDecorators(OptionalField(), IsIn(WEBSITE_STATUSES));

export class CreateWebsiteDto {
  @Name() name!: string;
  @Url() url!: string;
  @ViewportWidth() viewport_width?: number;
  @ViewportHeight() viewport_height?: number;
  @FullPage() full_page?: boolean;
  @Status() status?: WebsiteStatus;
}

/** PUT is partial. Read-only fields a client echoes back from GET are accepted and ignored. */
export class UpdateWebsiteDto {
  @OptionalField() @Name() name?: string;
  @OptionalField() @Url() url?: string;
  @ViewportWidth() viewport_width?: number;
  @ViewportHeight() viewport_height?: number;
  @FullPage() full_page?: boolean;
  @Status() status?: WebsiteStatus;

  @OptionalField() @IsInt() id?: number;
  @OptionalField() last_screenshot_at?: unknown;
  @OptionalField() created_at?: unknown;
  @OptionalField() updated_at?: unknown;
}

export function websiteView(w: WebsiteProps, withLastScreenshot = true) {
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    viewport_width: w.viewportWidth,
    viewport_height: w.viewportHeight,
    full_page: w.fullPage,
    status: w.status,
    ...(withLastScreenshot ? { last_screenshot_at: w.lastScreenshotAt?.toISOString() ?? null } : {}),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}
