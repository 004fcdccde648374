import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { CurrentAccount } from '../../../shared/http/decorators';
import { IdParam } from '../../../shared/http/id-param';
import { idempotencyKey } from '../../../shared/http/idempotency-key';
import {
  ApiBearerController,
  ApiDataResponse,
  ApiErrorResponses,
  ApiIdempotencyKey,
  ApiIdParam,
  ApiPageResponse,
  ApiSuccessResponse,
  ApiUuidParam,
  MessageResponse,
} from '../../../shared/http/openapi';
import { PageQuery, paginate } from '../../../shared/http/pagination';
import { UuidParam } from '../../../shared/http/uuid-param';
import { clientGone } from '../../../shared/http/client-gone';
import { WaitQuery } from '../../jobs/http/dto';
import type { Account } from '../../accounts/domain/account';
import { ScenariosService } from '../application/scenarios.service';
import { CreateScenarioDto, executionView, ScenarioListQuery, scenarioView, UpdateScenarioDto } from './dto';
import { ExecutionQueuedResponse, ExecutionView, ScenarioView, STEP_SCHEMAS } from './openapi';

@ApiBearerController('Scenarios')
@ApiExtraModels(...STEP_SCHEMAS)
@Controller('scenarios')
export class ScenariosController {
  constructor(
    private readonly scenarios: ScenariosService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'List Scenarios' })
  @ApiPageResponse(ScenarioView, 'The account’s scenarios')
  @ApiErrorResponses('validation_failed')
  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: ScenarioListQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.scenarios.list(account.id, page, { websiteId: query.website_id }), scenarioView);
  }

  @ApiOperation({ summary: 'Create Scenario' })
  @ApiDataResponse(ScenarioView, { status: 201, description: 'The new scenario' })
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed')
  @Post()
  @HttpCode(201)
  async create(@CurrentAccount() account: Account, @Body() dto: CreateScenarioDto) {
    const scenario = await this.scenarios.create(account.id, {
      name: dto.name,
      description: dto.description,
      websiteId: dto.website_id,
      sessionId: dto.session_id,
      steps: dto.steps,
    });
    return { success: true, data: scenarioView(scenario) };
  }

  @ApiOperation({ summary: 'Get Scenario' })
  @ApiIdParam('Scenario')
  @ApiDataResponse(ScenarioView, { description: 'The scenario' })
  @ApiErrorResponses('not_found')
  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: scenarioView(await this.scenarios.get(account.id, id)) };
  }

  @ApiOperation({ summary: 'Update Scenario', description: 'Partial: only the fields sent change; `steps` replaces the whole list.' })
  @ApiIdParam('Scenario')
  @ApiDataResponse(ScenarioView, { description: 'The updated scenario' })
  @ApiErrorResponses('bad_request', 'not_found', 'payload_too_large', 'validation_failed')
  @Put(':id')
  async update(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Body() dto: UpdateScenarioDto) {
    const scenario = await this.scenarios.update(account.id, id, {
      name: dto.name,
      description: dto.description,
      websiteId: dto.website_id,
      sessionId: dto.session_id,
      steps: dto.steps,
    });
    return { success: true, data: scenarioView(scenario) };
  }

  @ApiOperation({ summary: 'Delete Scenario' })
  @ApiIdParam('Scenario')
  @ApiSuccessResponse(MessageResponse, { description: 'Deleted' })
  @ApiErrorResponses('not_found')
  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.scenarios.delete(account.id, id);
    return { success: true, message: 'Scenario deleted' };
  }

  /** Spec: 200 `{success, message, execution_id}` once the execution is durably queued. */
  @ApiOperation({
    summary: 'Run Scenario',
    description: 'Queues a run: the website’s URL at its viewport, then the steps in order, then a final screenshot. Follow it with GET /executions/{id}.',
  })
  @ApiIdParam('Scenario')
  @ApiIdempotencyKey()
  @ApiSuccessResponse(ExecutionQueuedResponse, { description: 'Queued' })
  @ApiErrorResponses('not_found', 'conflict', 'validation_failed')
  @Post(':id/run')
  @HttpCode(200)
  async run(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Headers('idempotency-key') key: string | undefined) {
    const job = await this.scenarios.run(account.id, id, idempotencyKey(key));
    return { success: true, message: 'Scenario execution queued', execution_id: job.id };
  }

  @ApiOperation({ summary: 'List a scenario’s executions' })
  @ApiIdParam('Scenario')
  @ApiPageResponse(ExecutionView, 'The scenario’s runs')
  @ApiErrorResponses('not_found', 'validation_failed')
  @Get(':id/executions')
  async executions(@CurrentAccount() account: Account, @Param('id', IdParam) id: number, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.scenarios.executions(account.id, id, page), executionView);
  }
}

@ApiBearerController('Scenarios')
@Controller('executions')
export class ExecutionsController {
  constructor(private readonly scenarios: ScenariosService) {}

  @ApiOperation({
    summary: 'Get an execution',
    description:
      'Per-step status, duration and error, and the screenshots the run stored. With `?wait=N` (0..30) the answer comes as soon as ' +
      'the run ends, or after N seconds with its current state.',
  })
  @ApiUuidParam('Execution')
  @ApiDataResponse(ExecutionView, { description: 'The execution' })
  @ApiErrorResponses('not_found', 'validation_failed')
  @Get(':id')
  async get(
    @CurrentAccount() account: Account,
    @Param('id', UuidParam) id: string,
    @Query() query: WaitQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return { success: true, data: executionView(await this.scenarios.executionWhenFinished(account.id, id, query.wait ?? 0, clientGone(reply))) };
  }
}
