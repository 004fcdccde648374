import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsString, ValidateIf } from 'class-validator';
import { AlsoChecks, BodyRequired, IsId, OptionalField, SingleLineName } from '../../../shared/http/validation';
import { Schedule, scheduleFieldErrors } from '../domain/schedule';
import { Frequency } from '../domain/schedule-rules';
import { SCHEDULE_FIELDS as F, ScheduleView } from './openapi';

/**
 * Types only: the schedule's own rules (frequency, HH:MM, IANA zone, day_of_week) live in the domain, which
 * reports every bad field in one 422.
 */
@AlsoChecks((body) => [
  ...scheduleFieldErrors({ name: body.name, frequency: body.frequency, time: body.time, timezone: body.timezone, dayOfWeek: body.day_of_week }),
  ...(body.website_id === undefined && (body.scenario_id === undefined || body.scenario_id === null)
    ? [{ field: 'website_id', message: 'website_id is required (or scenario_id, for a schedule that runs a scenario)' }]
    : []),
])
export class CreateScheduleDto {
  @ApiProperty(F.name) @IsString() @SingleLineName() name!: string;
  @ApiPropertyOptional(F.website_id) @OptionalField() @IsId() website_id?: number;
  @ApiPropertyOptional(F.scenario_id) @OptionalField() @ValidateIf((_, v) => v !== null) @IsId() scenario_id?: number | null;
  @ApiPropertyOptional(F.session_id) @OptionalField() @ValidateIf((_, v) => v !== null) @IsId() session_id?: number | null;
  @ApiProperty(F.frequency) @IsString() frequency!: Frequency;
  @ApiProperty(F.time) @IsString() time!: string;
  @ApiProperty(F.timezone) @IsString() timezone!: string;
  @ApiPropertyOptional(F.day_of_week) @OptionalField() @ValidateIf((_, v) => v !== null) @IsInt() day_of_week?: number | null;
  @ApiPropertyOptional({ ...F.enabled, default: true }) @OptionalField() @IsBoolean() enabled?: boolean;
}

@ApiSchema({
  description:
    'Any subset of the fields. next_run_at is recomputed from now when frequency, time, timezone or day_of_week change or a disabled schedule is enabled; any other update keeps it, so a due occurrence that has not fired yet still fires. Read-only fields echoed back from GET (id, next_run_at, last_run_at, last_job_id, created_at, updated_at) are accepted and ignored.',
})
@BodyRequired()
export class UpdateScheduleDto {
  @ApiPropertyOptional(F.name) @OptionalField() @IsString() @SingleLineName() name?: string;
  @ApiPropertyOptional(F.website_id) @OptionalField() @IsId() website_id?: number;
  @ApiPropertyOptional(F.scenario_id) @OptionalField() @ValidateIf((_, v) => v !== null) @IsId() scenario_id?: number | null;
  @ApiPropertyOptional(F.session_id) @OptionalField() @ValidateIf((_, v) => v !== null) @IsId() session_id?: number | null;
  @ApiPropertyOptional(F.frequency) @OptionalField() @IsString() frequency?: Frequency;
  @ApiPropertyOptional(F.time) @OptionalField() @IsString() time?: string;
  @ApiPropertyOptional(F.timezone) @OptionalField() @IsString() timezone?: string;
  @ApiPropertyOptional(F.day_of_week) @OptionalField() @ValidateIf((_, v) => v !== null) @IsInt() day_of_week?: number | null;
  @ApiPropertyOptional(F.enabled) @OptionalField() @IsBoolean() enabled?: boolean;
  // Read-only fields a client echoes back from GET are accepted and ignored.
  @OptionalField() @IsInt() id?: number;
  @OptionalField() next_run_at?: unknown;
  @OptionalField() last_run_at?: unknown;
  @OptionalField() last_job_id?: unknown;
  @OptionalField() created_at?: unknown;
  @OptionalField() updated_at?: unknown;
}

export function scheduleView(s: Schedule): ScheduleView {
  return {
    id: s.id,
    name: s.name,
    website_id: s.websiteId,
    scenario_id: s.scenarioId,
    session_id: s.sessionId,
    frequency: s.frequency,
    time: s.time,
    timezone: s.timezone,
    day_of_week: s.dayOfWeek,
    enabled: s.enabled,
    next_run_at: s.nextRunAt?.toISOString() ?? null,
    last_run_at: s.lastRunAt?.toISOString() ?? null,
    last_job_id: s.lastJobId,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
