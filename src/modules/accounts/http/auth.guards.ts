import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Clock } from '../../../shared/domain/clock';
import { UnauthorizedError } from '../../../shared/domain/domain-error';
import { AUTH_IF_PRESENTED, IS_PUBLIC, routeFlag } from '../../../shared/http/decorators';
import { RateLimiter } from '../../rate-limiting/application/rate-limiter';
import { RateLimitExceededError } from '../../rate-limiting/domain/quota';
import { setRateLimitHeaders } from '../../../shared/http/rate-limit-headers';
import { authorizationHeader } from '../../../shared/http/authorization';
import { Authenticator } from '../application/authenticator';
import { Account } from '../domain/account';
import { PlanNoApiAccessError } from '../domain/errors';

export type AuthenticatedRequest = FastifyRequest & { account?: Account };

/**
 * Deny by default: every route needs `Authorization: Bearer <token>` unless marked @Public().
 * Failed attempts are counted per client address; past the limit the address gets 429 instead of 401.
 * Both carry the X-RateLimit-* headers of that per-address window: no account is known, and it is the
 * limit that applies to the caller.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (routeFlag(this.reflector, context, IS_PUBLIC)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = authorizationHeader(request);
    if (header === undefined && routeFlag(this.reflector, context, AUTH_IF_PRESENTED)) return true;
    const account = await this.authenticator.authenticate(header);
    if (!account) {
      const reply = context.switchToHttp().getResponse<FastifyReply>();
      try {
        setRateLimitHeaders(reply, await this.limiter.recordAuthFailure(request.ip));
      } catch (err) {
        if (err instanceof RateLimitExceededError) {
          setRateLimitHeaders(reply, err.headerValues());
          // API.md: every 429 says when to come back.
          reply.header('Retry-After', String(err.retryAfterSeconds(this.limiter.now())));
        }
        throw err;
      }
      throw new UnauthorizedError();
    }
    request.account = account;
    return true;
  }
}

/**
 * Spec, Authentication 4: Free plan, expired or inactive subscription → 403 with `current_plan`. The 403 is
 * not counted (the account has no quota to spend), but like every API response it carries the headers:
 * the plan's minute window as it stands (limit 0 on Free).
 */
@Injectable()
export class ApiAccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly clock: Clock,
    private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (routeFlag(this.reflector, context, IS_PUBLIC)) return true;
    const account = context.switchToHttp().getRequest<AuthenticatedRequest>().account;
    if (!account && routeFlag(this.reflector, context, AUTH_IF_PRESENTED)) return true;
    if (!account) throw new UnauthorizedError();
    if (!account.hasApiAccess(this.clock.now())) {
      setRateLimitHeaders(context.switchToHttp().getResponse<FastifyReply>(), await this.limiter.peek(account.id, account.rateLimits()));
      throw new PlanNoApiAccessError(account.plan);
    }
    return true;
  }
}
