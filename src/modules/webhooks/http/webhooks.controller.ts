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
import { WebhooksService } from '../application/webhooks.service';
import { WebhookChanges } from '../application/ports';
import { CreateWebhookDto, deliveryView, UpdateWebhookDto, webhookView } from './dto';
import { DeliveryView } from '../../../shared/http/openapi/deliveries';
import { WebhookView, WebhookWithSecretView } from './openapi';

function toChanges(dto: UpdateWebhookDto): WebhookChanges {
  const changes: WebhookChanges = {};
  if (dto.url !== undefined) changes.url = dto.url;
  if (dto.events !== undefined) changes.events = dto.events;
  if (dto.description !== undefined) changes.description = dto.description;
  if (dto.enabled !== undefined) changes.enabled = dto.enabled;
  return changes;
}

/** Webhooks (Standard Webhooks format): managing them counts against the API rate limit like any other route. */
@ApiBearerController('Webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'List Webhooks' })
  @ApiPageResponse(WebhookView, 'The account’s webhooks (never their secrets)')
  @ApiErrorResponses('validation_failed')
  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.webhooks.list(account.id, page), webhookView);
  }

  @ApiOperation({
    summary: 'Create Webhook',
    description:
      'Registers an endpoint for the chosen events. The answer carries the signing secret (`whsec_…`), shown this once: verify each delivery’s `webhook-signature` with it (Standard Webhooks).',
  })
  @ApiDataResponse(WebhookWithSecretView, { status: 201, description: 'The new webhook, with its secret' })
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed')
  @Post()
  @HttpCode(201)
  async create(@CurrentAccount() account: Account, @Body() dto: CreateWebhookDto) {
    const webhook = await this.webhooks.create(account.id, { url: dto.url, events: dto.events, description: dto.description });
    return { success: true, data: { ...webhookView(webhook), secret: webhook.secret } };
  }

  @ApiOperation({ summary: 'Get Webhook' })
  @ApiIdParam('Webhook')
  @ApiDataResponse(WebhookView, { description: 'The webhook' })
  @ApiErrorResponses('not_found')
  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: webhookView(await this.webhooks.get(account.id, id)) };
  }

  @ApiOperation({ summary: 'Update Webhook', description: 'Partial: only the fields sent change. `enabled: true` resumes an endpoint the service disabled.' })
  @ApiIdParam('Webhook')
  @ApiDataResponse(WebhookView, { description: 'The updated webhook' })
  @ApiErrorResponses('bad_request', 'not_found', 'payload_too_large', 'validation_failed')
  @Put(':id')
  async update(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Body() dto: UpdateWebhookDto) {
    return { success: true, data: webhookView(await this.webhooks.update(account.id, id, toChanges(dto))) };
  }

  @ApiOperation({ summary: 'Delete Webhook', description: 'Its pending deliveries are dropped with it.' })
  @ApiIdParam('Webhook')
  @ApiSuccessResponse(MessageResponse, { description: 'Deleted' })
  @ApiErrorResponses('not_found')
  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.webhooks.delete(account.id, id);
    return { success: true, message: 'Webhook deleted' };
  }

  @ApiOperation({ summary: 'Send a test event', description: 'Queues a `webhook.test` event to the endpoint, delivered (and retried) like any other.' })
  @ApiIdParam('Webhook')
  @ApiDataResponse(DeliveryView, { status: 202, description: 'The queued delivery' })
  @ApiErrorResponses('not_found', 'validation_failed')
  @Post(':id/test')
  @HttpCode(202)
  async test(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: deliveryView(await this.webhooks.sendTest(account.id, id)) };
  }

  @ApiOperation({ summary: 'List Deliveries', description: 'Newest first: each event sent to this webhook, its attempts and the last answer.' })
  @ApiIdParam('Webhook')
  @ApiPageResponse(DeliveryView, 'The webhook’s deliveries')
  @ApiErrorResponses('not_found', 'validation_failed')
  @Get(':id/deliveries')
  async deliveries(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.webhooks.deliveries(account.id, id, page), deliveryView);
  }
}
