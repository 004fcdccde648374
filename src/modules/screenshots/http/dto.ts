import { changeView } from '../domain/change';
import { captureReportView } from '../domain/capture-report';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { IsCssSelector, IsId, MAX_ID, OptionalField, QueryInt } from '../../../shared/http/validation';
import { PageQuery } from '../../../shared/http/pagination';
import { WEBSITE_RULES } from '../../websites/domain/website';
import { CaptureOptionsDto, toCaptureDefaults } from '../../websites/http/website.dto';
import { CaptureOptions } from '../domain/capture-options';
import { FORMAT_FILES } from '../../../shared/domain/output-format';
import { BULK_DOWNLOAD_MAX_IDS, ScreenshotProps } from '../domain/screenshot';
import { ScreenshotView } from './openapi';

const SELECTOR = {
  type: 'string',
  format: 'css-selector',
  minLength: 1,
  maxLength: 1000,
  description: 'A standard CSS selector (one that does not parse is 422)',
  example: '#cookie-banner',
} as const;

/** Optional body of Take Screenshot (API.md): overrides of the website's defaults for this capture. */
@ApiSchema({ description: 'All optional: overrides of the website’s settings for this capture.' })
export class TakeScreenshotDto extends CaptureOptionsDto {
  @ApiPropertyOptional({ type: 'boolean', description: 'Default: the website’s full_page' })
  @OptionalField()
  @IsBoolean()
  full_page?: boolean;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: WEBSITE_RULES.viewportWidth.min,
    maximum: WEBSITE_RULES.viewportWidth.max,
    description: 'Default: the website’s',
  })
  @OptionalField()
  @IsInt()
  @Min(WEBSITE_RULES.viewportWidth.min)
  @Max(WEBSITE_RULES.viewportWidth.max)
  viewport_width?: number;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: WEBSITE_RULES.viewportHeight.min,
    maximum: WEBSITE_RULES.viewportHeight.max,
    description: 'Default: the website’s',
  })
  @OptionalField()
  @IsInt()
  @Min(WEBSITE_RULES.viewportHeight.min)
  @Max(WEBSITE_RULES.viewportHeight.max)
  viewport_height?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 10_000, default: 0, description: 'Milliseconds to wait after the page settled' })
  @OptionalField()
  @IsInt()
  @Min(0)
  @Max(10_000)
  delay_ms?: number;
  @ApiPropertyOptional({ ...SELECTOR, description: 'Wait until this CSS selector matches before capturing (one that does not parse is 422)' })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(1000)
  @IsCssSelector()
  wait_for_selector?: string;
  @ApiPropertyOptional({ type: 'number', minimum: 1, maximum: 3, default: 1 })
  @OptionalField()
  @IsNumber()
  @Min(1)
  @Max(3)
  device_scale_factor?: number;
  @ApiPropertyOptional({ type: 'array', items: SELECTOR, maxItems: 50, description: 'Elements hidden before capturing' })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(1000, { each: true })
  @IsCssSelector({ each: true })
  hide_selectors?: string[];
  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'Emulate prefers-color-scheme: dark' })
  @OptionalField()
  @IsBoolean()
  dark_mode?: boolean;
}

export function toCaptureOptions(dto: TakeScreenshotDto | undefined): CaptureOptions {
  if (!dto) return {};
  const o: CaptureOptions = toCaptureDefaults(dto);
  if (dto.full_page !== undefined) o.fullPage = dto.full_page;
  if (dto.viewport_width !== undefined) o.viewportWidth = dto.viewport_width;
  if (dto.viewport_height !== undefined) o.viewportHeight = dto.viewport_height;
  if (dto.delay_ms !== undefined) o.delayMs = dto.delay_ms;
  if (dto.wait_for_selector !== undefined) o.waitForSelector = dto.wait_for_selector;
  if (dto.device_scale_factor !== undefined) o.deviceScaleFactor = dto.device_scale_factor;
  if (dto.hide_selectors !== undefined) o.hideSelectors = dto.hide_selectors;
  if (dto.dark_mode !== undefined) o.darkMode = dto.dark_mode;
  return o;
}

export class BulkDownloadDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'integer', minimum: 1, maximum: MAX_ID },
    minItems: 1,
    maxItems: BULK_DOWNLOAD_MAX_IDS,
    example: [1, 2, 3],
    description: 'Ids of the caller’s screenshots (any not the caller’s: 404 naming them in `missing_ids`)',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BULK_DOWNLOAD_MAX_IDS)
  @IsId({ each: true })
  screenshot_ids!: number[];
}

export class ScreenshotListQuery extends PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_ID, description: 'Only this website’s screenshots' })
  @QueryInt(1, MAX_ID)
  website_id?: number;
  @ApiPropertyOptional({ enum: ['success'] })
  @IsOptional()
  @IsIn(['success'])
  status?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_ID, description: 'Only screenshots taken by this scenario’s runs' })
  @QueryInt(1, MAX_ID)
  scenario_id?: number;
}

export function screenshotView(s: ScreenshotProps): ScreenshotView {
  return {
    id: s.id,
    website_id: s.websiteId,
    job_id: s.jobId,
    scenario_id: s.scenarioId,
    execution_id: s.executionId,
    file_path: s.filePath,
    format: s.format,
    mime_type: FORMAT_FILES[s.format].mimeType,
    file_size: s.fileSize,
    width: s.width,
    height: s.height,
    status: s.status,
    taken_at: s.takenAt.toISOString(),
    change: changeView(s.change),
    capture: captureReportView(s.capture),
  };
}
