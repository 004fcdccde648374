import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { IdParam } from '../../../shared/http/id-param';
import { AccountsService } from '../../accounts/application/accounts.service';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { HtmlPage, seeOther } from './responses';
import { NEW_TOKEN_COOKIE } from './cookies';
import { ShownOnce } from './shown-once';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { AppConfig } from '../../../config/app-config';
import { requestOrigin } from '../../../shared/http/pagination';
import { apiKeysPage, revokeConfirmPage } from './views/pages/api-keys.page';

interface NewToken {
  name: string;
  secret: string;
}

/** Settings → API Keys (spec, Authentication 2 and 3): generate (shown once) and revoke. */
@DashboardController('dashboard/settings/api-keys')
export class ApiKeysController {
  private readonly newToken: ShownOnce<NewToken>;

  constructor(
    private readonly accounts: AccountsService,
    private readonly clock: Clock,
    secretBox: SecretBox,
    private readonly config: AppConfig,
  ) {
    this.newToken = new ShownOnce(NEW_TOKEN_COOKIE, secretBox, config.publicUrl);
  }

  /** The list; right after a generate, once, the new token (from its sealed cookie, which this answer clears). */
  @Get()
  @HtmlPage()
  async list(
    @Viewer() viewer: DashboardViewer,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('notice') notice?: string,
  ) {
    return this.page(viewer, request, { notice, newSecret: this.newToken.take(reply, request, viewer) ?? undefined });
  }

  /**
   * Post/Redirect/Get: the new token is sealed into a short-lived cookie (ShownOnce) and the browser sent to the
   * list, which shows it once. A reload of that page, or of the form's answer, never makes another token.
   */
  @Post()
  @HtmlPage()
  async generate(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    // Spec: a token is generated only for an active paid subscription.
    if (!viewer.account.hasApiAccess(this.clock.now())) throw new PlanNoApiAccessError(viewer.account.plan);
    const name = (formFields(request).get('name') ?? '').trim() || 'dashboard';
    try {
      const { token, secret } = await this.accounts.issueTokenFor(viewer.account, name);
      this.newToken.carry(reply, request, viewer, { name: token.props.name, secret });
      return seeOther(reply, '/dashboard/settings/api-keys');
    } catch (err) {
      if (!(err instanceof ValidationFailedError)) throw err;
      reply.status(422);
      return this.page(viewer, request, { nameError: 'The name must be at most 255 characters.' });
    }
  }

  @Get(':id/revoke')
  @HtmlPage()
  async confirmRevoke(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number) {
    const token = (await this.accounts.listTokensOf(viewer.account.id)).find((t) => t.id === id && !t.isRevoked);
    if (!token) throw new NotFoundError('Token');
    return revokeConfirmPage(viewer, token).toString();
  }

  @Post(':id/revoke')
  async revoke(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.accounts.revokeToken(id, viewer.account.id);
    return seeOther(reply, '/dashboard/settings/api-keys?notice=token-revoked');
  }

  private async page(
    viewer: DashboardViewer,
    request: DashboardRequest,
    extra: { notice?: string; newSecret?: NewToken; nameError?: string },
  ): Promise<string> {
    const tokens = await this.accounts.listTokensOf(viewer.account.id);
    const origin = requestOrigin(request, this.config.publicUrl);
    return apiKeysPage(viewer, { tokens, hasAccess: viewer.account.hasApiAccess(this.clock.now()), origin, ...extra }).toString();
  }
}
