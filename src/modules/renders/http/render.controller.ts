import { applyDecorators, Body, Controller, UseGuards, Get, HttpCode, Param, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiQuery, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { clientGone } from '../../../shared/http/client-gone';
import { AuthIfPresented, CurrentAccount, Public } from '../../../shared/http/decorators';
import { ApiBearerController, ApiErrorResponses, ApiUuidParam, headerRefs, RATE_LIMIT_HEADERS } from '../../../shared/http/openapi';
import { requestOrigin } from '../../../shared/http/pagination';
import { UuidParam } from '../../../shared/http/uuid-param';
import { createValidationPipe, QueryMetadata } from '../../../shared/http/validation';
import { captureOptionQueryParameters, QueryParameterSpec, toCaptureOptions } from '../../../shared/http/capture-option-fields';
import { optionsSetOn } from '../../../shared/domain/capture-option-table';
import { UrlPolicy } from '../../../shared/url-policy';
import type { Account } from '../../accounts/domain/account';
import { RenderLinks } from '../application/render-links';
import { RenderInput, RendersService } from '../application/renders.service';
import { RENDER_FIELD_SCHEMAS, RenderDto } from './dto';
import { parseRenderFormats, RenderFormats } from '../domain/render-formats';
import { RenderView } from './openapi';
import { CAPTURE_HEADERS } from '../application/render-file';
import { cacheHeaders, publicCacheControl, renderView, replyWithRender } from './render-reply';
import { renderQueryToBody, SECRET_OPTIONS, secretsInQuery } from './render-query';
import { SignedLinkGuard, SignedRequest } from './signed-link.guard';

/** A signed link's own parameters (render-keys): not render options. */
const LINK_PARAMETERS = ['access_key', 'expires', 'signature'];
/** API.md: cache_ttl defaults to a day on signed links (an <img> shown to many is rendered once). */
const SIGNED_LINK_DEFAULT_TTL = 86_400;

const FILE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'application/pdf'];

const RENDER_HEADERS = {
  'X-Cache': { description: '`HIT` (answered from the cache, no capture) or `MISS`', schema: { type: 'string', enum: ['HIT', 'MISS'] } },
  Age: { description: 'On a HIT: seconds since the entry was captured', schema: { type: 'integer' } },
  'X-Render-Id': { description: 'The render (and its job)', schema: { type: 'string', format: 'uuid' } },
  ...Object.fromEntries(Object.entries(CAPTURE_HEADERS).map(([name, description]) => [name, { description, schema: { type: 'string' } }])),
};

/** 200: the file in its format, or (response_type=json) the json answer; the X-Cache and X-Capture-* headers. */
function ApiRenderResponse(): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(RenderView),
    ApiResponse({
      status: 200,
      description: 'The file in its format; with `response_type=json`, `{success, data}` with a signed link to it',
      headers: { ...headerRefs(Object.keys(RATE_LIMIT_HEADERS)), ...RENDER_HEADERS },
      content: {
        ...Object.fromEntries(FILE_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
        'application/json': {
          schema: {
            type: 'object',
            required: ['success', 'data'],
            properties: { success: { type: 'boolean', enum: [true] }, data: { $ref: getSchemaPath(RenderView) } },
          },
        },
      },
    }),
  );
}

/** A signed link's own parameters (API.md, Signed links; docs/render-keys.md), documented on GET /render. */
const LINK_QUERY: QueryParameterSpec[] = [
  {
    name: 'access_key',
    required: false,
    description: 'Signed links only (no Authorization header): the render key that signed the link (`rk_…`)',
    schema: { type: 'string', minLength: 1 },
  },
  {
    name: 'expires',
    required: false,
    description: 'Signed links only: when the link stops working, in unix seconds (signed with the rest; 403 `link_expired` after it)',
    schema: { type: 'integer', minimum: 0 },
  },
  {
    name: 'signature',
    required: false,
    description:
      'Signed links only, the last parameter: the lowercase hex HMAC-SHA256 of the query exactly as sent before `&signature=`, keyed ' +
      'with the render key’s secret (403 `invalid_signature` otherwise)',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
];

/**
 * GET /render's query parameters: the render's own fields, every capture option settable on a render (from the
 * capture-option table, secrets left out: refused in a query string) and a signed link's parameters.
 */
function ApiRenderQuery(): MethodDecorator {
  const own: QueryParameterSpec[] = Object.entries(RENDER_FIELD_SCHEMAS).map(([name, { description, ...schema }]) => ({
    name,
    required: name === 'url',
    description,
    schema,
  }));
  // `formats` is a field of the body (RenderDto), not of RENDER_FIELD_SCHEMAS: declared here as the query spells it.
  const formats: QueryParameterSpec = {
    name: 'formats',
    required: false,
    description:
      'response_type=json only, instead of `format`: several outputs of one page visit, comma-separated (`png,markdown,metadata`). At most one ' +
      'of png, jpeg, webp, pdf (the file `url` links to; else the first); the content formats (html, markdown, text, metadata) are inlined in ' +
      '`data.contents`. See docs/outputs.md.',
    schema: { type: 'string', example: 'png,markdown,metadata' },
  };
  const parameters = [...own, formats, ...captureOptionQueryParameters(optionsSetOn('render')), ...LINK_QUERY];
  return applyDecorators(...parameters.map((parameter) => ApiQuery(parameter)));
}

const DESCRIPTION =
  'Captures the URL and answers the file itself (or, with `response_type=json`, a signed link to it). Every option of Take Screenshot ' +
  'applies; the URL policy and the rate limits apply as to any request (one render is one request). With `cache_ttl` > 0 an identical ' +
  'render (same account, URL and options that change the picture, same `cache_key`) is answered from storage (`X-Cache: HIT`); ' +
  'identical renders in flight share one capture. See docs/render.md.';

/** 422 naming each secret option (cookies, headers, http_auth…) sent in the query string (render-query.ts). */
function refuseSecretsInQuery(query: Record<string, unknown>, signed: boolean): void {
  const secrets = secretsInQuery(query, signed);
  if (secrets.length > 0) throw new ValidationFailedError(secrets);
}

function inputOf(dto: RenderDto): RenderInput {
  const formats = formatsOf(dto);
  return {
    url: dto.url,
    options: formats ? { ...toCaptureOptions(dto), format: formats.file } : toCaptureOptions(dto),
    ...(formats?.contents.length ? { contents: formats.contents } : {}),
    ttlSeconds: dto.cache_ttl ?? 0,
    cacheKey: dto.cache_key ?? null,
    fresh: dto.fresh === true,
    linked: dto.response_type === 'json',
  };
}

/** `formats` (validated by the DTO): json only, and instead of `format`. */
function formatsOf(dto: RenderDto): RenderFormats | null {
  if (dto.formats === undefined) return null;
  const problems: Array<{ field: string; message: string }> = [];
  if (dto.response_type !== 'json') problems.push({ field: 'formats', message: 'formats needs response_type=json (an image answer is one file)' });
  if (dto.format !== undefined) problems.push({ field: 'formats', message: 'formats replaces format: send one of them' });
  if (problems.length > 0) throw new ValidationFailedError(problems);
  return parseRenderFormats(dto.formats) as RenderFormats;
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
    private readonly clock: Clock,
    urlPolicy: UrlPolicy,
  ) {
    this.pipe = createValidationPipe({ urlPolicy });
  }

  @ApiOperation({
    summary: 'Render (query)',
    description:
      `${DESCRIPTION} Query values are strings: \`full_page=true\`, \`viewport_width=390\`. Secret options (${SECRET_OPTIONS.map((name) => `\`${name}\``).join(', ')}) ` +
      'are refused in a query string (422): send them in a POST body, or use a saved session (`session_id`; docs/sessions.md). Without an ' +
      'Authorization header the query is a signed link (`access_key`, `expires`, `signature`; see docs/render-keys.md).',
  })
  @ApiRenderQuery()
  @ApiRenderResponse()
  @ApiErrorResponses('validation_failed', 'capture_failed', 'capture_timeout')
  @AuthIfPresented()
  @UseGuards(SignedLinkGuard)
  @Get()
  async get(
    @CurrentAccount() account: Account,
    @Query() query: Record<string, unknown>,
    @Req() request: SignedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const signed = request.signedLink === true;
    refuseSecretsInQuery(query, signed);
    const fields = signed ? Object.fromEntries(Object.entries(query).filter(([name]) => !LINK_PARAMETERS.includes(name))) : query;
    // Kept per account (QueryMetadata): how fast a query is checked must not tell one account what URLs another renders.
    const metadata: QueryMetadata = { type: 'query', metatype: RenderDto, keptFor: `account ${account.id}` };
    const dto = (await this.pipe.transform(renderQueryToBody(fields), metadata)) as RenderDto;
    if (signed && dto.cache_ttl === undefined) dto.cache_ttl = SIGNED_LINK_DEFAULT_TTL;
    // The guard has verified `expires` (when the link has one): a CDN must not keep the answer past it.
    const linkExpiresAt = signed && typeof query.expires === 'string' ? new Date(Number(query.expires) * 1000) : null;
    return this.answer(account, dto, request, reply, signed ? { linkExpiresAt } : null);
  }

  @ApiOperation({ summary: 'Render (body)', description: DESCRIPTION })
  @ApiBody({ type: RenderDto })
  @ApiRenderResponse()
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed', 'capture_failed', 'capture_timeout')
  @Post()
  @HttpCode(200)
  async post(
    @CurrentAccount() account: Account,
    @Body() dto: RenderDto,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    // The body is the place for secrets; a query string beside it (ignored otherwise) must not carry them.
    refuseSecretsInQuery(query, false);
    return this.answer(account, dto, request, reply);
  }

  private async answer(account: Account, dto: RenderDto, request: FastifyRequest, reply: FastifyReply, signed: { linkExpiresAt: Date | null } | null = null) {
    const outcome = await this.renders.render(account.id, inputOf(dto), clientGone(reply));
    cacheHeaders(reply, outcome);
    // A signed link's answer may be kept by a CDN for what is left of the entry's TTL (API.md, Render cache), and
    // never past the link's own `expires`.
    const cacheControl = signed
      ? publicCacheControl(this.clock.now(), outcome.render.expiresAt ?? this.clock.now(), signed.linkExpiresAt)
      : 'private, no-store';
    if (dto.response_type === 'json') {
      if (signed) reply.header('Cache-Control', cacheControl);
      const link = this.links.linkOf(outcome.render);
      const view = renderView(outcome.render, { url: `${requestOrigin(request, this.config.publicUrl)}${link.path}`, expiresAt: link.expiresAt });
      const contents = inputOf(dto).contents;
      return { success: true, data: contents ? { ...view, contents: await this.renders.contents(outcome.render, contents) } : view };
    }
    return replyWithRender(reply, outcome.render, await this.renders.open(outcome.render), cacheControl);
  }
}

/** The signed link of a json answer: no token, the signature is the credential. */
@ApiTags('Render')
@Controller('renders')
export class RenderLinkController {
  constructor(
    private readonly renders: RendersService,
    private readonly links: RenderLinks,
    private readonly clock: Clock,
  ) {}

  @ApiOperation({
    summary: 'Rendered file (signed link)',
    description: 'The `url` of a json render answer; no token. 403 `invalid_signature` or `link_expired`.',
  })
  @ApiUuidParam('Render')
  @ApiQuery({
    name: 'expires',
    required: true,
    description: 'Until when the link works, in unix seconds (as the json answer gave it)',
    schema: { type: 'integer', minimum: 0 },
  })
  @ApiQuery({ name: 'signature', required: true, description: 'The link’s signature, as the json answer gave it', schema: { type: 'string', minLength: 1 } })
  @ApiResponse({
    status: 200,
    description: 'The file in its format; `Cache-Control: public, max-age=<seconds left>`',
    content: Object.fromEntries(FILE_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
  })
  @ApiErrorResponses('invalid_signature', 'link_expired', 'not_found', 'unavailable')
  @Public()
  @Get(':id')
  async get(
    @Param('id', UuidParam) id: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    this.links.verify(id, typeof query.expires === 'string' ? query.expires : undefined, typeof query.signature === 'string' ? query.signature : undefined);
    const render = await this.renders.kept(id);
    const linkExpiresAt = new Date(Number(query.expires) * 1000);
    return replyWithRender(reply, render, await this.renders.open(render), publicCacheControl(this.clock.now(), linkExpiresAt));
  }
}
