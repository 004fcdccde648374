import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { CurrentAccount } from '../../../shared/http/decorators';
import { ApiBearerController, ApiErrorResponses, headerRefs, RATE_LIMIT_HEADERS } from '../../../shared/http/openapi';
import type { Account } from '../../accounts/domain/account';
import { toChanges, websiteView } from '../../websites/http/website.dto';
import { MonitorsService } from '../application/monitors.service';
import { CreateWebsiteRequestDto, monitorRequestOf, MonitorView, monitorView } from './dto';

/**
 * Create Website (spec: POST /websites → 201 `{success, data: Website}`). Served here rather than by the websites
 * context because `monitor` makes the call also create a schedule, link notification channels and queue a capture —
 * contexts the websites context may not import (it sits below them); without `monitor` it is exactly
 * WebsitesService.create.
 */
@ApiBearerController('Websites')
@Controller('websites')
export class CreateWebsiteController {
  constructor(private readonly monitors: MonitorsService) {}

  @ApiOperation({
    summary: 'Create Website',
    operationId: 'Websites_create',
    description:
      'Creates the website. With `monitor: {every, channel_ids}` the same call also creates the schedule that captures it, links the ' +
      'notification channels to it and queues its first capture — all or nothing: a bad `every`, or a channel that is not one of yours, is a ' +
      '422 naming `monitor.every` / `monitor.channel_ids` and nothing is created. The answer then also has `monitor`.',
  })
  @ApiBody({ type: CreateWebsiteRequestDto })
  @ApiExtraModels(MonitorView)
  @ApiResponse({
    status: 201,
    description: 'The new website (without last_screenshot_at); with `monitor` when one was asked for',
    headers: headerRefs(Object.keys(RATE_LIMIT_HEADERS)),
    schema: {
      type: 'object',
      required: ['success', 'data'],
      properties: {
        success: { type: 'boolean', enum: [true] },
        // The Website schema the websites context's routes declare (a context's http reaches another's dto files only).
        data: { $ref: '#/components/schemas/Website' },
        monitor: { $ref: getSchemaPath(MonitorView) },
      },
    },
  })
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed')
  @Post()
  @HttpCode(201)
  async create(@CurrentAccount() account: Account, @Body() dto: CreateWebsiteRequestDto) {
    const { monitor: monitorDto, ...website } = dto;
    const created = await this.monitors.createWebsite(account.id, { ...toChanges(website), name: dto.name, url: dto.url }, monitorRequestOf(monitorDto), 'api');
    return { success: true, data: websiteView(created.website, false), ...(created.monitor ? { monitor: monitorView(created.monitor) } : {}) };
  }
}
