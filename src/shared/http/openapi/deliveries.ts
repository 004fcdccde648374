import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { TIMESTAMP } from './schemas';

/**
 * What webhooks and notification channels share in their OpenAPI views (both deliver the same events through the
 * same durable deliveries): an endpoint's disabled state and one delivery. Here, below both contexts' http/, so
 * neither imports the other's (issue 43).
 */
/**
 * How an endpoint the service disabled (every delivery failed for 3 days) shows it: a webhook and a notification
 * channel alike, so a client reads one set of fields.
 */
export const DISABLED_FIELDS = {
  disabled_reason: { type: 'string', nullable: true, example: null, description: 'Why the service disabled it, if it did (null once re-enabled)' },
  disabled_at: { ...TIMESTAMP, nullable: true, example: null, description: 'When the service disabled it (null: enabled, or disabled by hand)' },
  failing_since: { ...TIMESTAMP, nullable: true, description: 'Since when every delivery has failed (null: the last one succeeded)' },
} as const;

@ApiSchema({ name: 'WebhookDelivery' })
export class DeliveryView {
  @ApiProperty({ type: 'string', example: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', description: 'The event id: `webhook-id` on every attempt' }) id!: string;
  @ApiProperty({ type: 'string', example: 'screenshot.succeeded' }) type!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status!: string;
  @ApiProperty({ type: 'integer', example: 1, description: 'Attempts made so far' }) attempt!: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 204, description: 'The endpoint’s answer to the last attempt' }) status_code!: number | null;
  @ApiProperty({ type: 'string', nullable: true, example: null }) error!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 42, description: 'Milliseconds the last attempt took' }) duration_ms!: number | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When the next attempt is due (pending only)' }) next_retry_at!: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'The job or execution the event is about' }) source_id!: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) last_attempt_at!: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
}
