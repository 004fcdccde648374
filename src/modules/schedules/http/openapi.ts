import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { MAX_ID } from '../../../shared/http/validation';
import { MAX_SCHEDULE_NAME_LENGTH } from '../domain/schedule';
import { Frequency, FREQUENCIES, MAX_TIME_ZONE_LENGTH, TIME_PATTERN, TZ_NAME_PATTERN } from '../domain/schedule-rules';

/** The schedule fields as OpenAPI describes them, shared by the request DTOs and the response schema. */
export const SCHEDULE_FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: MAX_SCHEDULE_NAME_LENGTH, example: 'Every morning' },
  website_id: { type: 'integer', minimum: 1, maximum: MAX_ID, description: 'One of the caller’s websites' },
  frequency: { enum: FREQUENCIES, description: 'For `hourly`, only the minutes of `time` count' },
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
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The capture job of the last occurrence' }) last_job_id!: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty(TIMESTAMP) updated_at!: string;
}
