import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { SignInService } from '../../accounts/application/sign-in.service';
import { RateLimiter } from '../../rate-limiting/application/rate-limiter';
import { SESSION_COOKIE, readCookie } from './cookies';
import { checkCsrf, CSRF_FIELD } from './csrf';
import { DashboardRequest, formFields } from './dashboard-request';

/**
 * Headers every dashboard response carries: pages are per-user (never cached, a shown API token least of
 * all), nothing may frame them, and only our own scripts, styles and images run.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/** Runs first on every dashboard route: security headers, then the dashboard's own per-address limit. */
@Injectable()
export class DashboardRequestGuard implements CanActivate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    const request = context.switchToHttp().getRequest<DashboardRequest>();
    await this.limiter.hitPerAddress('dash', request.ip, this.config.dashboardLimitPerMinute, 'dashboard requests');
    return true;
  }
}

/** Thrown when a page needs a signed-in viewer; the dashboard's error filter turns it into the sign-in page. */
export class SignInRequired extends Error {}

/**
 * Signed-in pages: the session cookie must name a live session (read fresh on every request, so signing out
 * or a password change ends it at once), and every form post must carry that session's CSRF token.
 */
@Injectable()
export class DashboardSessionGuard implements CanActivate {
  constructor(
    private readonly signIn: SignInService,
    private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<DashboardRequest>();
    const viewer = await this.signIn.authenticate(readCookie(request, SESSION_COOKIE));
    if (!viewer) throw new SignInRequired();
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      checkCsrf(request, this.config.publicUrl, formFields(request).get(CSRF_FIELD), viewer.session.csrfToken);
    }
    request.viewer = viewer;
    return true;
  }
}
