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
import { ProxyPoolsService } from '../application/proxy-pools.service';
import { ProxyPoolDto, proxyPoolView, ProxyPoolView, UpdateProxyPoolDto } from './dto';

/** Proxy pools: named lists of upstream proxies a capture picks from (`proxy_pool`). */
@ApiBearerController('Proxy pools')
@Controller('proxy-pools')
export class ProxyPoolsController {
  constructor(
    private readonly pools: ProxyPoolsService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'List Proxy Pools', description: 'Newest first; proxies masked.' })
  @ApiPageResponse(ProxyPoolView, 'The account’s proxy pools')
  @ApiErrorResponses('validation_failed')
  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.pools.list(account.id, page), proxyPoolView);
  }

  @ApiOperation({ summary: 'Create Proxy Pool', description: 'Proxies are sealed at rest and never shown with their credentials.' })
  @ApiDataResponse(ProxyPoolView, { status: 201, description: 'The new pool' })
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed', 'conflict')
  @Post()
  @HttpCode(201)
  async create(@CurrentAccount() account: Account, @Body() dto: ProxyPoolDto) {
    const pool = await this.pools.create(account.id, { name: dto.name.trim(), proxies: dto.proxies, rotation: dto.rotation ?? 'round_robin' });
    return { success: true, data: proxyPoolView(pool) };
  }

  @ApiOperation({ summary: 'Get Proxy Pool' })
  @ApiIdParam('Proxy pool')
  @ApiDataResponse(ProxyPoolView, { description: 'The pool, proxies masked' })
  @ApiErrorResponses('not_found')
  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: proxyPoolView(await this.pools.get(account.id, id)) };
  }

  @ApiOperation({
    summary: 'Update Proxy Pool',
    description: 'Fields left out are kept; `proxies` replaces the list, a proxy sent back masked keeps the stored URL.',
  })
  @ApiIdParam('Proxy pool')
  @ApiDataResponse(ProxyPoolView, { description: 'The pool as saved' })
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed', 'not_found', 'conflict')
  @Put(':id')
  async update(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Body() dto: UpdateProxyPoolDto) {
    const pool = await this.pools.update(account.id, id, { name: dto.name?.trim(), proxies: dto.proxies, rotation: dto.rotation });
    return { success: true, data: proxyPoolView(pool) };
  }

  @ApiOperation({ summary: 'Delete Proxy Pool', description: 'Captures naming it fail from then on.' })
  @ApiIdParam('Proxy pool')
  @ApiSuccessResponse(MessageResponse, { description: 'Deleted' })
  @ApiErrorResponses('not_found')
  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.pools.delete(account.id, id);
    return { success: true, message: 'Proxy pool deleted' };
  }
}
