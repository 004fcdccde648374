import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { CurrentAccount } from '../../../shared/http/decorators';
import { IdParam } from '../../../shared/http/id-param';
import { PageQuery, paginate } from '../../../shared/http/pagination';
import type { Account } from '../../accounts/domain/account';
import { SchedulesService } from '../application/schedules.service';
import { ScheduleChanges } from '../domain/schedule';
import { CreateScheduleDto, scheduleView, UpdateScheduleDto } from './dto';

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

@Controller('schedules')
export class SchedulesController {
  constructor(
    private readonly schedules: SchedulesService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.schedules.list(account.id, page), scheduleView);
  }

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

  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: scheduleView(await this.schedules.get(account.id, id)) };
  }

  @Put(':id')
  async update(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Body() dto: UpdateScheduleDto) {
    return { success: true, data: scheduleView(await this.schedules.update(account.id, id, toChanges(dto))) };
  }

  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.schedules.delete(account.id, id);
    return { success: true, message: 'Schedule deleted' };
  }
}
