import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
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
import { SessionsService } from '../application/sessions.service';
import { CreateSessionDto, sessionFrom, sessionView, SessionView } from './dto';

/** Saved sessions: logged-in browser states captures start with (`session_id`). docs/sessions.md. */
@ApiBearerController('Sessions')
@Controller('sessions')
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'List Sessions', description: 'Newest first; cookie values and storage never shown.' })
  @ApiPageResponse(SessionView, 'The account’s saved sessions')
  @ApiErrorResponses('validation_failed')
  @Get()
  async list(@CurrentAccount() account: Account, @Query() query: PageQuery, @Req() request: FastifyRequest) {
    return paginate(request, this.config.publicUrl, query, (page) => this.sessions.list(account.id, page), sessionView);
  }

  @ApiOperation({
    summary: 'Create Session',
    description:
      'From a login scenario (`from.scenario_id`: its steps run as a job, the session is `pending` until they did), cookie objects, a Netscape cookies.txt or a Playwright storage state. Values are sealed at rest and never returned.',
  })
  @ApiDataResponse(SessionView, { status: 201, description: 'The new session' })
  @ApiErrorResponses('bad_request', 'payload_too_large', 'validation_failed', 'conflict')
  @Post()
  @HttpCode(201)
  async create(@CurrentAccount() account: Account, @Body() dto: CreateSessionDto) {
    const session = await this.sessions.create(account.id, {
      name: dto.name.trim(),
      loggedInSelector: dto.logged_in_selector ?? null,
      from: sessionFrom(dto.from),
    });
    return { success: true, data: sessionView(session) };
  }

  @ApiOperation({ summary: 'Get Session' })
  @ApiIdParam('Session')
  @ApiDataResponse(SessionView, { description: 'The session; values never shown' })
  @ApiErrorResponses('not_found')
  @Get(':id')
  async get(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: sessionView(await this.sessions.get(account.id, id)) };
  }

  @ApiOperation({
    summary: 'Refresh Session',
    description: 'Runs its login scenario again (a job; `pending` until it ran). A session made from cookies cannot log in by itself: 409.',
  })
  @ApiIdParam('Session')
  @ApiDataResponse(SessionView, { description: 'The session, pending' })
  @ApiErrorResponses('not_found', 'conflict')
  @Post(':id/refresh')
  @HttpCode(200)
  async refresh(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    return { success: true, data: sessionView(await this.sessions.refresh(account.id, id)) };
  }

  @ApiOperation({ summary: 'Delete Session', description: 'Refused (409, naming them) while a website’s capture options name it.' })
  @ApiIdParam('Session')
  @ApiSuccessResponse(MessageResponse, { description: 'Deleted' })
  @ApiErrorResponses('not_found', 'conflict')
  @Delete(':id')
  async delete(@CurrentAccount() account: Account, @Param('id', IdParam) id: number) {
    await this.sessions.delete(account.id, id);
    return { success: true, message: 'Session deleted' };
  }
}
