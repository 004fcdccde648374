import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, Res, StreamableFile, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { replyWithStoredFile } from '../../../shared/http/conditional';
import { CurrentAccount } from '../../../shared/http/decorators';
import { IdParam } from '../../../shared/http/id-param';
import { idempotencyKey } from '../../../shared/http/idempotency-key';
import {
  ApiBearerController,
  ApiDataResponse,
  ApiErrorResponses,
  ApiFileResponse,
  ApiIdempotencyKey,
  ApiIdParam,
  ApiPageResponse,
  ApiSuccessResponse,
  MessageResponse,
} from '../../../shared/http/openapi';
import { PageQuery, paginate } from '../../../shared/http/pagination';
import type { Account } from '../../accounts/domain/account';
import { CaptureJobsService } from '../application/capture-jobs.service';
import { ScreenshotsService } from '../application/screenshots.service';
import { BulkDownloadPlanGuard } from './bulk-download-plan.guard';
import { TakeScreenshotDto, toCaptureOptions } from '../../../shared/http/capture-option-fields';
import { BulkDownloadDto, ScreenshotListQuery, screenshotView } from './dto';
import { JobQueuedResponse, ScreenshotView } from './openapi';

const ATTACHMENT = { 'Content-Disposition': { description: 'attachment; filename="…"', schema: { type: 'string' } } };

@ApiBearerController('Websites')
@Controller()
export class TakeScreenshotController {
  constructor(private readonly captureJobs: CaptureJobsService) {}

  /** Spec: 200 `{success, message, job_id}`; the job is durably queued before the answer. */
  @ApiOperation({
    summary: 'Take Screenshot',
    description: 'Queues a capture of the website; the job is stored and handed to the queue before the answer. Follow it with GET /jobs/{id}.',
  })
  @ApiIdParam('Website')
  @ApiIdempotencyKey()
  @ApiBody({ type: TakeScreenshotDto, required: false })
  @ApiSuccessResponse(JobQueuedResponse, { description: 'Queued' })
  @ApiErrorResponses('bad_request', 'not_found', 'conflict', 'payload_too_large', 'validation_failed')
  @Post('websites/:id/screenshot')
  @HttpCode(200)
  async take(
    @CurrentAccount() account: Account,
    @Param('id', IdParam) id: number,
    @Body() dto: TakeScreenshotDto,
    @Headers('idempotency-key') key: string | undefined,
  ) {
    const job = await this.captureJobs.requestCapture(account.id, id, toCaptureOptions(dto), idempotencyKey(key));
    return { success: true, message: 'Screenshot job queued', job_id: job.id };
  }
}

@ApiBearerController('Websites')
@Controller()
export class WebsiteChangesController {
  constructor(
    private readonly screenshots: ScreenshotsService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({
    summary: 'List Website Changes',
    description:
      'Change history: the website’s screenshots whose comparison with the previous comparable capture found a change (`change.changed: true`), newest first.',
  })
  @ApiIdParam('Website')
  @ApiPageResponse(ScreenshotView, 'Screenshots with changed: true')
  @ApiErrorResponses('not_found', 'validation_failed')
  @Get('websites/:id/changes')
  async changes(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.screenshots.changesOf(account.id, id, page), screenshotView);
  }
}

@ApiBearerController('Screenshots')
@Controller('screenshots')
export class ScreenshotsController {
  constructor(
    private readonly screenshots: ScreenshotsService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'List Screenshots' })
  @ApiPageResponse(ScreenshotView, 'The account’s screenshots')
  @ApiErrorResponses('validation_failed')
  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: ScreenshotListQuery, @Req() request: FastifyRequest) {
    const filter = { websiteId: query.website_id, status: query.status, scenarioId: query.scenario_id };
    return paginate(request, this.config.publicUrl, query, (page) => this.screenshots.list(account.id, page, filter), screenshotView);
  }

  /** Pro and Business only; a streamed ZIP of up to 100 of the caller's screenshots. */
  @ApiOperation({ summary: 'Bulk Download', description: 'Pro and Business plans. All ids must be the caller’s; entries are named `<id>-<website-name>.png`.' })
  @ApiFileResponse('application/zip', 'A streamed ZIP of the PNGs', { headers: ATTACHMENT })
  @ApiErrorResponses('bad_request', 'plan_no_api_access', 'plan_upgrade_required', 'not_found', 'payload_too_large', 'validation_failed')
  @Post('download-bulk')
  @UseGuards(BulkDownloadPlanGuard)
  @HttpCode(200)
  async bulk(@CurrentAccount() account: Account, @Body() dto: BulkDownloadDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const archive = await this.screenshots.zipArchive(account, dto.screenshot_ids);
    reply.header('Content-Type', 'application/zip');
    reply.header('Content-Disposition', `attachment; filename="screenshots-${Date.now()}.zip"`);
    return new StreamableFile(archive, { type: 'application/zip' });
  }

  @ApiOperation({ summary: 'Get Screenshot' })
  @ApiIdParam('Screenshot')
  @ApiDataResponse(ScreenshotView, { description: 'The screenshot' })
  @ApiErrorResponses('not_found')
  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: screenshotView(await this.screenshots.get(account.id, id)) };
  }

  @ApiOperation({ summary: 'Download Screenshot' })
  @ApiIdParam('Screenshot')
  @ApiFileResponse(
    ['image/png', 'image/jpeg', 'image/webp', 'application/pdf'],
    'The file in its format, as an attachment named `<website-name>-<id>.<png|jpg|webp|pdf>`',
    {
      conditional: true,
      headers: ATTACHMENT,
    },
  )
  @ApiErrorResponses('not_found')
  @Get(':id/download')
  async download(
    @CurrentAccount() account: Account,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return replyWithStoredFile(reply, ifNoneMatch, await this.screenshots.download(account.id, id), 'attachment');
  }

  @ApiOperation({ summary: 'Delete Screenshot', description: 'Deletes the row, the PNG and its thumbnail.' })
  @ApiIdParam('Screenshot')
  @ApiSuccessResponse(MessageResponse, { description: 'Deleted' })
  @ApiErrorResponses('not_found')
  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.screenshots.delete(account.id, id);
    return { success: true, message: 'Screenshot deleted' };
  }
}
