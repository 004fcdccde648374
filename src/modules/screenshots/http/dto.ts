import { changeView } from '../domain/change';
import { captureReportView } from '../domain/capture-report';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional } from 'class-validator';
import { IsId, MAX_ID, QueryInt } from '../../../shared/http/validation';
import { PageQuery } from '../../../shared/http/pagination';
import { FORMAT_FILES } from '../../../shared/domain/output-format';
import { BULK_DOWNLOAD_MAX_IDS, ScreenshotProps } from '../domain/screenshot';
import { ScreenshotView } from './openapi';

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
