import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { Public } from '../../../shared/http/decorators';
import { DependencyProbe } from '../application/dependency-probe';
import { HealthResponse } from './openapi';

/** Spec, Utility: public and not rate-limited; 503 "degraded" when the database or the queue is unreachable. */
@ApiTags('Utility')
@Controller()
export class HealthController {
  constructor(
    private readonly probe: DependencyProbe,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'Health Check', description: 'No token needed; not counted against any limit and without X-RateLimit-* headers.' })
  @ApiResponse({ status: 200, description: 'Database and queue reachable', type: HealthResponse })
  @ApiResponse({ status: 503, description: 'Degraded: the database or the queue is unreachable', type: HealthResponse })
  @Public()
  @Get('health')
  async health(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthResponse> {
    const healthy = await this.probe.allReachable();
    if (!healthy) reply.status(503);
    return { status: healthy ? 'ok' : 'degraded', timestamp: this.clock.now().toISOString(), api_version: this.config.apiVersion };
  }
}
