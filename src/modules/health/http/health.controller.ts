import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { Public } from '../../../shared/http/decorators';
import { DependencyProbe } from '../infrastructure/dependency-probe';

/** Spec, Utility: public and not rate-limited; 503 "degraded" when the database or the queue is unreachable. */
@Controller()
export class HealthController {
  constructor(
    private readonly probe: DependencyProbe,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  @Public()
  @Get('health')
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const healthy = await this.probe.allReachable();
    if (!healthy) reply.status(503);
    return { status: healthy ? 'ok' : 'degraded', timestamp: this.clock.now().toISOString(), api_version: this.config.apiVersion };
  }
}
