import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { JOB_KIND_NAMES } from '../application/job-kinds';
import { JOB_SOURCES, JOB_STATUSES, JobSource, JobStatus, JobType } from '../domain/job';

@ApiSchema({ name: 'Job', description: 'A capture job or a scenario run: queued → running → succeeded | failed' })
export class JobView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  // The declared kinds (a live list, filled as their runners are defined: the document is built after that).
  @ApiProperty({ type: 'string', enum: JOB_KIND_NAMES }) type!: JobType;
  @ApiProperty({ enum: JOB_STATUSES }) status!: JobStatus;
  @ApiProperty({
    enum: JOB_SOURCES,
    description: '`api`: a client of the API; `schedule`: a schedule’s occurrence; `dashboard`: the dashboard (Take screenshot, playground)',
  })
  source!: JobSource;
  @ApiProperty({ type: 'integer', nullable: true }) schedule_id!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null once the website was deleted' }) website_id!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The screenshot it produced, once succeeded' }) screenshot_id!: number | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why it failed, in words with a next step (docs/failure-words.md); the raw cause is `error_code`',
    example: "The site's address could not be found (DNS). Check the spelling of the domain.",
  })
  error!: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'The failure’s stable code: Chromium’s (`net::ERR_NAME_NOT_RESOLVED`) or the service’s (`capture_timeout`, `url_blocked`, `http_status`, `selector_timeout`, `browser_crashed`, `session_expired`, `proxy_failed`, …); null when not failed, or for a cause the table does not know (then `error` is its raw text)',
    example: 'net::ERR_NAME_NOT_RESOLVED',
  })
  error_code!: string | null;
  @ApiProperty({ type: 'integer', description: 'Runs so far; infrastructure failures are retried, 3 attempts in all' }) attempts!: number;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) started_at!: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) finished_at!: string | null;
}
