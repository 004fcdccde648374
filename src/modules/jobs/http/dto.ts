import { failureWords } from '../../../shared/domain/failure-words';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { MAX_ID, QueryInt } from '../../../shared/http/validation';
import { PageQuery } from '../../../shared/http/pagination';
import { MAX_WAIT_SECONDS } from '../application/job-wait';
import { JOB_STATUSES, JobProps, JobStatus } from '../domain/job';
import { JobView } from './openapi';

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

/** A failure as the API shows it: the words, and the raw cause's code beside them (shared/domain/failure-words.ts). */
export function errorFields(raw: string | null): { error: string | null; error_code: string | null } {
  if (raw === null) return { error: null, error_code: null };
  const words = failureWords(raw);
  return { error: words.text, error_code: words.code };
}

export function jobView(j: JobProps): JobView {
  return {
    id: j.id,
    type: j.type,
    status: j.status,
    source: j.source,
    schedule_id: j.scheduleId,
    website_id: j.websiteId,
    // The spec's name for what the job produced (a screenshot for the kinds that produce one; null otherwise).
    screenshot_id: j.resultId,
    ...errorFields(j.error),
    attempts: j.attempts,
    created_at: j.createdAt.toISOString(),
    started_at: j.startedAt?.toISOString() ?? null,
    finished_at: j.finishedAt?.toISOString() ?? null,
  };
}
