import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RenderKeysModule } from '../render-keys/render-keys.module';
import { ScreenshotsModule } from '../screenshots/screenshots.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { WebsitesModule } from '../websites/websites.module';
import { AlertLinks } from './application/alert-links';
import { ChannelNotifier } from './application/channel-notifier';
import { ChannelsService } from './application/channels.service';
import { EventFactsReader } from './application/event-facts';
import { ChangedTextLines, ChannelRepository, Mailer, MailPictures } from './application/ports';
import { ChannelsController } from './http/channels.controller';
import { NotificationChannelRow } from './infrastructure/channel.row';
import { ScreenshotChangedTextLines } from './infrastructure/screenshot-changed-text-lines';
import { ScreenshotMailPictures } from './infrastructure/screenshot-mail-pictures';
import { SmtpMailer } from './infrastructure/smtp-mailer';
import { TypeOrmChannelRepository } from './infrastructure/typeorm-channel.repository';

/**
 * Notification channels: e-mail (SMTP), Slack, Discord, Teams and ntfy subscribers of the webhook events, on the
 * webhooks' delivery machinery; the signed alert links their messages carry (AlertLinks).
 */
@Module({
  imports: [TypeOrmModule.forFeature([NotificationChannelRow]), WebhooksModule, WebsitesModule, ScreenshotsModule, RenderKeysModule],
  controllers: [ChannelsController],
  providers: [
    { provide: ChannelRepository, useClass: TypeOrmChannelRepository },
    { provide: Mailer, useClass: SmtpMailer },
    { provide: ChangedTextLines, useClass: ScreenshotChangedTextLines },
    { provide: MailPictures, useClass: ScreenshotMailPictures },
    AlertLinks,
    EventFactsReader,
    ChannelNotifier,
    ChannelsService,
  ],
  exports: [ChannelsService, AlertLinks],
})
export class NotificationsModule {}
