import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { SchedulesModule } from '../schedules/schedules.module';
import { WebsitesModule } from '../websites/websites.module';
import { MonitorsService } from './application/monitors.service';
import { CreateWebsiteController } from './http/create-website.controller';

/** Monitors (issue 46): POST /websites, which with `monitor` makes a website, its schedule, its channel links and its first capture in one call. */
@Module({
  imports: [WebsitesModule, SchedulesModule, NotificationsModule],
  controllers: [CreateWebsiteController],
  providers: [MonitorsService],
  exports: [MonitorsService],
})
export class MonitorsModule {}
