import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { DISABLED_FIELDS } from '../../../shared/http/openapi/deliveries';
import { WEBHOOK_EVENTS, WEBHOOK_LIMITS } from '../domain/webhook';

/** The webhook fields as OpenAPI describes them, shared by the request DTOs and the response schema. */
export const WEBHOOK_FIELDS = {
  url: {
    type: 'string',
    format: 'uri',
    pattern: '^[hH][tT][tT][pP][sS]?://',
    maxLength: WEBHOOK_LIMITS.urlMax,
    example: 'https://example.com/hooks/screenshots',
    description:
      'Absolute http/https URL without credentials; its host must resolve to public addresses only (URL policy: loopback, private, link-local ' +
      '(cloud metadata), CGNAT, multicast and unspecified addresses are 422), and every delivery checks it again and connects only to the address checked',
  },
  events: {
    type: 'array',
    items: { type: 'string', enum: [...WEBHOOK_EVENTS] as string[] },
    minItems: 1,
    maxItems: WEBHOOK_EVENTS.length,
    uniqueItems: true,
    example: ['screenshot.succeeded', 'screenshot.failed'] as string[],
    description: 'The events sent to this endpoint',
  },
  description: { type: 'string', maxLength: WEBHOOK_LIMITS.descriptionMax, nullable: true, example: 'Production receiver' },
  enabled: { type: 'boolean', description: 'false: nothing is sent. Set by the service after 3 days of failed deliveries; PUT true to resume' },
} as const;

@ApiSchema({ name: 'Webhook' })
export class WebhookView {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty(WEBHOOK_FIELDS.url) url!: string;
  @ApiProperty(WEBHOOK_FIELDS.events) events!: string[];
  @ApiProperty(WEBHOOK_FIELDS.enabled) enabled!: boolean;
  @ApiProperty(WEBHOOK_FIELDS.description) description!: string | null;
  @ApiProperty(DISABLED_FIELDS.disabled_reason) disabled_reason!: string | null;
  @ApiProperty(DISABLED_FIELDS.disabled_at) disabled_at!: string | null;
  @ApiProperty(DISABLED_FIELDS.failing_since) failing_since!: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty(TIMESTAMP) updated_at!: string;
}

@ApiSchema({ name: 'WebhookWithSecret', description: 'The new webhook, with its signing secret: shown in this answer only' })
export class WebhookWithSecretView extends WebhookView {
  @ApiProperty({ type: 'string', pattern: '^whsec_[A-Za-z0-9+/]{43}=$', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8AWXCoJpiY4=' })
  secret!: string;
}
