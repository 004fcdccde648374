import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { replyWithStoredImage } from '../../../shared/http/conditional';
import { CurrentAccount } from '../../../shared/http/decorators';
import { IdParam } from '../../../shared/http/id-param';
import { idempotencyKey } from '../../../shared/http/idempotency-key';
import { paginate } from '../../../shared/http/pagination';
import type { Account } from '../../accounts/domain/account';
import { CaptureJobsService } from '../application/capture-jobs.service';
import { ScreenshotsService } from '../application/screenshots.service';
import { zipStream } from '../infrastructure/zip-streamer';
import { BulkDownloadDto, ScreenshotListQuery, screenshotView, TakeScreenshotDto, toCaptureOptions } from './dto';

@Controller()
export class TakeScreenshotController {
  constructor(private readonly captureJobs: CaptureJobsService) {}

  /** Spec: 200 `{success, message, job_id}`; the job is durably queued before the answer. */
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

@Controller('screenshots')
export class ScreenshotsController {
  constructor(
    private readonly screenshots: ScreenshotsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: ScreenshotListQuery, @Req() request: FastifyRequest) {
    const filter = { websiteId: query.website_id, status: query.status, scenarioId: query.scenario_id };
    return paginate(request, this.config.publicUrl, query, (page) => this.screenshots.list(account.id, page, filter), screenshotView);
  }

  /** Pro and Business only; a streamed ZIP of up to 100 of the caller's screenshots. */
  @Post('download-bulk')
  @HttpCode(200)
  async bulk(@CurrentAccount() account: Account, @Body() dto: BulkDownloadDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const entries = await this.screenshots.zipEntries(account, dto.screenshot_ids);
    reply.header('Content-Type', 'application/zip');
    reply.header('Content-Disposition', `attachment; filename="screenshots-${Date.now()}.zip"`);
    return new StreamableFile(zipStream(entries), { type: 'application/zip' });
  }

  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: screenshotView(await this.screenshots.get(account.id, id)) };
  }

  @Get(':id/download')
  async download(
    @CurrentAccount() account: Account,
    @Param('id', IdParam) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const file = await this.screenshots.download(account.id, id);
    const body = () => {
      reply.header('Content-Disposition', `attachment; filename="${file.fileName}"`);
      return new StreamableFile(file.stream, { type: 'image/png', length: file.size });
    };
    return replyWithStoredImage(reply, ifNoneMatch, file.etag, body, () => file.stream.destroy());
  }

  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.screenshots.delete(account.id, id);
    return { success: true, message: 'Screenshot deleted' };
  }
}
