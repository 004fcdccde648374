import { Get, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Clock } from '../../../shared/domain/clock';
import { IdParam } from '../../../shared/http/id-param';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { CaptureJobsService } from '../../screenshots/application/capture-jobs.service';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { isFinished } from '../../jobs/domain/job';
import { WebsitesService } from '../../websites/application/websites.service';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardViewer, Viewer } from './dashboard-request';
import { DASHBOARD_PAGE_SIZE, HtmlPage, lastPage, pageParam, seeOther } from './responses';
import { websitesPage } from './views/pages/websites.page';

@DashboardController('dashboard/websites')
export class WebsitesPageController {
  constructor(
    private readonly websites: WebsitesService,
    private readonly screenshots: ScreenshotsService,
    private readonly captureJobs: CaptureJobsService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @HtmlPage()
  async list(@Viewer() viewer: DashboardViewer, @Query('page') rawPage?: string, @Query('notice') notice?: string) {
    const accountId = viewer.account.id;
    const page = pageParam(rawPage);
    const { items, total } = await this.websites.list(accountId, { page, perPage: DASHBOARD_PAGE_SIZE });
    const first = { page: 1, perPage: 1 };
    const rows = await Promise.all(
      items.map(async (website) => {
        const latest = (await this.screenshots.list(accountId, first, { websiteId: website.id })).items[0] ?? null;
        const lastJob = (await this.captureJobs.list(accountId, first, { websiteId: website.id, type: 'screenshot' })).items[0] ?? null;
        return { website, latest, lastJob, activeJob: lastJob && !isFinished(lastJob.status) ? lastJob : null };
      }),
    );
    return websitesPage(viewer, {
      rows,
      page: { page, lastPage: lastPage(total, DASHBOARD_PAGE_SIZE), total },
      hasAccess: viewer.account.hasApiAccess(this.clock.now()),
      notice,
    }).toString();
  }

  /** "Take screenshot": the same durable job as POST /websites/{id}/screenshot, with the website's defaults. */
  @Post(':id/screenshot')
  async take(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    if (!viewer.account.hasApiAccess(this.clock.now())) throw new PlanNoApiAccessError(viewer.account.plan);
    await this.captureJobs.requestCapture(viewer.account.id, id, {}, null);
    return seeOther(reply, '/dashboard/websites?notice=screenshot-queued');
  }
}
