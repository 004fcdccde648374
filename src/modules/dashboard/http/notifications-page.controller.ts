import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { UrlPolicy } from '../../../shared/url-policy';
import { IdParam } from '../../../shared/http/id-param';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { takeDraft } from './form-drafts';
import { ChannelsService } from '../../notifications/application/channels.service';
import { CreateChannelDto } from '../../notifications/http/dto';
import { WebsitesService } from '../../websites/application/websites.service';
import { AppConfig } from '../../../config/app-config';
import { apiFieldErrors, errorsByField, fieldErrorsOf, idField } from './api-form-validation';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { HtmlPage, seeOther } from './responses';
import { ChannelFormValues, EMPTY_CHANNEL_FORM, notificationsPage, removeConfirmPage } from './views/pages/notifications.page';
import type { FieldError } from '../../../shared/domain/domain-error';
import type { ChannelEvent, ChannelType } from '../../notifications/domain/channel';

/** Notifications: add, test and remove e-mail, Slack and Discord channels (the API's /notification-channels). */
@DashboardController('dashboard/notifications')
export class NotificationsPageController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly websites: WebsitesService,
    private readonly urlPolicy: UrlPolicy,
    private readonly config: AppConfig,
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
    const draft = takeDraft(reply, request, this.secretBox, this.config.publicUrl, '/dashboard/notifications');
    if (!draft) return this.page(viewer, EMPTY_CHANNEL_FORM, [], notice);
    return this.page(viewer, channelFormValues(draft), [], 'draft-restored');
  }

  /** Judged as the API judges the same body (its DTO, then the service's checks); errors shown beside each field. */
  @Post()
  @HtmlPage()
  async create(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const values = channelFormValues(formFields(request));
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
    return this.page(viewer, values, errors);
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

  private async page(viewer: DashboardViewer, values: ChannelFormValues, errors: FieldError[], notice?: string): Promise<string> {
    const { items } = await this.channels.list(viewer.account.id, { page: 1, perPage: 100 });
    const last = await this.channels.lastDeliveries(items.map((c) => c.id));
    const sites = await this.websites.list(viewer.account.id, { page: 1, perPage: 100 });
    return notificationsPage(viewer, {
      channels: items,
      last,
      websites: sites.items.map((w) => ({ id: w.id, name: w.name })),
      values,
      errors: errorsByField(errors.map((e) => ({ field: e.field.replace(/\[\d+\]$/, ''), message: e.message }))),
      notice,
      smtpConfigured: this.config.smtpUrl !== null,
    }).toString();
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
