import { Get, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Clock } from '../../../shared/domain/clock';
import { AppConfig } from '../../../config/app-config';
import { AlertLinks } from '../../notifications/application/alert-links';
import { RateLimiter } from '../../rate-limiting/application/rate-limiter';
import { JobsService } from '../../jobs/application/jobs.service';
import { JobKinds } from '../../jobs/application/job-kinds';
import { kindLabels } from './job-kind-labels';
import { DashboardQueries } from '../application/dashboard-queries';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { HtmlPage, seeOther } from './responses';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { loadCaptureResult } from './capture-result';
import { clientGone } from '../../../shared/http/client-gone';
import type { RenderProps } from '../../renders/domain/render';
import { PlaygroundCaptures } from './playground-captures';
import { errorsByField, FormRejected } from './website-form';
import type { CaptureResult, FormState } from './views/pages/website-form.page';
import { CAPTURE_URL_FIELDS } from './views/pages/overview.page';
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
    private readonly screenshots: ScreenshotsService,
    private readonly captures: PlaygroundCaptures,
    private readonly kinds: JobKinds,
    private readonly config: AppConfig,
    private readonly alertLinks: AlertLinks,
  ) {}

  /** `?url=&job=`: the "Capture a URL" box with that capture's live result (where its form leads). */
  @Get()
  @HtmlPage()
  async overview(@Viewer() viewer: DashboardViewer, @Query('url') url?: string, @Query('job') jobId?: string, @Query('render') renderId?: string) {
    const result = jobId ? await loadCaptureResult(this.jobs, this.screenshots, viewer.account.id, jobId) : null;
    const rendered = typeof renderId === 'string' ? await this.captures.keptRender(viewer.account.id, renderId) : null;
    const values = new URLSearchParams(typeof url === 'string' ? { url } : {});
    return this.render(viewer, { values, errors: new Map() }, result, rendered);
  }

  /**
   * "Capture a URL": the playground's Try of a bare URL with the defaults (PlaygroundCaptures), back to the overview
   * with its result; an address the API refuses is the box's error (422).
   */
  @Post('capture')
  @HtmlPage()
  async capture(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    if (!viewer.account.hasApiAccess(this.clock.now())) throw new PlanNoApiAccessError(viewer.account.plan);
    const url = (formFields(request).get('url') ?? '').trim();
    const values = new URLSearchParams({ url });
    try {
      const tried = await this.captures.tryCapture(viewer.account.id, values, clientGone(reply));
      return seeOther(reply, `/dashboard?${new URLSearchParams({ url, [tried.kind]: tried.id }).toString()}#capture-url`);
    } catch (err) {
      if (!(err instanceof FormRejected)) throw err;
      reply.status(422);
      return this.render(viewer, { values, errors: errorsByField(CAPTURE_URL_FIELDS, err.errors, false) }, null, null);
    }
  }

  private async render(viewer: DashboardViewer, capture: FormState, result: CaptureResult | null, rendered: RenderProps | null): Promise<string> {
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
      alertLinksBase: this.config.publicUrl === null ? this.alertLinks.base : null,
      hasAccess: account.hasApiAccess(now),
      usage: await this.limiter.usage(account.id, account.rateLimits()),
      recentJobs: items,
      kinds: kindLabels(this.kinds),
      capture: { state: capture, result, rendered },
      websiteNames: await this.names.of(
        account.id,
        items.flatMap((j) => (j.websiteId ? [j.websiteId] : [])),
      ),
    }).toString();
  }
}
