import { Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { UrlPolicy } from '../../../shared/url-policy';
import { IdParam } from '../../../shared/http/id-param';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { takeDraft } from './form-drafts';
import { ChannelsService } from '../../notifications/application/channels.service';
import { CreateChannelDto, UpdateChannelDto } from '../../notifications/http/dto';
import { AlertLinks } from '../../notifications/application/alert-links';
import { DashboardQueries } from '../application/dashboard-queries';
import { FIND_WEBSITE_FIELD, PICKER_LIMIT } from './views/components';
import { pickerSearch } from './responses';
import { AppConfig } from '../../../config/app-config';
import { apiFieldErrors, errorsByField, fieldErrorsOf, idField } from './api-form-validation';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { HtmlPage, seeOther } from './responses';
import {
  ChannelEditValues,
  ChannelFormValues,
  ChannelWebsites,
  editChannelPage,
  EMPTY_CHANNEL_FORM,
  notificationsPage,
  removeConfirmPage,
} from './views/pages/notifications.page';
import type { FieldError } from '../../../shared/domain/domain-error';
import type { ChannelEvent, ChannelType } from '../../notifications/domain/channel';

/** Notifications: add, edit, test and remove e-mail, Slack, Discord, Teams and ntfy channels (the API's /notification-channels). */
@DashboardController('dashboard/notifications')
export class NotificationsPageController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly queries: DashboardQueries,
    private readonly urlPolicy: UrlPolicy,
    private readonly config: AppConfig,
    private readonly alertLinks: AlertLinks,
    private readonly secretBox: SecretBox,
  ) {}

  @Get()
  @HtmlPage()
  async list(
    @Viewer() viewer: DashboardViewer,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('notice') notice?: string,
  ) {
    // What was typed when the session expired on "Add channel" (form-drafts.ts; a webhook's address is never kept).
    const draft = takeDraft(reply, request, this.secretBox, this.config.publicUrl, '/dashboard/notifications', viewer.account.id);
    if (!draft) return this.page(viewer, EMPTY_CHANNEL_FORM, [], notice);
    return this.page(viewer, channelFormValues(draft), [], 'draft-restored');
  }

  /** Judged as the API judges the same body (its DTO, then the service's checks); errors shown beside each field. */
  @Post()
  @HtmlPage()
  @HttpCode(200)
  async create(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const fields = formFields(request);
    const values = channelFormValues(fields);
    // The website search's Find (without script): the form again with the new matches and what was typed, unsaved.
    if (fields.has(FIND_WEBSITE_FIELD)) return this.page(viewer, values, [], undefined, fields.get('site') ?? '');
    const body = { name: values.name, type: values.type, target: values.target, events: values.events, website_ids: values.websiteIds.map(idField) };
    let errors = await apiFieldErrors(this.urlPolicy, CreateChannelDto, body);
    if (errors.length === 0) {
      try {
        await this.channels.create(viewer.account.id, {
          name: values.name,
          type: values.type as ChannelType,
          target: values.target,
          events: values.events as ChannelEvent[],
          websiteIds: body.website_ids as number[],
        });
        return seeOther(reply, '/dashboard/notifications?notice=channel-created');
      } catch (err) {
        errors = fieldErrorsOf(err);
      }
    }
    reply.status(422);
    return this.page(viewer, values, errors, undefined, fields.get('site') ?? '');
  }

  @Post(':id/test')
  async test(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.channels.sendTest(viewer.account.id, id);
    return seeOther(reply, '/dashboard/notifications?notice=test-queued');
  }

  /** Re-enables a disabled channel (as the API's PUT `enabled: true`: its failure streak starts afresh). */
  @Post(':id/enable')
  async enable(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.channels.update(viewer.account.id, id, { enabled: true });
    return seeOther(reply, '/dashboard/notifications?notice=channel-enabled');
  }

  @Get(':id/edit')
  @HtmlPage()
  async edit(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number) {
    const channel = await this.channels.get(viewer.account.id, id);
    const values: ChannelEditValues = {
      name: channel.name,
      // An e-mail address is no secret and is edited in place; a webhook URL is never shown back.
      target: channel.type === 'email' ? channel.target : '',
      events: channel.events,
      websiteIds: (channel.websiteIds ?? []).map(String),
    };
    return editChannelPage(viewer, channel, { websites: await this.channelWebsites(viewer, '', values.websiteIds), values, errors: new Map() }).toString();
  }

  /** As the API's PUT: the DTO, then the service's checks; an empty target keeps the current one. */
  @Post(':id/edit')
  @HtmlPage()
  @HttpCode(200)
  async update(
    @Viewer() viewer: DashboardViewer,
    @Param('id', IdParam) id: number,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const channel = await this.channels.get(viewer.account.id, id);
    const fields = formFields(request);
    const values: ChannelEditValues = {
      name: (fields.get('name') ?? '').trim(),
      target: (fields.get('target') ?? '').trim(),
      events: fields.getAll('events'),
      websiteIds: fields.getAll('website_ids'),
    };
    if (fields.has(FIND_WEBSITE_FIELD)) {
      const websites = await this.channelWebsites(viewer, fields.get('site') ?? '', values.websiteIds);
      return editChannelPage(viewer, channel, { websites, values, errors: new Map() }).toString();
    }
    const body: Record<string, unknown> = { name: values.name, events: values.events, website_ids: values.websiteIds.map(idField) };
    const keepsTarget = values.target === '' || (channel.type === 'email' && values.target === channel.target);
    if (!keepsTarget) body.target = values.target;
    let errors = await apiFieldErrors(this.urlPolicy, UpdateChannelDto, body);
    if (errors.length === 0) {
      const changes: Parameters<ChannelsService['update']>[2] = {
        name: values.name,
        events: values.events as ChannelEvent[],
        websiteIds: body.website_ids as number[],
      };
      if (!keepsTarget) changes.target = values.target;
      try {
        await this.channels.update(viewer.account.id, id, changes);
        return seeOther(reply, '/dashboard/notifications?notice=channel-updated');
      } catch (err) {
        errors = fieldErrorsOf(err);
      }
    }
    reply.status(422);
    const byField = errorsByField(errors.map((e) => ({ field: e.field.replace(/\[\d+\]$/, ''), message: e.message })));
    const websites = await this.channelWebsites(viewer, fields.get('site') ?? '', values.websiteIds);
    return editChannelPage(viewer, channel, { websites, values, errors: byField }).toString();
  }

  @Get(':id/delete')
  @HtmlPage()
  async confirmRemove(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number) {
    return removeConfirmPage(viewer, await this.channels.get(viewer.account.id, id)).toString();
  }

  @Post(':id/delete')
  async remove(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.channels.delete(viewer.account.id, id);
    return seeOther(reply, '/dashboard/notifications?notice=channel-deleted');
  }

  private async page(viewer: DashboardViewer, values: ChannelFormValues, errors: FieldError[], notice?: string, site = ''): Promise<string> {
    const { items } = await this.channels.list(viewer.account.id, { page: 1, perPage: 100 });
    const last = await this.channels.lastDeliveries(items.map((c) => c.id));
    return notificationsPage(viewer, {
      channels: items,
      last,
      websites: await this.channelWebsites(
        viewer,
        site,
        values.websiteIds,
        items.flatMap((c) => c.websiteIds ?? []),
      ),
      values,
      errors: errorsByField(errors.map((e) => ({ field: e.field.replace(/\[\d+\]$/, ''), message: e.message }))),
      notice,
      smtpConfigured: this.config.smtpUrl !== null,
      alertLinkDays: this.config.alertLinkDays,
      alertLinksBase: this.config.publicUrl === null ? this.alertLinks.base : null,
    }).toString();
  }

  /**
   * The websites the channel form offers: the newest matches of the search (PICKER_LIMIT at most, indexed), and the
   * names of the ticked websites and of those the channels listed name (a channel names 100 at most) — in one read,
   * whatever the account holds. Ticked ids that are not the account's websites get no name (the save refuses them).
   */
  private async channelWebsites(viewer: DashboardViewer, site: string, ticked: string[], named: number[] = []): Promise<ChannelWebsites> {
    const accountId = viewer.account.id;
    const tickedIds = ticked.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0);
    const [matches, names] = await Promise.all([
      this.queries.websiteChoices(accountId, pickerSearch(site), undefined, PICKER_LIMIT),
      this.queries.websiteNames(accountId, [...tickedIds, ...named]),
    ]);
    return { matches, names, site: site.slice(0, 200) };
  }
}

/** The channel form's values as posted (or kept as a draft). */
function channelFormValues(fields: URLSearchParams): ChannelFormValues {
  return {
    name: (fields.get('name') ?? '').trim(),
    type: fields.get('type') ?? '',
    target: (fields.get('target') ?? '').trim(),
    events: fields.getAll('events'),
    websiteIds: fields.getAll('website_ids'),
  };
}
