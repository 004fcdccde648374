import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { LoggerModule } from 'nestjs-pino';
import { CaptureModule } from './adapters/capture/capture.module';
import { QueueModule } from './adapters/queue/queue.module';
import { AppConfig } from './config/app-config';
import { CoreModule } from './core.module';
import { AccountsModule } from './modules/accounts/accounts.module';
import { ApiAccessGuard, AuthGuard } from './modules/accounts/http/auth.guards';
import { DashboardModule } from './modules/dashboard/dashboard.module';
import { HealthModule } from './modules/health/health.module';
import { MetricsModule } from './modules/metrics/metrics.module';
import { MonitorsModule } from './modules/monitors/monitors.module';
import { McpModule } from './modules/mcp/mcp.module';
import { NotificationsModule } from './modules/notifications/notifications.module';
import { RendersModule } from './modules/renders/renders.module';
import { RateLimitGuard } from './modules/rate-limiting/http/rate-limit.guard';
import { RateLimitingModule } from './modules/rate-limiting/rate-limiting.module';
import { RenderKeysModule } from './modules/render-keys/render-keys.module';
import { ProxiesModule } from './modules/proxies/proxies.module';
import { BatchesModule } from './modules/batches/batches.module';
import { SessionsModule } from './modules/sessions/sessions.module';
import { ScenariosModule } from './modules/scenarios/scenarios.module';
import { SchedulesModule } from './modules/schedules/schedules.module';
import { ScreenshotsModule } from './modules/screenshots/screenshots.module';
import { WebsitesModule } from './modules/websites/websites.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { RequestBodyGuard } from './shared/http/body-parsing';
import { ErrorFilter } from './shared/http/error-filter';
import { logDestination, loggerOptions } from './shared/logging/access-log';
import { UnknownRouteController } from './shared/http/unknown-route.controller';

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.register(config),
        // The root logger only: the access log is written from a Fastify hook (shared/logging/access-log.ts).
        LoggerModule.forRoot({ pinoHttp: [loggerOptions(config.logLevel), logDestination()], forRoutes: [] }),
        ScheduleModule.forRoot(),
        QueueModule,
        CaptureModule,
        AccountsModule,
        RateLimitingModule,
        WebsitesModule,
        ScreenshotsModule,
        RendersModule,
        ScenariosModule,
        SchedulesModule,
        WebhooksModule,
        NotificationsModule,
        MonitorsModule,
        McpModule,
        RenderKeysModule,
        ProxiesModule,
        BatchesModule,
        SessionsModule,
        HealthModule,
        MetricsModule,
        DashboardModule,
      ],
      // Last in no particular order: the router prefers every other route to this catch-all.
      controllers: [UnknownRouteController],
      providers: [
        // Order matters: authenticate, then check the plan, then count the request. The guards are also
        // providers of their own so requests the router refused can be put through them (http-app.ts).
        AuthGuard,
        ApiAccessGuard,
        RateLimitGuard,
        { provide: APP_GUARD, useExisting: AuthGuard },
        { provide: APP_GUARD, useExisting: ApiAccessGuard },
        { provide: APP_GUARD, useExisting: RateLimitGuard },
        // Last: the body's verdict (400/413/415/422) comes after who is asking and whether they may.
        { provide: APP_GUARD, useClass: RequestBodyGuard },
        { provide: APP_FILTER, useClass: ErrorFilter },
      ],
    };
  }
}
