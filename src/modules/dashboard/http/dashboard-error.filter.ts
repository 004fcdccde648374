import { ArgumentsHost, Catch, ExceptionFilter, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { RateLimitExceededError } from '../../rate-limiting/domain/quota';
import { Clock } from '../../../shared/domain/clock';
import { toErrorResponse } from '../../../shared/http/error-filter';
import { SignInService } from '../../accounts/application/sign-in.service';
import { AppConfig } from '../../../config/app-config';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { readCookie, SESSION_COOKIE } from './cookies';
import { formFields, type DashboardRequest, type DashboardViewer } from './dashboard-request';
import { keepDraft } from './form-drafts';
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

  constructor(
    private readonly clock: Clock,
    private readonly signIn: SignInService,
    private readonly secretBox: SecretBox,
    private readonly config: AppConfig,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): Promise<void> | void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<DashboardRequest>();
    if (reply.sent) return;
    if (exception instanceof SignInRequired) {
      reply.status(303).header('Location', this.signInAddress(request, reply)).send();
      return;
    }
    reply.removeHeader('content-disposition');
    const { status, body } = toErrorResponse(exception, this.logger);
    if (exception instanceof RateLimitExceededError) reply.header('Retry-After', String(exception.retryAfterSeconds(this.clock.now())));
    const message = typeof body.message === 'string' && status === 429 ? body.message : String(body.error);
    return this.viewerOf(request, status).then((viewer) => {
      reply
        .status(status)
        .header('Content-Type', 'text/html; charset=utf-8')
        .send(errorPage(status, message, viewer).toString());
    });
  }

  /**
   * Where a request without a live session goes: sign-in, back to the page afterwards (a GET), or — a form posted
   * after its session expired — to the form's page with what was typed kept as a draft (form-drafts.ts). For a post,
   * sign-in says why when a session cookie came with it (it expired, or was signed out elsewhere).
   */
  private signInAddress(request: DashboardRequest, reply: FastifyReply): string {
    const expired = readCookie(request, SESSION_COOKIE) !== undefined;
    const query = new URLSearchParams();
    if (request.method === 'GET' || request.method === 'HEAD') {
      // A page opened: back to it after sign-in, nothing lost (no word about why, as before).
      query.set('next', request.url);
    } else {
      const kept = keepDraft(reply, request, this.secretBox, this.config.publicUrl, formFields(request));
      if (kept) query.set('next', kept.page);
      if (expired || kept) query.set('notice', kept ? 'session-expired-kept' : 'session-expired');
    }
    const text = query.toString();
    return `/dashboard/login${text ? `?${text}` : ''}`;
  }

  /**
   * Who is looking, for the navigation: known when the session guard ran; read from the cookie on routes without
   * it (an unknown address). Never for 429s, whose point is to do no more work, nor when reading it fails.
   */
  private async viewerOf(request: DashboardRequest, status: number): Promise<DashboardViewer | undefined> {
    if (request.viewer) return request.viewer;
    if (status === 429 || request.method !== 'GET') return undefined;
    return (await this.signIn.authenticate(readCookie(request, SESSION_COOKIE)).catch(() => null)) ?? undefined;
  }
}
