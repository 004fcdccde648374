import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { CurrentAccount } from '../../../shared/http/decorators';
import { IdParam } from '../../../shared/http/id-param';
import { idempotencyKey } from '../../../shared/http/idempotency-key';
import { PageQuery, paginate } from '../../../shared/http/pagination';
import { UuidParam } from '../../../shared/http/uuid-param';
import type { Account } from '../../accounts/domain/account';
import { ScenariosService } from '../application/scenarios.service';
import { CreateScenarioDto, executionView, ScenarioListQuery, scenarioView, UpdateScenarioDto } from './dto';

@Controller('scenarios')
export class ScenariosController {
  constructor(
    private readonly scenarios: ScenariosService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: ScenarioListQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.scenarios.list(account.id, page, { websiteId: query.website_id }), scenarioView);
  }

  @Post()
  @HttpCode(201)
  async create(@CurrentAccount() account: Account, @Body() dto: CreateScenarioDto) {
    const scenario = await this.scenarios.create(account.id, { name: dto.name, description: dto.description, websiteId: dto.website_id, steps: dto.steps });
    return { success: true, data: scenarioView(scenario) };
  }

  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: scenarioView(await this.scenarios.get(account.id, id)) };
  }

  @Put(':id')
  async update(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Body() dto: UpdateScenarioDto) {
    const scenario = await this.scenarios.update(account.id, id, { name: dto.name, description: dto.description, websiteId: dto.website_id, steps: dto.steps });
    return { success: true, data: scenarioView(scenario) };
  }

  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.scenarios.delete(account.id, id);
    return { success: true, message: 'Scenario deleted' };
  }

  /** Spec: 200 `{success, message, execution_id}` once the execution is durably queued. */
  @Post(':id/run')
  @HttpCode(200)
  async run(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Headers('idempotency-key') key: string | undefined) {
    const job = await this.scenarios.run(account.id, id, idempotencyKey(key));
    return { success: true, message: 'Scenario execution queued', execution_id: job.id };
  }

  @Get(':id/executions')
  async executions(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.scenarios.executions(account.id, id, page), executionView);
  }
}

@Controller('executions')
export class ExecutionsController {
  constructor(private readonly scenarios: ScenariosService) {}

  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', UuidParam) id: string) {
    return { success: true, data: executionView(await this.scenarios.execution(account.id, id)) };
  }
}
