import { ArgumentsHost, Catch, ExceptionFilter, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimitExceededError } from '../../rate-limiting/domain/quota';
import { Clock } from '../../../shared/domain/clock';
import { toErrorResponse } from '../../../shared/http/error-filter';
import { SignInRequired } from './guards';
import { errorPage } from './views/pages/error-page';

/**
 * Errors on dashboard routes become pages, not JSON: the same status and message the API would give
 * (one mapping, toErrorResponse), shown in the dashboard's layout. A missing session leads to sign-in.
 */
@Catch()
@Injectable()
export class DashboardErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Dashboard');

  constructor(private readonly clock: Clock) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    if (reply.sent) return;
    if (exception instanceof SignInRequired) {
      const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
      reply.status(303).header('Location', `/dashboard/login${next}`).send();
      return;
    }
    reply.removeHeader('content-disposition');
    const { status, body } = toErrorResponse(exception, this.logger);
    if (exception instanceof RateLimitExceededError) reply.header('Retry-After', String(exception.retryAfterSeconds(this.clock.now())));
    const message = typeof body.message === 'string' && status === 429 ? body.message : String(body.error);
    reply.status(status).header('Content-Type', 'text/html; charset=utf-8').send(errorPage(status, message).toString());
  }
}
