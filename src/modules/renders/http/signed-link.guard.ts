import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Clock } from '../../../shared/domain/clock';
import { UnauthorizedError } from '../../../shared/domain/domain-error';
import { setRateLimitHeaders } from '../../../shared/http/rate-limit-headers';
import type { Account } from '../../accounts/domain/account';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { RateLimiter } from '../../rate-limiting/application/rate-limiter';
import { RateLimitExceededError } from '../../rate-limiting/domain/quota';
import { SignedRenders } from '../application/signed-renders';

export type SignedRequest = FastifyRequest & { account?: Account; signedLink?: boolean };

/**
 * GET /render without an Authorization header (the global guards let it through: @AuthIfPresented) is a signed
 * link (API.md, Signed links): the raw query, as sent, authenticates the render key's account (403
 * `invalid_signature` / `link_expired`), then its plan and its rate limits apply exactly as to a bearer request.
 */
@Injectable()
export class SignedLinkGuard implements CanActivate {
  constructor(
    private readonly signedRenders: SignedRenders,
    private readonly limiter: RateLimiter,
    private readonly clock: Clock,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<SignedRequest>();
    if (request.account) return true;
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const at = request.url.indexOf('?');
    const rawQuery = at === -1 ? '' : request.url.slice(at + 1);
    if (!/(^|&)signature=/.test(rawQuery)) throw new UnauthorizedError();
    const account = await this.signedRenders.accountOf(rawQuery);
    if (!account.hasApiAccess(this.clock.now())) {
      setRateLimitHeaders(reply, await this.limiter.peek(account.id, account.rateLimits()));
      throw new PlanNoApiAccessError(account.plan);
    }
    const decision = await this.limiter.consume(account.id, account.rateLimits());
    setRateLimitHeaders(reply, decision);
    if (decision.exceeded) {
      const error = new RateLimitExceededError(decision.exceeded.window, decision.exceeded.limit, decision.exceeded.current);
      reply.header('Retry-After', String(error.retryAfterSeconds(this.limiter.now())));
      throw error;
    }
    request.account = account;
    request.signedLink = true;
    return true;
  }
}
