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
import { SchedulesService } from '../application/schedules.service';
import { ScheduleChanges } from '../domain/schedule';
import { CreateScheduleDto, scheduleView, UpdateScheduleDto } from './dto';
import { ScheduleView } from './openapi';

function toChanges(dto: UpdateScheduleDto): ScheduleChanges {
  const changes: ScheduleChanges = {};
  if (dto.name !== undefined) changes.name = dto.name;
  if (dto.website_id !== undefined) changes.websiteId = dto.website_id;
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
