import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ScreenshotsModule } from '../screenshots/screenshots.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { WebsitesModule } from '../websites/websites.module';
import { ChannelNotifier } from './application/channel-notifier';
import { ChannelsService } from './application/channels.service';
import { EventFactsReader } from './application/event-facts';
import { ChangedTextLines, ChannelRepository, Mailer } from './application/ports';
import { ChannelsController } from './http/channels.controller';
import { NotificationChannelRow } from './infrastructure/channel.row';
import { ScreenshotChangedTextLines } from './infrastructure/screenshot-changed-text-lines';
import { SmtpMailer } from './infrastructure/smtp-mailer';
import { TypeOrmChannelRepository } from './infrastructure/typeorm-channel.repository';

/** Notification channels: e-mail (SMTP), Slack and Discord subscribers of the webhook events, on the webhooks' delivery machinery. */
@Module({
  imports: [TypeOrmModule.forFeature([NotificationChannelRow]), WebhooksModule, WebsitesModule, ScreenshotsModule],
  controllers: [ChannelsController],
  providers: [
    { provide: ChannelRepository, useClass: TypeOrmChannelRepository },
    { provide: Mailer, useClass: SmtpMailer },
    { provide: ChangedTextLines, useClass: ScreenshotChangedTextLines },
    EventFactsReader,
    ChannelNotifier,
    ChannelsService,
  ],
  exports: [ChannelsService],
})
export class NotificationsModule {}
