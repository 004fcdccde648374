import { Body, Controller, Delete, Get, Param, Put, Query, Req } from '@nestjs/common';
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
import { WebsitesService } from '../application/websites.service';
import { WebsiteView } from './openapi';
import { toChanges, UpdateWebsiteDto, websiteView } from './website.dto';

/** The website routes but Create Website, which the monitors context serves (a website with `monitor` is made whole there). */
@ApiBearerController('Websites')
@Controller('websites')
export class WebsitesController {
  constructor(
    private readonly websites: WebsitesService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'List Websites' })
  @ApiPageResponse(WebsiteView, 'The account’s websites')
  @ApiErrorResponses('validation_failed')
  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(
      request,
      this.config.publicUrl,
      query,
      (page) => this.websites.list(account.id, page),
      (w) => websiteView(w),
    );
  }

  @ApiOperation({ summary: 'Get Website' })
  @ApiIdParam('Website')
  @ApiDataResponse(WebsiteView, { description: 'The website' })
  @ApiErrorResponses('not_found')
  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: websiteView(await this.websites.get(account.id, id)) };
  }

  @ApiOperation({ summary: 'Update Website', description: 'Partial: only the fields sent change. Answers the full website.' })
  @ApiIdParam('Website')
  @ApiDataResponse(WebsiteView, { description: 'The updated website' })
  @ApiErrorResponses('bad_request', 'not_found', 'payload_too_large', 'validation_failed')
  @Put(':id')
  async update(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Body() dto: UpdateWebsiteDto) {
    return { success: true, data: websiteView(await this.websites.update(account.id, id, toChanges(dto ?? {}))) };
  }

  @ApiOperation({
    summary: 'Delete Website',
    description: 'Also deletes its screenshots (rows and files), scenarios and schedules, and fails its queued jobs.',
  })
  @ApiIdParam('Website')
  @ApiSuccessResponse(MessageResponse, { description: 'Deleted' })
  @ApiErrorResponses('not_found')
  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.websites.delete(account.id, id);
    return { success: true, message: 'Website deleted' };
  }
}
