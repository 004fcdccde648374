import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { CurrentAccount } from '../../../shared/http/decorators';
import { ApiBearerController, ApiDataResponse, ApiErrorResponses, ApiPageResponse, ApiUuidParam } from '../../../shared/http/openapi';
import { paginate } from '../../../shared/http/pagination';
import { UuidParam } from '../../../shared/http/uuid-param';
import { clientGone } from '../../../shared/http/client-gone';
import { JobsService } from '../application/jobs.service';
import { JobListQuery, jobView, WaitQuery } from './dto';
import { JobView } from './openapi';

/** Only the account's id: jobs knows no other context (the accounts guard puts the whole Account there). */
type AccountId = { id: number };

/** Not in the spec, needed by every user (API.md): where is my screenshot? */
@ApiBearerController('Jobs')
@Controller('jobs')
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'List jobs', description: 'Capture jobs and scenario runs of the account.' })
  @ApiPageResponse(JobView, 'The account’s jobs')
  @ApiErrorResponses('validation_failed')
  @Get()
  async list(@CurrentAccount() account: AccountId, @Query() query: JobListQuery, @Req() request: FastifyRequest) {
    const filter = { status: query.status, websiteId: query.website_id };
    return paginate(request, this.config.publicUrl, query, (page) => this.jobs.list(account.id, page, filter), jobView);
  }

  @ApiOperation({
    summary: 'Get a job',
    description:
      'Where a capture is: queued → running → succeeded (screenshot_id set) | failed (error set). With `?wait=N` (0..30) the answer ' +
      'comes as soon as the job ends, or after N seconds with its current state: one request, counted once.',
  })
  @ApiUuidParam('Job')
  @ApiDataResponse(JobView, { description: 'The job' })
  @ApiErrorResponses('not_found', 'validation_failed')
  @Get(':id')
  async get(
    @CurrentAccount() account: AccountId,
    @Param('id', UuidParam) id: string,
    @Query() query: WaitQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return { success: true, data: jobView(await this.jobs.getWhenFinished(account.id, id, query.wait ?? 0, clientGone(reply))) };
  }
}
