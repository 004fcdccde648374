import { IsBoolean, IsInt, IsString, Min, ValidateIf } from 'class-validator';
import { OptionalField } from '../../../shared/http/validation';
import { ScheduleProps } from '../domain/schedule';
import { Frequency } from '../domain/schedule-rules';

/**
 * Types only: the schedule's own rules (frequency, HH:MM, IANA zone, day_of_week) live in the domain, which
 * reports every bad field in one 422.
 */
export class CreateScheduleDto {
  @IsString() name!: string;
  @IsInt() @Min(1) website_id!: number;
  @IsString() frequency!: Frequency;
  @IsString() time!: string;
  @IsString() timezone!: string;
  @OptionalField() @ValidateIf((_, v) => v !== null) @IsInt() day_of_week?: number | null;
  @OptionalField() @IsBoolean() enabled?: boolean;
}

export class UpdateScheduleDto {
  @OptionalField() @IsString() name?: string;
  @OptionalField() @IsInt() @Min(1) website_id?: number;
  @OptionalField() @IsString() frequency?: Frequency;
  @OptionalField() @IsString() time?: string;
  @OptionalField() @IsString() timezone?: string;
  @OptionalField() @ValidateIf((_, v) => v !== null) @IsInt() day_of_week?: number | null;
  @OptionalField() @IsBoolean() enabled?: boolean;
  // Read-only fields a client echoes back from GET are accepted and ignored.
  @OptionalField() @IsInt() id?: number;
  @OptionalField() next_run_at?: unknown;
  @OptionalField() last_run_at?: unknown;
  @OptionalField() last_job_id?: unknown;
  @OptionalField() created_at?: unknown;
  @OptionalField() updated_at?: unknown;
}

export function scheduleView(s: ScheduleProps) {
  return {
    id: s.id,
    name: s.name,
    website_id: s.websiteId,
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
