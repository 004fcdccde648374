import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';
import { OptionalField } from '../../../shared/http/validation';
import { WEBSITE_RULES, WEBSITE_STATUSES, WebsiteProps, WebsiteStatus } from '../domain/website';

const R = WEBSITE_RULES;

export class CreateWebsiteDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(R.nameMax)
  name!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(R.urlMax)
  url!: string;

  @OptionalField()
  @IsInt()
  @Min(R.viewportWidth.min)
  @Max(R.viewportWidth.max)
  viewport_width?: number;

  @OptionalField()
  @IsInt()
  @Min(R.viewportHeight.min)
  @Max(R.viewportHeight.max)
  viewport_height?: number;

  @OptionalField()
  @IsBoolean()
  full_page?: boolean;

  @OptionalField()
  @IsIn(WEBSITE_STATUSES)
  status?: WebsiteStatus;
}

/** PUT is partial. Read-only fields a client echoes back from GET are accepted and ignored. */
export class UpdateWebsiteDto {
  @OptionalField()
  @IsString()
  @IsNotEmpty()
  @MaxLength(R.nameMax)
  name?: string;

  @OptionalField()
  @IsString()
  @IsNotEmpty()
  @MaxLength(R.urlMax)
  url?: string;

  @OptionalField()
  @IsInt()
  @Min(R.viewportWidth.min)
  @Max(R.viewportWidth.max)
  viewport_width?: number;

  @OptionalField()
  @IsInt()
  @Min(R.viewportHeight.min)
  @Max(R.viewportHeight.max)
  viewport_height?: number;

  @OptionalField()
  @IsBoolean()
  full_page?: boolean;

  @OptionalField()
  @IsIn(WEBSITE_STATUSES)
  status?: WebsiteStatus;

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
