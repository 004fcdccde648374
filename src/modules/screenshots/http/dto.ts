import { changeView } from '../domain/change';
import { captureReportView } from '../domain/capture-report';
import { MAX_WAIT_SECONDS } from '../../jobs/application/job-wait';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional } from 'class-validator';
import { IsId, MAX_ID, QueryInt } from '../../../shared/http/validation';
import { PageQuery } from '../../../shared/http/pagination';
import { JOB_STATUSES, JobProps, JobStatus } from '../../jobs/domain/job';
import { FORMAT_FILES } from '../../../shared/domain/output-format';
import { BULK_DOWNLOAD_MAX_IDS, ScreenshotProps } from '../domain/screenshot';
import { JobView, ScreenshotView } from './openapi';

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

export class WaitQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_WAIT_SECONDS,
    description: 'Long-poll: answer as soon as the job has ended, or after this many seconds with its current state (default 0: at once).',
  })
  @QueryInt(0, MAX_WAIT_SECONDS)
  wait?: number;
}

export class JobListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: JOB_STATUSES })
  @IsOptional()
  @IsIn(JOB_STATUSES)
  status?: JobStatus;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_ID })
  @QueryInt(1, MAX_ID)
  website_id?: number;
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

export function jobView(j: JobProps): JobView {
  return {
    id: j.id,
    type: j.type,
    status: j.status,
    source: j.source,
    schedule_id: j.scheduleId,
    website_id: j.websiteId,
    screenshot_id: j.screenshotId,
    error: j.error,
    attempts: j.attempts,
    created_at: j.createdAt.toISOString(),
    started_at: j.startedAt?.toISOString() ?? null,
    finished_at: j.finishedAt?.toISOString() ?? null,
  };
}
