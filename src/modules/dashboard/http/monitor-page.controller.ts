import { Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Clock } from '../../../shared/domain/clock';
import { UrlPolicy } from '../../../shared/url-policy';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { MonitorsService } from '../../monitors/application/monitors.service';
import { CreateWebsiteRequestDto } from '../../monitors/http/dto';
import { ChannelsService } from '../../notifications/application/channels.service';
import { apiFieldErrors, errorsByField, fieldErrorsOf, idField } from './api-form-validation';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { HtmlPage, seeOther } from './responses';
import { CHANGE_CONDITION_FIELDS, errorsByField as conditionErrorsByField, formToBody, pickValues } from './website-form';
import { EMPTY_MONITOR_FORM, MonitorFormValues, monitorFormPage } from './views/pages/monitor.page';
import type { FieldError } from '../../../shared/domain/domain-error';

/** The channels offered as checkboxes (an account has at most 20). */
const CHANNELS_SHOWN = { page: 1, perPage: 100 };

/** A website's name from its URL when the form leaves it empty: the host. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * "Monitor a page": the dashboard's form of POST /websites with `monitor` — judged by the API's own DTO, made by
 * the same MonitorsService (website, schedule, channel links, first capture, all or nothing).
 */
@DashboardController('dashboard/monitors')
export class MonitorPageController {
  constructor(
    private readonly monitors: MonitorsService,
    private readonly channels: ChannelsService,
    private readonly urlPolicy: UrlPolicy,
    private readonly clock: Clock,
  ) {}

  @Get('new')
  @HtmlPage()
  async form(@Viewer() viewer: DashboardViewer) {
    return this.page(viewer, EMPTY_MONITOR_FORM, []);
  }

  @Post('new')
  @HtmlPage()
  async create(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    if (!viewer.account.hasApiAccess(this.clock.now())) throw new PlanNoApiAccessError(viewer.account.plan);
    const fields = formFields(request);
    const values: MonitorFormValues = {
      url: (fields.get('url') ?? '').trim(),
      name: (fields.get('name') ?? '').trim(),
      every: fields.get('every') ?? '',
      channelIds: fields.getAll('channel_ids'),
      conditions: pickValues(CHANGE_CONDITION_FIELDS, fields),
    };
    const channelIds = values.channelIds.map(idField);
    // The conditions as the website form sends them (alert_when whole, ignore_text as lines), judged by the same DTO.
    const conditions = formToBody(CHANGE_CONDITION_FIELDS, values.conditions, false);
    const body = {
      name: values.name || hostOf(values.url),
      url: values.url,
      ...conditions.body,
      monitor: { every: values.every, channel_ids: channelIds },
    };
    let errors = conditions.errors.length > 0 ? conditions.errors : await apiFieldErrors(this.urlPolicy, CreateWebsiteRequestDto, body);
    if (errors.length === 0) {
      try {
        const alertWhen = conditions.body.alert_when as Record<string, unknown> | undefined;
        const made = await this.monitors.createWebsite(
          viewer.account.id,
          {
            name: body.name,
            url: body.url,
            ...(Array.isArray(conditions.body.ignore_text) && conditions.body.ignore_text.length > 0
              ? { ignoreText: conditions.body.ignore_text as string[] }
              : {}),
            ...(alertWhen && Object.keys(alertWhen).length > 0 ? { alertWhen: alertWhen } : {}),
          },
          { every: values.every, channelIds: channelIds as number[] },
          'dashboard',
        );
        return seeOther(reply, `/dashboard/websites/${made.website.id}/history?notice=monitor-created`);
      } catch (err) {
        errors = fieldErrorsOf(err);
      }
    }
    reply.status(422);
    return this.page(viewer, values, errors);
  }

  private async page(viewer: DashboardViewer, values: MonitorFormValues, errors: FieldError[]): Promise<string> {
    const channels = (await this.channels.list(viewer.account.id, CHANNELS_SHOWN)).items;
    return monitorFormPage(viewer, {
      values,
      errors: errorsByField(errors),
      conditionErrors: conditionErrorsByField(CHANGE_CONDITION_FIELDS, errors, false),
      channels,
      hasAccess: viewer.account.hasApiAccess(this.clock.now()),
    }).toString();
  }
}
