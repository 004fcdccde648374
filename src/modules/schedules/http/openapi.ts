import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { MAX_ID } from '../../../shared/http/validation';
import { MAX_SCHEDULE_NAME_LENGTH } from '../domain/schedule';
import { Frequency, FREQUENCIES, MAX_TIME_ZONE_LENGTH, TIME_PATTERN, TZ_NAME_PATTERN } from '../domain/schedule-rules';

/** The schedule fields as OpenAPI describes them, shared by the request DTOs and the response schema. */
export const SCHEDULE_FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: MAX_SCHEDULE_NAME_LENGTH, example: 'Every morning' },
  website_id: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_ID,
    description:
      'One of the caller’s websites: each occurrence captures it with its saved options. Required unless `scenario_id` is sent; ' +
      'a schedule that runs a scenario has the scenario’s website here (sending another one is 422)',
  },
  scenario_id: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_ID,
    nullable: true,
    description:
      'One of the caller’s scenarios: each occurrence runs it (an execution, on the scenario’s website) instead of capturing the website. ' +
      'null (default): capture the website; an update with null turns a scenario schedule back into a capture of its website',
  },
  session_id: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_ID,
    nullable: true,
    description:
      'One of the caller’s saved sessions (/sessions): each run starts logged in with it, whatever the scenario’s or the website’s ' +
      'session_id. null (default): the scenario’s session_id (a schedule that runs a scenario), else the website’s capture_options ' +
      'session_id, if any. Another account’s or an unknown id is 422',
  },
  frequency: {
    enum: FREQUENCIES,
    description:
      '`daily` and `weekly` at `time`; `hourly` at the minutes of `time` every hour; `every_5_minutes`, `every_15_minutes`, `every_30_minutes`: ' +
      'aligned to the clock in `timezone`, at the minutes congruent to the minutes of `time` modulo the period ' +
      '(`time` 00:00 → :00, :15, :30, :45 for every_15_minutes; 00:05 → :05, :20, :35, :50). The hour of `time` is ignored for all but daily and weekly',
  },
  time: { type: 'string', pattern: TIME_PATTERN.source, example: '07:30', description: 'HH:MM, 24-hour (00:00..23:59, two digits each), in `timezone`' },
  timezone: {
    type: 'string',
    minLength: 1,
    maxLength: MAX_TIME_ZONE_LENGTH,
    pattern: TZ_NAME_PATTERN.source,
    example: 'Europe/Berlin',
    description:
      'An IANA time zone name, checked against the tz database and spelled as it spells it (`Europe/Berlin`, `America/New_York`, `UTC`); ' +
      'offsets (`+02:00`, `UTC+2`), unknown names and other capitalisations (`utc`) are 422',
  },
  day_of_week: {
    type: 'integer',
    minimum: 0,
    maximum: 6,
    nullable: true,
    description: 'Weekly schedules: 0 = Sunday … 6 = Saturday; default the weekday of creation in `timezone`',
  },
  enabled: { type: 'boolean' },
} as const;

@ApiSchema({ name: 'Schedule' })
export class ScheduleView {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty(SCHEDULE_FIELDS.name) name!: string;
  @ApiProperty(SCHEDULE_FIELDS.website_id) website_id!: number;
  @ApiProperty(SCHEDULE_FIELDS.scenario_id) scenario_id!: number | null;
  @ApiProperty(SCHEDULE_FIELDS.session_id) session_id!: number | null;
  @ApiProperty(SCHEDULE_FIELDS.frequency) frequency!: Frequency;
  @ApiProperty(SCHEDULE_FIELDS.time) time!: string;
  @ApiProperty(SCHEDULE_FIELDS.timezone) timezone!: string;
  @ApiProperty(SCHEDULE_FIELDS.day_of_week) day_of_week!: number | null;
  @ApiProperty(SCHEDULE_FIELDS.enabled) enabled!: boolean;
  @ApiProperty({
    ...TIMESTAMP,
    nullable: true,
    description: 'Next occurrence (UTC); in the past only while a due occurrence waits for the ticker; null while disabled',
  })
  next_run_at!: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) last_run_at!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The job of the last run, an occurrence or a Run now (a capture job, or a scenario execution for a scenario schedule)',
  })
  last_job_id!: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty(TIMESTAMP) updated_at!: string;
}

@ApiSchema({ name: 'ScheduleRunQueued' })
export class ScheduleRunQueuedResponse {
  @ApiProperty({ type: 'boolean', enum: [true] }) success!: true;
  @ApiProperty({ example: 'Screenshot job queued' }) message!: string;
  @ApiProperty({ format: 'uuid', description: 'Follow it with GET /jobs/{id} (a scenario run too)' }) job_id!: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'Schedules that run a scenario: the same id, for GET /executions/{id}' }) execution_id?: string;
}
