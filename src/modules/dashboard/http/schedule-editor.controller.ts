import { Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Clock } from '../../../shared/domain/clock';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { IdParam } from '../../../shared/http/id-param';
import { UrlPolicy } from '../../../shared/url-policy';
import { ScenariosService } from '../../scenarios/application/scenarios.service';
import { SchedulesService } from '../../schedules/application/schedules.service';
import { Schedule, ScheduleProps } from '../../schedules/domain/schedule';
import { Frequency } from '../../schedules/domain/schedule-rules';
import { CreateScheduleDto } from '../../schedules/http/dto';
import { apiFieldErrors, errorsByField, fieldErrorsOf, idField } from './api-form-validation';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { DashboardQueries } from '../application/dashboard-queries';
import { SessionChoices } from './session-choices';
import { HtmlPage, idQuery, pickerSearch, seeOther } from './responses';
import { FIND_WEBSITE_FIELD, PICKER_LIMIT } from './views/components';
import { deleteSchedulePage, ScheduleForm, scheduleEditorPage } from './views/pages/schedule-editor.page';

export const UPCOMING_RUNS = 5;
/** The scenarios offered to a schedule (newest first); an API client can name any of its scenarios. */
const SCENARIO_CHOICES = 100;

/**
 * The next runs of a schedule, each computed by the entity's own rule (Schedule.nextRunAfter: DST included): the
 * stored next_run_at first (a due occurrence not fired yet is still the next one), then each after the previous.
 * A disabled schedule shows when it would run once enabled.
 */
export function upcomingRuns(schedule: Schedule, now: Date, count = UPCOMING_RUNS): { runs: Date[]; paused: boolean } {
  const paused = !schedule.enabled;
  const rule = paused ? Schedule.restore({ ...(schedule.props as ScheduleProps), enabled: true }) : schedule;
  const runs: Date[] = [];
  let next = !paused && schedule.nextRunAt ? schedule.nextRunAt : rule.nextRunAfter(now);
  while (next !== null && runs.length < count) {
    runs.push(next);
    next = rule.nextRunAfter(next);
  }
  return { runs, paused };
}

/** Schedules: create, edit (with the next five runs in the schedule's zone and in UTC) and delete. */
@DashboardController()
export class ScheduleEditorController {
  constructor(
    private readonly schedules: SchedulesService,
    private readonly scenarios: ScenariosService,
    private readonly queries: DashboardQueries,
    private readonly urlPolicy: UrlPolicy,
    private readonly clock: Clock,
    private readonly sessionChoices: SessionChoices,
  ) {}

  @Get('schedules/new')
  @HtmlPage()
  newForm(@Viewer() viewer: DashboardViewer, @Query('website_id') website?: string, @Query('scenario_id') scenario?: string) {
    const form: ScheduleForm = {
      name: '',
      websiteId: idQuery(website)?.toString() ?? '',
      scenarioId: idQuery(scenario)?.toString() ?? '',
      sessionId: '',
      frequency: 'daily',
      time: '09:00',
      timezone: 'UTC',
      dayOfWeek: '',
      enabled: true,
    };
    return this.page(viewer, null, form);
  }

  @Post('schedules/new')
  @HtmlPage()
  @HttpCode(200)
  create(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.submit(viewer, null, request, reply);
  }

  @Get('schedules/:id/edit')
  @HtmlPage()
  async editForm(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Query('notice') notice?: string) {
    const s = await this.schedules.get(viewer.account.id, id);
    const form: ScheduleForm = {
      name: s.name,
      websiteId: String(s.websiteId),
      scenarioId: s.scenarioId === null ? '' : String(s.scenarioId),
      sessionId: s.sessionId === null ? '' : String(s.sessionId),
      frequency: s.frequency,
      time: s.time,
      timezone: s.timezone,
      dayOfWeek: s.dayOfWeek === null ? '' : String(s.dayOfWeek),
      enabled: s.enabled,
    };
    return this.page(viewer, s, form, new Map(), notice);
  }

  @Post('schedules/:id/edit')
  @HtmlPage()
  @HttpCode(200)
  async update(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const schedule = await this.schedules.get(viewer.account.id, id);
    return this.submit(viewer, schedule, request, reply);
  }

  @Get('schedules/:id/delete')
  @HtmlPage()
  async confirmDelete(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number) {
    return deleteSchedulePage(viewer, (await this.schedules.get(viewer.account.id, id)).props as ScheduleProps).toString();
  }

  @Post('schedules/:id/delete')
  async delete(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.schedules.get(viewer.account.id, id);
    this.requireAccess(viewer);
    await this.schedules.delete(viewer.account.id, id);
    return seeOther(reply, '/dashboard/schedules?notice=schedule-deleted');
  }

  private async submit(viewer: DashboardViewer, schedule: Schedule | null, request: DashboardRequest, reply: FastifyReply): Promise<string> {
    this.requireAccess(viewer);
    const fields = formFields(request);
    const form: ScheduleForm = {
      name: fields.get('name') ?? '',
      websiteId: fields.get('website_id') ?? '',
      scenarioId: fields.get('scenario_id') ?? '',
      sessionId: fields.get('session_id') ?? '',
      frequency: fields.get('frequency') ?? '',
      time: (fields.get('time') ?? '').trim(),
      timezone: (fields.get('timezone') ?? '').trim(),
      dayOfWeek: fields.get('day_of_week') ?? '',
      enabled: fields.get('enabled') === 'true',
    };
    const site = fields.get('site') ?? '';
    // The website chooser's Find: the form again with the narrowed choices and what was typed, nothing saved.
    if (fields.has(FIND_WEBSITE_FIELD)) return this.page(viewer, schedule, form, new Map(), undefined, site);
    // The JSON an API client would send, judged by the API's own DTO and the schedule's domain rules. With a
    // scenario chosen the website select does not count (the scenario's website is used), so it is not sent.
    const scenarioChosen = form.scenarioId !== '';
    const body = {
      name: form.name,
      website_id: scenarioChosen ? undefined : idField(form.websiteId),
      scenario_id: scenarioChosen ? idField(form.scenarioId) : null,
      session_id: form.sessionId === '' ? null : idField(form.sessionId),
      frequency: form.frequency,
      time: form.time,
      timezone: form.timezone,
      day_of_week: form.dayOfWeek === '' ? null : /^\d$/.test(form.dayOfWeek) ? Number(form.dayOfWeek) : form.dayOfWeek,
      enabled: form.enabled,
    };
    let errors = await apiFieldErrors(this.urlPolicy, CreateScheduleDto, body);
    if (errors.length === 0) {
      const accountId = viewer.account.id;
      const input = {
        name: body.name,
        websiteId: body.website_id as number | undefined,
        scenarioId: body.scenario_id as number | null,
        sessionId: body.session_id as number | null,
        frequency: body.frequency as Frequency,
        time: body.time,
        timezone: body.timezone,
        dayOfWeek: body.day_of_week as number | null,
        enabled: body.enabled,
      };
      try {
        const saved = schedule ? await this.schedules.update(accountId, schedule.id, input) : await this.schedules.create({ accountId, ...input });
        return seeOther(reply, `/dashboard/schedules/${saved.id}/edit?notice=${schedule ? 'schedule-saved' : 'schedule-created'}`);
      } catch (err) {
        errors = fieldErrorsOf(err);
      }
    }
    reply.status(422);
    return this.page(viewer, schedule, form, errorsByField(errors), undefined, site);
  }

  /** Saving and deleting need API access, as on the API (plan_no_api_access → the 403 page). */
  private requireAccess(viewer: DashboardViewer): void {
    if (!viewer.account.hasApiAccess(this.clock.now())) throw new PlanNoApiAccessError(viewer.account.plan);
  }

  private async page(
    viewer: DashboardViewer,
    schedule: Schedule | null,
    form: ScheduleForm,
    errors = new Map<string, string>(),
    notice?: string,
    site = '',
  ): Promise<string> {
    const accountId = viewer.account.id;
    return scheduleEditorPage(viewer, {
      schedule: schedule ? (schedule.props as ScheduleProps) : null,
      form,
      websites: await this.queries.websiteChoices(accountId, pickerSearch(site), idQuery(form.websiteId), PICKER_LIMIT),
      site,
      scenarios: (await this.scenarios.list(viewer.account.id, { page: 1, perPage: SCENARIO_CHOICES }, {})).items.map((sc) => ({ id: sc.id, name: sc.name })),
      sessions: await this.sessionChoices.of(accountId),
      errors,
      upcoming: schedule ? upcomingRuns(schedule, this.clock.now()) : null,
      hasAccess: viewer.account.hasApiAccess(this.clock.now()),
      notice,
    }).toString();
  }
}
