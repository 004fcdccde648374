import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { MAX_ID } from '../../../shared/http/validation';
import { DISABLED_FIELDS } from '../../../shared/http/openapi/deliveries';
import { CHANNEL_EVENTS, CHANNEL_LIMITS, CHANNEL_TYPES } from '../domain/channel';

/** The channel fields as OpenAPI describes them, shared by the request DTOs and the response schema. */
export const CHANNEL_FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: CHANNEL_LIMITS.nameMax, example: 'Ops on Slack' },
  type: {
    type: 'string',
    enum: [...CHANNEL_TYPES] as string[],
    example: 'slack',
    description: 'Where messages go: an e-mail address, a Slack or Discord incoming webhook, a Microsoft Teams workflow webhook, or an ntfy topic',
  },
  target: {
    type: 'string',
    minLength: 1,
    maxLength: CHANNEL_LIMITS.targetMax,
    example: 'https://hooks.slack.com/services/T000/B000/XXXXXXXX',
    description:
      '`email`: an address (the server needs SMTP_URL; sender MAIL_FROM). `slack`: an https://hooks.slack.com/services/… incoming-webhook URL; `discord`: ' +
      'an https://discord.com/api/webhooks/… URL (that host exactly, port 443, no `..` or encoded dots and slashes in the path; another origin only if the operator put it in URL_ALLOWLIST). ' +
      '`teams`: a Workflows webhook URL on a subdomain of logic.azure.com (`/workflows/…`), powerplatform.com (`/powerautomate/…`) or webhook.office.com (`/webhookb2/…`), https, port 443; it gets an Adaptive Card. ' +
      '`ntfy`: a topic URL, `https://ntfy.sh/<topic>` or your own server’s (`http(s)://host[/path]/<topic>`, topic of letters, digits, `-`, `_`; `?auth=` for a protected topic); it gets the text with Title, Click and Tags headers. ' +
      'Webhook URLs pass the URL policy as webhooks do, are encrypted at rest and shown masked (`https://hooks.slack.com/********`)',
  },
  events: {
    type: 'array',
    items: { type: 'string', enum: [...CHANNEL_EVENTS] as string[] },
    minItems: 1,
    maxItems: CHANNEL_EVENTS.length,
    uniqueItems: true,
    example: ['screenshot.changed', 'screenshot.failed'] as string[],
    description: 'The webhook events this channel is told about',
  },
  website_ids: {
    type: 'array',
    items: { type: 'integer', minimum: 1, maximum: MAX_ID },
    nullable: true,
    maxItems: CHANNEL_LIMITS.websiteIdsMax,
    example: [12, 14] as number[],
    description: 'Only these websites’ events (each must be one of your websites, else 422); null or [] = every website',
  },
  enabled: {
    type: 'boolean',
    description: 'false: nothing is sent. Set by the service after 3 days of failed deliveries (as for webhooks); PUT true to resume',
  },
} as const;

@ApiSchema({ name: 'NotificationLastDelivery', description: 'The newest message queued for this channel and how it went' })
export class LastDeliveryView {
  @ApiProperty({ type: 'string', example: 'screenshot.changed' }) type!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status!: string;
  @ApiProperty({ type: 'string', nullable: true, example: null, description: 'Why the last attempt failed' }) error!: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) last_attempt_at!: string | null;
}

@ApiSchema({ name: 'NotificationChannel' })
export class ChannelView {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty(CHANNEL_FIELDS.name) name!: string;
  @ApiProperty(CHANNEL_FIELDS.type) type!: string;
  @ApiProperty({ ...CHANNEL_FIELDS.target, example: 'https://hooks.slack.com/********' }) target!: string;
  @ApiProperty(CHANNEL_FIELDS.events) events!: string[];
  @ApiProperty(CHANNEL_FIELDS.website_ids) website_ids!: number[] | null;
  @ApiProperty(CHANNEL_FIELDS.enabled) enabled!: boolean;
  @ApiProperty(DISABLED_FIELDS.disabled_reason) disabled_reason!: string | null;
  @ApiProperty(DISABLED_FIELDS.disabled_at) disabled_at!: string | null;
  @ApiProperty(DISABLED_FIELDS.failing_since) failing_since!: string | null;
  @ApiProperty({ type: LastDeliveryView, nullable: true }) last_delivery!: LastDeliveryView | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty(TIMESTAMP) updated_at!: string;
}

@ApiSchema({ name: 'NotificationTest', description: 'The test message, queued: it is sent (and retried) like any other' })
export class TestMessageView {
  @ApiProperty({ type: 'string', example: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W' }) id!: string;
  @ApiProperty({ type: 'string', example: 'notification.test' }) type!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status!: string;
  @ApiProperty(TIMESTAMP) created_at!: string;
}
