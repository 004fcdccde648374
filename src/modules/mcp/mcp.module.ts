import { Module } from '@nestjs/common';
import { MonitorsModule } from '../monitors/monitors.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { RendersModule } from '../renders/renders.module';
import { ScreenshotsModule } from '../screenshots/screenshots.module';
import { McpController } from './http/mcp.controller';
import { McpTools } from './http/mcp-tools';

/** POST /mcp (issue 47): the Model Context Protocol's tools over the render, monitor and change-history services. */
@Module({
  imports: [RendersModule, MonitorsModule, ScreenshotsModule, NotificationsModule],
  controllers: [McpController],
  providers: [McpTools],
})
export class McpModule {}
