import { BatchesModule } from '../batches/batches.module';
import { BatchesPageController } from './http/batches-page.controller';
import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { MonitorsModule } from '../monitors/monitors.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { JobsModule } from '../jobs/jobs.module';
import { RateLimitingModule } from '../rate-limiting/rate-limiting.module';
import { RenderKeysModule } from '../render-keys/render-keys.module';
import { RendersModule } from '../renders/renders.module';
import { ScenariosModule } from '../scenarios/scenarios.module';
import { SchedulesModule } from '../schedules/schedules.module';
import { ScreenshotsModule } from '../screenshots/screenshots.module';
import { WebsitesModule } from '../websites/websites.module';
import { AlertLinksController } from './http/alert-links.controller';
import { ApiKeysController } from './http/api-keys.controller';
import { AssetsController, DashboardNotFoundController } from './http/assets.controller';
import { AutomationController } from './http/automation.controller';
import { ChangeHistoryController } from './http/change-history.controller';
import { JobsPageController } from './http/jobs-page.controller';
import { MonitorPageController } from './http/monitor-page.controller';
import { ScenarioEditorController } from './http/scenario-editor.controller';
import { ScheduleEditorController } from './http/schedule-editor.controller';
import { NotificationsPageController } from './http/notifications-page.controller';
import { OverviewController } from './http/overview.controller';
import { PlaygroundController } from './http/playground.controller';
import { PlaygroundCaptures } from './http/playground-captures';
import { RenderKeysPageController } from './http/render-keys-page.controller';
import { SessionsPageController } from './http/sessions-page.controller';
import { ScreenshotsPageController } from './http/screenshots-page.controller';
import { SignInController } from './http/sign-in.controller';
import { StaticAssets } from './http/static-assets';
import { WebsiteChoicesController } from './http/website-choices.controller';
import { WebsiteNames } from './http/website-names';
import { SessionChoices } from './http/session-choices';
import { WebsitesPageController } from './http/websites-page.controller';
import { DashboardQueries } from './application/dashboard-queries';
import { TypeOrmDashboardQueries } from './infrastructure/typeorm-dashboard-queries';

/**
 * The account dashboard: server-rendered pages over the same application services the API uses, signed
 * in with email and password instead of a bearer token. It owns no rules of its own beyond presentation.
 */
@Module({
  imports: [
    AccountsModule,
    JobsModule,
    RateLimitingModule,
    WebsitesModule,
    ScreenshotsModule,
    ScenariosModule,
    SchedulesModule,
    NotificationsModule,
    MonitorsModule,
    RenderKeysModule,
    RendersModule,
    BatchesModule,
  ],
  controllers: [
    SignInController,
    AssetsController,
    OverviewController,
    ApiKeysController,
    RenderKeysPageController,
    WebsitesPageController,
    PlaygroundController,
    ScreenshotsPageController,
    AutomationController,
    ScenarioEditorController,
    ScheduleEditorController,
    JobsPageController,
    ChangeHistoryController,
    NotificationsPageController,
    WebsiteChoicesController,
    AlertLinksController,
    BatchesPageController,
    SessionsPageController,
    MonitorPageController,
    DashboardNotFoundController,
  ],
  providers: [WebsiteNames, SessionChoices, PlaygroundCaptures, StaticAssets, { provide: DashboardQueries, useClass: TypeOrmDashboardQueries }],
})
export class DashboardModule {}
