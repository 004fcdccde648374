import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { CurrentAccount } from '../../../shared/http/decorators';
import { paginate } from '../../../shared/http/pagination';
import { UuidParam } from '../../../shared/http/uuid-param';
import type { Account } from '../../accounts/domain/account';
import { CaptureJobsService } from '../application/capture-jobs.service';
import { JobListQuery, jobView } from './dto';

/** Not in the spec, needed by every user (API.md): where is my screenshot? */
@Controller('jobs')
export class JobsController {
  constructor(
    private readonly captureJobs: CaptureJobsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: JobListQuery, @Req() request: FastifyRequest) {
    const filter = { status: query.status, websiteId: query.website_id };
    return paginate(request, this.config.publicUrl, query, (page) => this.captureJobs.list(account.id, page, filter), jobView);
  }

  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', UuidParam) id: string) {
    return { success: true, data: jobView(await this.captureJobs.get(account.id, id)) };
  }
}
