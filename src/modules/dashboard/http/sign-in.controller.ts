import { randomBytes } from 'node:crypto';
import { Get, HttpCode, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { SignInService } from '../../accounts/application/sign-in.service';
import { InvalidCredentialsError, SignInLockedError } from '../../accounts/domain/errors';
import { SESSION_LIFETIME_MS } from '../../accounts/domain/session';
import { RateLimiter } from '../../rate-limiting/application/rate-limiter';
import { clearCookie, readCookie, SESSION_COOKIE, setCookie, SIGN_IN_CSRF_COOKIE } from './cookies';
import { checkCsrf, CSRF_FIELD } from './csrf';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, formFields } from './dashboard-request';
import { DashboardSessionGuard } from './guards';
import { HtmlPage, seeOther } from './responses';
import { DRAFT_COOKIE, DRAFT_OWNER_COOKIE, rememberDraftOwner } from './form-drafts';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { signInPage } from './views/pages/sign-in.page';

/** Only our own dashboard pages are valid targets after sign-in (no open redirect). */
function safeNext(raw: string | null | undefined): string {
  return raw && /^\/dashboard(\/[\w\-./?=&%]*)?$/.test(raw) && !raw.includes('//') ? raw : '/dashboard';
}

@DashboardController('dashboard', { signedIn: false })
export class SignInController {
  constructor(
    private readonly signIn: SignInService,
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
    private readonly secretBox: SecretBox,
  ) {}

  @Get('login')
  @HtmlPage()
  async form(
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('next') next?: string,
    @Query('notice') notice?: string,
  ) {
    if (await this.signIn.authenticate(readCookie(request, SESSION_COOKIE))) return seeOther(reply, safeNext(next));
    return signInPage({ csrfToken: this.issueFormToken(request, reply), next: next ? safeNext(next) : undefined, notice }).toString();
  }

  @Post('login')
  @HtmlPage()
  async submit(@Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const form = formFields(request);
    await this.limiter.hitPerAddress('signin', request.ip, this.config.signInLimitPerMinute, 'sign-in attempts');
    checkCsrf(request, this.config.publicUrl, form.get(CSRF_FIELD), readCookie(request, SIGN_IN_CSRF_COOKIE));
    const email = (form.get('email') ?? '').trim();
    const next = safeNext(form.get('next'));
    try {
      const signedIn = await this.signIn.signIn(email, form.get('password') ?? '');
      clearCookie(reply, request, this.config.publicUrl, SIGN_IN_CSRF_COOKIE);
      setCookie(reply, request, this.config.publicUrl, SESSION_COOKIE, signedIn.secret, SESSION_LIFETIME_MS / 1000);
      // Drafts this browser keeps from now on are this account's; one kept for another account is never shown.
      rememberDraftOwner(reply, request, this.secretBox, this.config.publicUrl, signedIn.account.id);
      return seeOther(reply, next);
    } catch (err) {
      if (!(err instanceof InvalidCredentialsError || err instanceof SignInLockedError)) throw err;
      if (err instanceof SignInLockedError) reply.header('Retry-After', String(err.retryAfterSeconds));
      reply.status(err instanceof SignInLockedError ? 429 : 401);
      return signInPage({ csrfToken: this.issueFormToken(request, reply), email, error: err.message, next }).toString();
    }
  }

  @Post('logout')
  @HttpCode(303)
  @UseGuards(DashboardSessionGuard)
  async signOut(@Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.signIn.signOut(readCookie(request, SESSION_COOKIE));
    clearCookie(reply, request, this.config.publicUrl, SESSION_COOKIE);
    // A draft kept from an expired session is not for whoever signs in next on this browser.
    if (readCookie(request, DRAFT_COOKIE) !== undefined) clearCookie(reply, request, this.config.publicUrl, DRAFT_COOKIE);
    if (readCookie(request, DRAFT_OWNER_COOKIE) !== undefined) clearCookie(reply, request, this.config.publicUrl, DRAFT_OWNER_COOKIE);
    return seeOther(reply, '/dashboard/login?notice=signed-out');
  }

  /** The sign-in form's double-submit token: the same random value in an HTTP-only cookie and the form. */
  private issueFormToken(request: DashboardRequest, reply: FastifyReply): string {
    const token = randomBytes(32).toString('base64url');
    setCookie(reply, request, this.config.publicUrl, SIGN_IN_CSRF_COOKIE, token, 60 * 60);
    return token;
  }
}
