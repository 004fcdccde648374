import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiProduces, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { clientGone } from '../../../shared/http/client-gone';
import { CurrentAccount, Public } from '../../../shared/http/decorators';
import { ApiBearerController, ApiDataResponse, ApiErrorResponses, ApiFileResponse } from '../../../shared/http/openapi';
import { requestOrigin } from '../../../shared/http/pagination';
import { UuidParam } from '../../../shared/http/uuid-param';
import { createValidationPipe } from '../../../shared/http/validation';
import { toCaptureOptions } from '../../../shared/http/capture-option-fields';
import { UrlPolicy } from '../../../shared/url-policy';
import type { Account } from '../../accounts/domain/account';
import { RenderLinks } from '../application/render-links';
import { RenderInput, RendersService } from '../application/renders.service';
import { RenderDto } from './dto';
import { RenderView } from './openapi';
import { CAPTURE_HEADERS, cacheHeaders, renderView, replyWithRender } from './render-reply';
import { renderQueryToBody } from './render-query';

const FILE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'application/pdf'];

const RENDER_HEADERS = {
  'X-Cache': { description: '`HIT` (answered from the cache, no capture) or `MISS`', schema: { type: 'string', enum: ['HIT', 'MISS'] } },
  Age: { description: 'On a HIT: seconds since the entry was captured', schema: { type: 'integer' } },
  'X-Render-Id': { description: 'The render (and its job)', schema: { type: 'string', format: 'uuid' } },
  ...Object.fromEntries(Object.entries(CAPTURE_HEADERS).map(([name, description]) => [name, { description, schema: { type: 'string' } }])),
};

const DESCRIPTION =
  'Captures the URL and answers the file itself (or, with `response_type=json`, a signed link to it). Every option of Take Screenshot ' +
  'applies; the URL policy and the rate limits apply as to any request (one render is one request). With `cache_ttl` > 0 an identical ' +
  'render (same account, URL and options that change the picture, same `cache_key`) is answered from storage (`X-Cache: HIT`); ' +
  'identical renders in flight share one capture. See docs/render.md.';

function inputOf(dto: RenderDto): RenderInput {
  return {
    url: dto.url,
    options: toCaptureOptions(dto),
    ttlSeconds: dto.cache_ttl ?? 0,
    cacheKey: dto.cache_key ?? null,
    fresh: dto.fresh === true,
    linked: dto.response_type === 'json',
  };
}

@ApiBearerController('Render')
@Controller('render')
export class RenderController {
  /** GET's query goes through the very pipe (and DTO) POST's body does, once its strings are typed. */
  private readonly pipe;

  constructor(
    private readonly renders: RendersService,
    private readonly links: RenderLinks,
    private readonly config: AppConfig,
    urlPolicy: UrlPolicy,
  ) {
    this.pipe = createValidationPipe({ urlPolicy });
  }

  @ApiOperation({ summary: 'Render (query)', description: `${DESCRIPTION} Query values are strings: \`full_page=true\`, \`viewport_width=390\`.` })
  @ApiQuery({ name: 'url', required: true, type: 'string', description: 'The page; every field of RenderRequest is a query parameter too' })
  @ApiFileResponse(FILE_TYPES, 'The file in its format', { headers: RENDER_HEADERS })
  @ApiDataResponse(RenderView, { description: 'response_type=json' })
  @ApiErrorResponses('validation_failed', 'capture_failed', 'capture_timeout')
  @Get()
  async get(
    @CurrentAccount() account: Account,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const dto = (await this.pipe.transform(renderQueryToBody(query), { type: 'query', metatype: RenderDto })) as RenderDto;
    return this.answer(account, dto, request, reply);
  }

  @ApiOperation({ summary: 'Render (body)', description: DESCRIPTION })
  @ApiBody({ type: RenderDto })
  @ApiProduces('application/json', ...FILE_TYPES)
  @ApiFileResponse(FILE_TYPES, 'The file in its format', { headers: RENDER_HEADERS })
  @ApiDataResponse(RenderView, { description: 'response_type=json' })
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed', 'capture_failed', 'capture_timeout')
  @Post()
  @HttpCode(200)
  async post(@CurrentAccount() account: Account, @Body() dto: RenderDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.answer(account, dto, request, reply);
  }

  private async answer(account: Account, dto: RenderDto, request: FastifyRequest, reply: FastifyReply) {
    const outcome = await this.renders.render(account.id, inputOf(dto), clientGone(reply));
    cacheHeaders(reply, outcome);
    if (dto.response_type === 'json') {
      const link = this.links.linkOf(outcome.render);
      return {
        success: true,
        data: renderView(outcome.render, { url: `${requestOrigin(request, this.config.publicUrl)}${link.path}`, expiresAt: link.expiresAt }),
      };
    }
    return replyWithRender(reply, outcome.render, this.renders.open(outcome.render), 'private, no-store');
  }
}

/** The signed link of a json answer: no token, the signature is the credential. */
@Controller('renders')
export class RenderLinkController {
  constructor(
    private readonly renders: RendersService,
    private readonly links: RenderLinks,
  ) {}

  @ApiOperation({
    summary: 'Rendered file (signed link)',
    description: 'The `url` of a json render answer; no token. 403 `invalid_signature` or `link_expired`.',
  })
  @ApiResponse({
    status: 200,
    description: 'The file',
    content: Object.fromEntries(FILE_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
  })
  @Public()
  @Get(':id')
  async get(
    @Param('id', UuidParam) id: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    this.links.verify(id, typeof query.expires === 'string' ? query.expires : undefined, typeof query.signature === 'string' ? query.signature : undefined);
    const render = await this.renders.kept(id);
    const remaining = Math.max(0, Math.floor((Number(query.expires) * 1000 - Date.now()) / 1000));
    return replyWithRender(reply, render, this.renders.open(render), `public, max-age=${remaining}`);
  }
}
