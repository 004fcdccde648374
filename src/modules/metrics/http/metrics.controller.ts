import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { UnauthorizedError } from '../../../shared/domain/domain-error';
import { Public } from '../../../shared/http/decorators';
import { authorizationHeader } from '../../../shared/http/authorization';
import { Metrics } from '../../../shared/metrics/metrics';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Whether `header` is `Bearer <expected>`; compared as digests, so the time taken says nothing about the token. */
export function presentsToken(header: string | undefined, expected: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1]), digest(expected));
}

/**
 * Prometheus' scrape target: this process's metrics. For operators, not API clients, so it is left out of
 * the OpenAPI document, asks for no API token and counts against no rate limit (@Public, like /health); with
 * METRICS_TOKEN set it asks for that bearer token instead.
 */
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
  ) {}

  @Public()
  @Get('metrics')
  async scrape(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const token = this.config.metricsToken;
    if (token !== null && !presentsToken(authorizationHeader(request), token)) throw new UnauthorizedError();
    const { contentType, body } = await this.metrics.scrape();
    reply.header('content-type', contentType).header('cache-control', 'no-store');
    return body;
  }
}
