import { Get } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { RateLimiter } from '../../rate-limiting/application/rate-limiter';
import { JobsService } from '../../jobs/application/jobs.service';
import { DashboardQueries } from '../application/dashboard-queries';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardViewer, Viewer } from './dashboard-request';
import { HtmlPage } from './responses';
import { WebsiteNames } from './website-names';
import { overviewPage } from './views/pages/overview.page';

@DashboardController()
export class OverviewController {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly jobs: JobsService,
    private readonly names: WebsiteNames,
    private readonly clock: Clock,
    private readonly queries: DashboardQueries,
  ) {}

  @Get()
  @HtmlPage()
  async overview(@Viewer() viewer: DashboardViewer) {
    const account = viewer.account;
    const now = this.clock.now();
    const [{ items }, hourly, daily, storedBytes] = await Promise.all([
      this.jobs.list(account.id, { page: 1, perPage: 10 }, {}),
      this.queries.usage(account.id, now, 3600, 24),
      this.queries.usage(account.id, now, 86400, 30),
      this.queries.storedBytes(account.id),
    ]);
    return overviewPage(viewer, {
      hourly,
      daily,
      storedBytes,
      hasAccess: account.hasApiAccess(now),
      usage: await this.limiter.usage(account.id, account.rateLimits()),
      recentJobs: items,
      websiteNames: await this.names.of(
        account.id,
        items.flatMap((j) => (j.websiteId ? [j.websiteId] : [])),
      ),
    }).toString();
  }
}
