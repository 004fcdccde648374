import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../jobs/jobs.module';
import { RateLimitingModule } from '../rate-limiting/rate-limiting.module';
import { ScenariosModule } from '../scenarios/scenarios.module';
import { ScreenshotsModule } from '../screenshots/screenshots.module';
import { EventPayloads, WebhookRepository, WebhookSender } from './application/ports';
import { WebhookDispatcher } from './application/webhook-dispatcher';
import { WebhooksService } from './application/webhooks.service';
import { ApiEventPayloads } from './http/event-payloads';
import { WebhooksController } from './http/webhooks.controller';
import { HttpWebhookSender } from './infrastructure/http-webhook-sender';
import { TypeOrmWebhookRepository } from './infrastructure/typeorm-webhook.repository';
import { WebhookDeliveryRow, WebhookRow } from './infrastructure/webhook.rows';

/** Webhooks: endpoints, durable deliveries and their dispatcher (in worker processes). */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookRow, WebhookDeliveryRow]), RateLimitingModule, JobsModule, ScreenshotsModule, ScenariosModule],
  controllers: [WebhooksController],
  providers: [
    { provide: WebhookRepository, useClass: TypeOrmWebhookRepository },
    { provide: WebhookSender, useClass: HttpWebhookSender },
    { provide: EventPayloads, useClass: ApiEventPayloads },
    WebhookDispatcher,
    WebhooksService,
  ],
  // WebhookSender: notification channels post to Slack and Discord through the same guarded sender.
  exports: [WebhookDispatcher, WebhookSender],
})
export class WebhooksModule {}
