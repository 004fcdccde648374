import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsString, MaxLength, ValidateIf } from 'class-validator';
import { BodyRequired, OptionalField } from '../../../shared/http/validation';
import { DeliveryProps, WEBHOOK_EVENTS, WEBHOOK_LIMITS, WebhookEvent, WebhookProps } from '../domain/webhook';
import { DeliveryView } from '../../../shared/http/openapi/deliveries';
import { WEBHOOK_FIELDS as F, WebhookView } from './openapi';

/** One or more distinct known event names. */
const Events = () => applyDecorators(IsArray(), ArrayMinSize(1), ArrayMaxSize(WEBHOOK_EVENTS.length), ArrayUnique(), IsIn(WEBHOOK_EVENTS, { each: true }));
/** A short text, or null to clear it. */
const Description = () =>
  applyDecorators(
    ValidateIf((_, v) => v !== null),
    IsString(),
    MaxLength(WEBHOOK_LIMITS.descriptionMax),
  );

export class CreateWebhookDto {
  @ApiProperty(F.url) @IsString() @MaxLength(WEBHOOK_LIMITS.urlMax) url!: string;
  @ApiProperty(F.events) @Events() events!: WebhookEvent[];
  @ApiPropertyOptional(F.description) @OptionalField() @Description() description?: string | null;
}

@ApiSchema({ description: 'Any subset of the fields. The secret never changes (delete and create to rotate it).' })
@BodyRequired()
export class UpdateWebhookDto {
  @ApiPropertyOptional(F.url) @OptionalField() @IsString() @MaxLength(WEBHOOK_LIMITS.urlMax) url?: string;
  @ApiPropertyOptional(F.events) @OptionalField() @Events() events?: WebhookEvent[];
  @ApiPropertyOptional(F.description) @OptionalField() @Description() description?: string | null;
  @ApiPropertyOptional(F.enabled) @OptionalField() @IsBoolean() enabled?: boolean;
}

/** What GET shows: never the secret. */
export function webhookView(w: WebhookProps): WebhookView {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    enabled: w.enabled,
    description: w.description,
    disabled_reason: w.disabledReason,
    disabled_at: w.disabledAt?.toISOString() ?? null,
    failing_since: w.failingSince?.toISOString() ?? null,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

export function deliveryView(d: DeliveryProps): DeliveryView {
  return {
    id: d.id,
    type: d.eventType,
    status: d.status,
    attempt: d.attempts,
    status_code: d.lastStatusCode,
    error: d.lastError,
    duration_ms: d.lastDurationMs,
    next_retry_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
    source_id: d.sourceId,
    last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
  };
}
