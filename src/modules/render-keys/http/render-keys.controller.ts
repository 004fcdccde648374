import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
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
import { RenderKeysService } from '../application/render-keys.service';
import { RENDER_KEY_LIMITS } from '../domain/render-key';
import { CreateRenderKeyDto, renderKeyView } from './dto';
import { RenderKeyView, RenderKeyWithSecretView } from './openapi';

/** Render keys: they sign `/render` links that work without a token (in an `<img src>`). */
@ApiBearerController('Render keys')
@Controller('render-keys')
export class RenderKeysController {
  constructor(
    private readonly keys: RenderKeysService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'List Render Keys', description: 'Newest first; never their secrets.' })
  @ApiPageResponse(RenderKeyView, 'The account’s render keys')
  @ApiErrorResponses('validation_failed')
  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.keys.list(account.id, page), renderKeyView);
  }

  @ApiOperation({
    summary: 'Create Render Key',
    description:
      'A key to sign `/render` links: `/render?url=…&access_key=<access_key>[&expires=<unix seconds>]&signature=<hex>`, where `signature` — ' +
      'the last parameter — is the lowercase hex HMAC-SHA256 of the query exactly as sent before `&signature=`, keyed with `secret`. ' +
      `The secret is in this answer only. At most ${RENDER_KEY_LIMITS.perAccount} keys per account.`,
  })
  @ApiDataResponse(RenderKeyWithSecretView, { status: 201, description: 'The new key, with its secret (shown this once)' })
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed')
  @Post()
  @HttpCode(201)
  async create(@CurrentAccount() account: Account, @Body() dto: CreateRenderKeyDto) {
    const key = await this.keys.create(account.id, dto?.name ?? null);
    return { success: true, data: { ...renderKeyView(key), secret: key.secret } };
  }

  @ApiOperation({ summary: 'Delete Render Key', description: 'Links signed with it answer 403 `invalid_signature` from then on.' })
  @ApiIdParam('Render key')
  @ApiSuccessResponse(MessageResponse, { description: 'Deleted' })
  @ApiErrorResponses('not_found')
  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.keys.delete(account.id, id);
    return { success: true, message: 'Render key deleted' };
  }
}
