import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { CurrentAccount } from '../../../shared/http/decorators';
import { IdParam } from '../../../shared/http/id-param';
import {
  ApiBearerController,
  ApiDataResponse,
  ApiErrorResponses,
  ApiIdempotencyKey,
  ApiIdParam,
  ApiPageResponse,
  ApiSuccessResponse,
  MessageResponse,
} from '../../../shared/http/openapi';
import { PageQuery, paginate } from '../../../shared/http/pagination';
import type { Account } from '../../accounts/domain/account';
import { SchedulesService } from '../application/schedules.service';
import { ScheduleChanges } from '../domain/schedule';
import { CreateScheduleDto, scheduleView, UpdateScheduleDto } from './dto';
import { ScheduleRunQueuedResponse, ScheduleView } from './openapi';
import { idempotencyKey } from '../../../shared/http/idempotency-key';

function toChanges(dto: UpdateScheduleDto): ScheduleChanges {
  const changes: ScheduleChanges = {};
  if (dto.name !== undefined) changes.name = dto.name;
  if (dto.website_id !== undefined) changes.websiteId = dto.website_id;
  if (dto.scenario_id !== undefined) changes.scenarioId = dto.scenario_id;
  if (dto.session_id !== undefined) changes.sessionId = dto.session_id;
  if (dto.frequency !== undefined) changes.frequency = dto.frequency;
  if (dto.time !== undefined) changes.time = dto.time;
  if (dto.timezone !== undefined) changes.timezone = dto.timezone;
  if (dto.day_of_week !== undefined) changes.dayOfWeek = dto.day_of_week;
  if (dto.enabled !== undefined) changes.enabled = dto.enabled;
  return changes;
}

@ApiBearerController('Schedules')
@Controller('schedules')
export class SchedulesController {
  constructor(
    private readonly schedules: SchedulesService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'List Schedules' })
  @ApiPageResponse(ScheduleView, 'The account’s schedules')
  @ApiErrorResponses('validation_failed')
  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.schedules.list(account.id, page), scheduleView);
  }

  @ApiOperation({ summary: 'Create Schedule' })
  @ApiDataResponse(ScheduleView, { status: 201, description: 'The new schedule, with next_run_at' })
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed')
  @Post()
  @HttpCode(201)
  async create(@CurrentAccount() account: Account, @Body() dto: CreateScheduleDto) {
    const schedule = await this.schedules.create({
      accountId: account.id,
      websiteId: dto.website_id,
      scenarioId: dto.scenario_id,
      sessionId: dto.session_id,
      name: dto.name,
      frequency: dto.frequency,
      time: dto.time,
      timezone: dto.timezone,
      dayOfWeek: dto.day_of_week,
      enabled: dto.enabled,
    });
    return { success: true, data: scheduleView(schedule) };
  }

  @ApiOperation({ summary: 'Get Schedule' })
  @ApiIdParam('Schedule')
  @ApiDataResponse(ScheduleView, { description: 'The schedule' })
  @ApiErrorResponses('not_found')
  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: scheduleView(await this.schedules.get(account.id, id)) };
  }

  @ApiOperation({ summary: 'Update Schedule', description: 'Partial: only the fields sent change (`enabled` pauses or resumes it).' })
  @ApiIdParam('Schedule')
  @ApiDataResponse(ScheduleView, { description: 'The updated schedule' })
  @ApiErrorResponses('bad_request', 'not_found', 'payload_too_large', 'validation_failed')
  @Put(':id')
  async update(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Body() dto: UpdateScheduleDto) {
    return { success: true, data: scheduleView(await this.schedules.update(account.id, id, toChanges(dto))) };
  }

  @ApiOperation({
    summary: 'Run Schedule now',
    description:
      'Queues what the schedule runs, at once: a capture of its website, or a run of its scenario. Its timing is left alone (next_run_at ' +
      'does not move, the next occurrence still fires); last_run_at and last_job_id record the run. Works on a disabled schedule and a ' +
      'paused website (a person asked). Counts as one request for the rate limits. `Idempotency-Key` makes a retry return the same job.',
  })
  @ApiIdParam('Schedule')
  @ApiIdempotencyKey()
  @ApiSuccessResponse(ScheduleRunQueuedResponse, { status: 202, description: 'Queued' })
  @ApiErrorResponses('not_found', 'conflict')
  @Post(':id/run')
  @HttpCode(202)
  async run(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Headers('idempotency-key') key: string | undefined) {
    const { job, execution } = await this.schedules.runNow(account.id, id, idempotencyKey(key), 'api');
    return execution
      ? { success: true, message: 'Scenario execution queued', job_id: job.id, execution_id: job.id }
      : { success: true, message: 'Screenshot job queued', job_id: job.id };
  }

  @ApiOperation({ summary: 'Delete Schedule' })
  @ApiIdParam('Schedule')
  @ApiSuccessResponse(MessageResponse, { description: 'Deleted' })
  @ApiErrorResponses('not_found')
  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.schedules.delete(account.id, id);
    return { success: true, message: 'Schedule deleted' };
  }
}
