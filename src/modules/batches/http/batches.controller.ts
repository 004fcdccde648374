import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { CurrentAccount } from '../../../shared/http/decorators';
import {
  ApiBearerController,
  ApiDataResponse,
  ApiErrorResponses,
  ApiFileResponse,
  ApiPageResponse,
  ApiSuccessResponse,
  ApiUuidParam,
} from '../../../shared/http/openapi';
import { envelope, PageQuery, pageRequest, paginate } from '../../../shared/http/pagination';
import { UuidParam } from '../../../shared/http/uuid-param';
import type { Account } from '../../accounts/domain/account';
import { BatchesService } from '../application/batches.service';
import { batchItemView, batchView } from '../application/batch-view';
import { BatchCreatedResponse, BatchDetailResponse, BatchItemsQuery, BatchView, CreateBatchDto, toBatchInput } from './dto';

/** Batches: many URLs in one request, their progress, a ZIP of the results, cancel (docs/batches.md). */
@ApiBearerController('Batches')
@Controller('batches')
export class BatchesController {
  constructor(
    private readonly batches: BatchesService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({
    summary: 'Create Batch',
    description:
      'Queues a capture of every URL (`urls`, with the shared `options`) or item (`items`: a URL and its own options over `options`), at most the plan’s batch size (starter 100, pro 500, business 1,000). Every URL and option is checked first: one bad item is a 422 naming it (`items[3].viewport_width`) and nothing is created. The items take the account’s fair capture slots like any capture.',
  })
  @ApiSuccessResponse(BatchCreatedResponse, { status: 202, description: 'Written and queued' })
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed', 'unavailable')
  @Post()
  @HttpCode(202)
  async create(@CurrentAccount() account: Account, @Body() dto: CreateBatchDto) {
    const batch = await this.batches.create(account, toBatchInput(dto));
    return { success: true, id: batch.id, total: batch.total, status: batch.status, data: batchView(batch) };
  }

  @ApiOperation({ summary: 'List Batches', description: 'Newest first, with their counts (not their items).' })
  @ApiPageResponse(BatchView, 'The account’s batches')
  @ApiErrorResponses('validation_failed')
  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.batches.list(account.id, page), batchView);
  }

  @ApiOperation({
    summary: 'Get Batch',
    description:
      'The batch, its counts and one page of its items in the list’s order (`per_page` ≤ 100; `links.next` carries a cursor), each with its state, its file once captured, or its error. `status` filters the items.',
  })
  @ApiUuidParam('Batch')
  @ApiSuccessResponse(BatchDetailResponse, { description: 'The batch and a page of its items' })
  @ApiErrorResponses('not_found', 'validation_failed')
  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', UuidParam) id: string, @Query() query: BatchItemsQuery, @Req() request: FastifyRequest) {
    const page = pageRequest(query);
    const found = await this.batches.items(await this.batches.get(account.id, id), page, query.status);
    const batch = found.batch;
    const items = found.page.items.map((item) => batchItemView(item, batch.total, found.running.has(item.jobId)));
    const { data, meta, links } = envelope(request, this.config.publicUrl, items, found.page.total, page, found.page.edges);
    return { success: true, data: { ...batchView(batch), items: data }, meta, links };
  }

  @ApiOperation({
    summary: 'Download Batch',
    description:
      'A streamed ZIP of the files captured so far (named `<n>-<host-and-path>.<ext>`, n its place in the list from 1) and `results.csv`: one line per item — url, status, file, error.',
  })
  @ApiUuidParam('Batch')
  @ApiFileResponse('application/zip', 'The ZIP, streamed', {
    headers: { 'Content-Disposition': { description: 'attachment; filename="batch-<id>.zip"', schema: { type: 'string' } } },
  })
  @ApiErrorResponses('not_found')
  @Get(':id/download')
  async download(@CurrentAccount() account: Account, @Param('id', UuidParam) id: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const { batch, archive } = await this.batches.download(account.id, id);
    reply.header('Content-Type', 'application/zip');
    reply.header('Content-Disposition', `attachment; filename="batch-${batch.id}.zip"`);
    return new StreamableFile(archive, { type: 'application/zip' });
  }

  @ApiOperation({
    summary: 'Cancel Batch',
    description:
      'Items not started yet end `cancelled` (their jobs never run); running ones finish. The batch then ends `cancelled` and sends `batch.completed`.',
  })
  @ApiUuidParam('Batch')
  @ApiDataResponse(BatchView, { description: 'The batch after the cancel' })
  @ApiErrorResponses('not_found')
  @Delete(':id')
  async cancel(@CurrentAccount() account: Account, @Param('id', UuidParam) id: string) {
    return { success: true, data: batchView(await this.batches.cancel(account.id, id)) };
  }
}
