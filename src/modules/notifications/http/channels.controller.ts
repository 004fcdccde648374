import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { CurrentAccount } from '../../../shared/http/decorators';
import { IdParam } from '../../../shared/http/id-param';
import {
  ApiBearerController,
  ApiDataResponse,
  ApiErrorResponses,
  ApiIdParam,
  ApiPageResponse,
  ApiSuccessResponse,
  MessageResponse,
} from '../../../shared/http/openapi';
import { PageQuery, paginate } from '../../../shared/http/pagination';
import type { Account } from '../../accounts/domain/account';
import { ChannelsService } from '../application/channels.service';
import { ChannelChanges } from '../application/ports';
import { ChannelProps } from '../domain/channel';
import { channelView, CreateChannelDto, testMessageView, UpdateChannelDto } from './dto';
import { ChannelView, TestMessageView } from './openapi';
import { deliveryView } from '../../webhooks/http/dto';
import { DeliveryView } from '../../../shared/http/openapi/deliveries';

function toChanges(dto: UpdateChannelDto): ChannelChanges {
  const changes: ChannelChanges = {};
  if (dto.name !== undefined) changes.name = dto.name;
  if (dto.type !== undefined) changes.type = dto.type;
  if (dto.target !== undefined) changes.target = dto.target;
  if (dto.events !== undefined) changes.events = dto.events;
  if (dto.website_ids !== undefined) changes.websiteIds = dto.website_ids;
  if (dto.enabled !== undefined) changes.enabled = dto.enabled;
  return changes;
}

/** Notification channels: e-mail, Slack, Discord, Teams and ntfy subscribers of the webhook events. */
@ApiBearerController('Notification channels')
@Controller('notification-channels')
export class ChannelsController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'List Notification Channels' })
  @ApiPageResponse(ChannelView, 'The account’s channels, newest first (webhook URLs masked)')
  @ApiErrorResponses('validation_failed')
  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    const page = await paginate(
      request,
      this.config.publicUrl,
      query,
      (p) => this.channels.list(account.id, p),
      (c: ChannelProps) => c,
    );
    const last = await this.channels.lastDeliveries(page.data.map((c) => c.id));
    return { ...page, data: page.data.map((c) => channelView(c, last.get(c.id) ?? null)) };
  }

  @ApiOperation({
    summary: 'Create Notification Channel',
    description:
      'An e-mail address, a Slack or Discord incoming webhook, a Microsoft Teams workflow webhook or an ntfy topic, told about the chosen events (for every website, or those of `website_ids`). ' +
      'Messages name the website, say what happened (change ratio, text lines added/removed, the error) and link the picture, its diff and the compare page with signed links that open without a session ' +
      '(`/links?…`, valid ALERT_LINK_DAYS, 30 by default), and the dashboard. E-mails carry the picture inline.',
  })
  @ApiDataResponse(ChannelView, { status: 201, description: 'The new channel' })
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed')
  @Post()
  @HttpCode(201)
  async create(@CurrentAccount() account: Account, @Body() dto: CreateChannelDto) {
    const channel = await this.channels.create(account.id, {
      name: dto.name,
      type: dto.type,
      target: dto.target,
      events: dto.events,
      websiteIds: dto.website_ids,
    });
    return { success: true, data: channelView(channel) };
  }

  @ApiOperation({ summary: 'Get Notification Channel' })
  @ApiIdParam('Notification channel')
  @ApiDataResponse(ChannelView, { description: 'The channel' })
  @ApiErrorResponses('not_found')
  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    const channel = await this.channels.get(account.id, id);
    return { success: true, data: channelView(channel, (await this.channels.lastDeliveries([id])).get(id) ?? null) };
  }

  @ApiOperation({
    summary: 'Update Notification Channel',
    description: 'Partial: only the fields sent change; a `target` not sent keeps the current one (never shown back). A new `type` needs a new `target`.',
  })
  @ApiIdParam('Notification channel')
  @ApiDataResponse(ChannelView, { description: 'The updated channel' })
  @ApiErrorResponses('bad_request', 'not_found', 'payload_too_large', 'validation_failed')
  @Put(':id')
  async update(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Body() dto: UpdateChannelDto) {
    return { success: true, data: channelView(await this.channels.update(account.id, id, toChanges(dto))) };
  }

  @ApiOperation({ summary: 'Delete Notification Channel', description: 'Messages not sent yet are dropped with it.' })
  @ApiIdParam('Notification channel')
  @ApiSuccessResponse(MessageResponse, { description: 'Deleted' })
  @ApiErrorResponses('not_found')
  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.channels.delete(account.id, id);
    return { success: true, message: 'Notification channel deleted' };
  }

  @ApiOperation({
    summary: 'List Notification Channel Deliveries',
    description:
      'Newest first: each message sent to this channel, its attempts and the last answer (as a webhook’s deliveries; `status_code` is null for e-mail). ' +
      'A channel whose every message failed for 3 days is disabled: see `disabled_reason` on the channel.',
  })
  @ApiIdParam('Notification channel')
  @ApiPageResponse(DeliveryView, 'The channel’s messages')
  @ApiErrorResponses('not_found', 'validation_failed')
  @Get(':id/deliveries')
  async deliveries(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.channels.deliveries(account.id, id, page), deliveryView);
  }

  @ApiOperation({
    summary: 'Send a test message',
    description: 'Queues a test message to the channel, sent (and retried) like any other; see `last_delivery` for how it went.',
  })
  @ApiIdParam('Notification channel')
  @ApiDataResponse(TestMessageView, { status: 202, description: 'The queued message' })
  @ApiErrorResponses('not_found')
  @Post(':id/test')
  @HttpCode(202)
  async test(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: testMessageView(await this.channels.sendTest(account.id, id)) };
  }
}
