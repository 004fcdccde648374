import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IS_PUBLIC, routeFlag } from '../../../shared/http/decorators';
import { RateLimiter } from '../application/rate-limiter';
import { Limits, QuotaDecision, RateLimitExceededError } from '../domain/quota';
import { setRateLimitHeaders } from '../../../shared/http/rate-limit-headers';

/** What this guard needs of the authenticated caller (set by the auth guard, which runs first). */
interface RateLimitedSubject {
  id: number;
  rateLimits(): Limits;
}

export type RequestWithQuota = FastifyRequest & { account?: RateLimitedSubject; rateLimit?: QuotaDecision };

/**
 * Counts the request against the account's minute and hour windows and puts the three X-RateLimit-*
 * headers on the reply *before* the handler runs, so every authenticated response carries them:
 * successes, errors, PNG downloads and streamed ZIPs alike.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (routeFlag(this.reflector, context, IS_PUBLIC)) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<RequestWithQuota>();
    const reply = http.getResponse<FastifyReply>();
    if (!request.account) return true;
    const decision = await this.limiter.consume(request.account.id, request.account.rateLimits());
    request.rateLimit = decision;
    setRateLimitHeaders(reply, decision);
    if (decision.exceeded) {
      const error = new RateLimitExceededError(decision.exceeded.window, decision.exceeded.limit, decision.exceeded.current);
      reply.header('Retry-After', String(error.retryAfterSeconds(this.limiter.now())));
      throw error;
    }
    return true;
  }
}
