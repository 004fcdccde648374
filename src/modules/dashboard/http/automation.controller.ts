import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Clock } from '../../../shared/domain/clock';
import { IdParam } from '../../../shared/http/id-param';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { ScenariosService } from '../../scenarios/application/scenarios.service';
import { SchedulesService } from '../../schedules/application/schedules.service';
import type { ScheduleProps } from '../../schedules/domain/schedule';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { DASHBOARD_PAGE_SIZE, HtmlPage, lastPage, pageParam, seeOther } from './responses';
import { WebsiteNames } from './website-names';
import { scenariosPage, schedulesPage } from './views/pages/automation.page';

/** Scenarios (run) and schedules (enable / disable). */
@DashboardController()
export class AutomationController {
  constructor(
    private readonly scenarios: ScenariosService,
    private readonly schedules: SchedulesService,
    private readonly names: WebsiteNames,
    private readonly clock: Clock,
  ) {}

  @Get('scenarios')
  @HtmlPage()
  async listScenarios(@Viewer() viewer: DashboardViewer, @Query('page') rawPage?: string, @Query('notice') notice?: string) {
    const accountId = viewer.account.id;
    const page = pageParam(rawPage);
    const { items, total } = await this.scenarios.list(accountId, { page, perPage: DASHBOARD_PAGE_SIZE }, {});
    const names = await this.names.of(
      accountId,
      items.map((s) => s.websiteId),
    );
    const rows = await Promise.all(
      items.map(async (scenario) => ({
        scenario,
        websiteName: names.get(scenario.websiteId) ?? '—',
        lastRun: (await this.scenarios.executions(accountId, scenario.id, { page: 1, perPage: 1 })).items[0]?.job ?? null,
      })),
    );
    return scenariosPage(viewer, {
      rows,
      page: { page, lastPage: lastPage(total, DASHBOARD_PAGE_SIZE), total },
      hasAccess: viewer.account.hasApiAccess(this.clock.now()),
      notice,
    }).toString();
  }

  /** From the list: back to the list. From the editor or a run's page (`then=details`): to the new run's page. */
  @Post('scenarios/:id/run')
  async run(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    if (!viewer.account.hasApiAccess(this.clock.now())) throw new PlanNoApiAccessError(viewer.account.plan);
    const job = await this.scenarios.run(viewer.account.id, id, null);
    if (formFields(request).get('then') === 'details') return seeOther(reply, `/dashboard/executions/${job.id}?notice=run-started`);
    return seeOther(reply, '/dashboard/scenarios?notice=scenario-started');
  }

  @Get('schedules')
  @HtmlPage()
  async listSchedules(@Viewer() viewer: DashboardViewer, @Query('page') rawPage?: string, @Query('notice') notice?: string) {
    const accountId = viewer.account.id;
    const page = pageParam(rawPage);
    const { items, total } = await this.schedules.list(accountId, { page, perPage: DASHBOARD_PAGE_SIZE });
    const names = await this.names.of(
      accountId,
      items.map((s) => s.websiteId),
    );
    const scenarioNames = await this.scenarioNames(
      accountId,
      items.flatMap((s) => (s.scenarioId === null ? [] : [s.scenarioId])),
    );
    const rows = items.map((schedule) => ({
      schedule: schedule.props as ScheduleProps,
      websiteName: names.get(schedule.websiteId) ?? '—',
      scenario: schedule.scenarioId === null ? null : { id: schedule.scenarioId, name: scenarioNames.get(schedule.scenarioId) ?? `#${schedule.scenarioId}` },
    }));
    return schedulesPage(viewer, {
      rows,
      page: { page, lastPage: lastPage(total, DASHBOARD_PAGE_SIZE), total },
      hasAccess: viewer.account.hasApiAccess(this.clock.now()),
      notice,
    }).toString();
  }

  /** The names of the scenarios a page of schedules runs (at most a page's worth, each looked up once). */
  private async scenarioNames(accountId: number, ids: number[]): Promise<Map<number, string>> {
    const names = new Map<number, string>();
    for (const id of new Set(ids)) {
      const scenario = await this.scenarios.get(accountId, id).catch(() => null);
      if (scenario) names.set(id, scenario.name);
    }
    return names;
  }

  /** Run now, from the list or the editor (`then=edit`): back there, where "Last run" links the new job. */
  @Post('schedules/:id/run')
  async runSchedule(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.schedules.get(viewer.account.id, id);
    if (!viewer.account.hasApiAccess(this.clock.now())) throw new PlanNoApiAccessError(viewer.account.plan);
    await this.schedules.runNow(viewer.account.id, id, null, 'dashboard');
    const back = formFields(request).get('then') === 'edit' ? `/dashboard/schedules/${id}/edit` : '/dashboard/schedules';
    return seeOther(reply, `${back}?notice=schedule-run-queued`);
  }

  @Post('schedules/:id/enable')
  async enable(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.schedules.update(viewer.account.id, id, { enabled: true });
    return seeOther(reply, '/dashboard/schedules?notice=schedule-enabled');
  }

  @Post('schedules/:id/disable')
  async disable(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.schedules.update(viewer.account.id, id, { enabled: false });
    return seeOther(reply, '/dashboard/schedules?notice=schedule-disabled');
  }
}
