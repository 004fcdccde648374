import { Get, Param, Query } from '@nestjs/common';
import { UuidParam } from '../../../shared/http/uuid-param';
import { JobKinds } from '../../jobs/application/job-kinds';
import { JOB_STATUSES, JobStatus, JobType } from '../../jobs/domain/job';
import { kindLabels } from './job-kind-labels';
import { ScenariosService } from '../../scenarios/application/scenarios.service';
import { SchedulesService } from '../../schedules/application/schedules.service';
import { WebsitesService } from '../../websites/application/websites.service';
import { JobsService } from '../../jobs/application/jobs.service';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardViewer, Viewer } from './dashboard-request';
import { DASHBOARD_PAGE_SIZE, HtmlPage, idQuery, lastPage, pageParam, pickerSearch } from './responses';
import { DashboardQueries } from '../application/dashboard-queries';
import { PICKER_LIMIT } from './views/components';
import { WebsiteNames } from './website-names';
import { jobPage, jobsPage } from './views/pages/jobs.page';

const oneOf = <T extends string>(values: readonly T[], raw: string | undefined): T | undefined =>
  raw !== undefined && (values as readonly string[]).includes(raw) ? (raw as T) : undefined;

/** Every job of the account (captures and scenario runs) with filters, and one job's detail. */
@DashboardController('dashboard/jobs')
export class JobsPageController {
  constructor(
    private readonly jobs: JobsService,
    private readonly scenarios: ScenariosService,
    private readonly schedules: SchedulesService,
    private readonly names: WebsiteNames,
    private readonly websites: WebsitesService,
    private readonly kinds: JobKinds,
    private readonly queries: DashboardQueries,
  ) {}

  @Get()
  @HtmlPage()
  async list(
    @Viewer() viewer: DashboardViewer,
    @Query('page') rawPage?: string,
    @Query('status') rawStatus?: string,
    @Query('type') rawType?: string,
    @Query('website_id') rawWebsite?: string,
    @Query('site') rawSite?: string,
  ) {
    const accountId = viewer.account.id;
    const site = pickerSearch(rawSite);
    const page = pageParam(rawPage);
    // Lenient, as the other dashboard lists: an unknown filter value shows everything rather than an error.
    const status = oneOf<JobStatus>(JOB_STATUSES, rawStatus);
    const labels = kindLabels(this.kinds);
    const type = oneOf<JobType>([...labels.keys()], rawType);
    const websiteId = idQuery(rawWebsite);
    const { items, total } = await this.jobs.list(accountId, { page, perPage: DASHBOARD_PAGE_SIZE }, { status, type, websiteId });
    const names = await this.names.of(
      accountId,
      items.flatMap((j) => (j.websiteId === null ? [] : [j.websiteId])),
    );
    return jobsPage(viewer, {
      jobs: items,
      names,
      websites: await this.queries.websiteChoices(accountId, site, websiteId, PICKER_LIMIT),
      filter: { status, type, websiteId, site },
      kinds: labels,
      page: { page, lastPage: lastPage(total, DASHBOARD_PAGE_SIZE), total },
    }).toString();
  }

  @Get(':id')
  @HtmlPage()
  async detail(@Viewer() viewer: DashboardViewer, @Param('id', UuidParam) id: string) {
    const accountId = viewer.account.id;
    const job = await this.jobs.get(accountId, id);
    const website = job.websiteId === null ? null : await this.websites.find(accountId, job.websiteId);
    const scenario = job.scenarioId === null ? null : await this.scenarios.get(accountId, job.scenarioId).catch(() => null);
    const schedule = job.scheduleId === null ? null : await this.schedules.get(accountId, job.scheduleId).catch(() => null);
    return jobPage(viewer, {
      job,
      websiteName: website?.name ?? null,
      websiteUrl: website?.url ?? null,
      scenarioName: scenario?.name ?? null,
      scheduleName: schedule?.name ?? null,
      kinds: kindLabels(this.kinds),
    }).toString();
  }
}
