import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ConflictError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { IdParam } from '../../../shared/http/id-param';
import { isValidCssSelector } from '../../../shared/css-selector/css-selector';
import { ScenariosService } from '../../scenarios/application/scenarios.service';
import { SessionsService, type SessionFrom } from '../../sessions/application/sessions.service';
import { SESSION_LIMITS } from '../../sessions/domain/saved-session';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { HtmlPage, seeOther } from './responses';
import { deleteSessionPage, sessionsPage } from './views/pages/sessions.page';

/** Sessions: saved logged-in states (docs/sessions.md). Create from a login scenario or a pasted cookies.txt, refresh, delete. */
@DashboardController('dashboard/sessions')
export class SessionsPageController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly scenarios: ScenariosService,
  ) {}

  @Get()
  @HtmlPage()
  async list(@Viewer() viewer: DashboardViewer, @Query('notice') notice?: string) {
    return this.page(viewer, { notice });
  }

  @Post()
  @HtmlPage()
  async create(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const form = formFields(request);
    const name = (form.get('name') ?? '').trim();
    const selector = (form.get('logged_in_selector') ?? '').trim();
    const refuse = async (error: string, status = 422) => {
      reply.status(status);
      return this.page(viewer, { error });
    };
    if (!name || name.length > SESSION_LIMITS.nameMax) return refuse(`A session needs a name of 1 to ${SESSION_LIMITS.nameMax} characters.`);
    if (selector && !isValidCssSelector(selector)) return refuse(`The logged-in selector is not a CSS selector: ${selector}`);
    let from: SessionFrom;
    if (form.get('from') === 'scenario') {
      const id = Number(form.get('scenario_id'));
      if (!Number.isSafeInteger(id) || id < 1) return refuse('Choose a login scenario.');
      from = { scenarioId: id };
    } else {
      from = { cookiesTxt: form.get('cookies_txt') ?? '' };
    }
    try {
      const session = await this.sessions.create(viewer.account.id, { name, loggedInSelector: selector || null, from });
      return seeOther(reply, `/dashboard/sessions?notice=${session.status === 'pending' ? 'session-login-queued' : 'session-created'}`);
    } catch (err) {
      if (err instanceof ValidationFailedError) return refuse(err.details.map((d) => d.message.replace(/^from\.(cookies_txt|scenario_id) ?/, '')).join(' '));
      if (err instanceof ConflictError) return refuse(err.message, 409);
      throw err;
    }
  }

  @Post(':id/refresh')
  @HtmlPage()
  async refresh(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    try {
      await this.sessions.refresh(viewer.account.id, id);
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      reply.status(409);
      return this.page(viewer, { error: err.message });
    }
    return seeOther(reply, '/dashboard/sessions?notice=session-login-queued');
  }

  @Get(':id/delete')
  @HtmlPage()
  async confirmDelete(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number) {
    const session = await this.sessions.get(viewer.account.id, id);
    return deleteSessionPage(viewer, session, await this.sessions.uses(viewer.account.id, id)).toString();
  }

  @Post(':id/delete')
  @HtmlPage()
  async delete(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    try {
      await this.sessions.delete(viewer.account.id, id);
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      reply.status(409);
      return this.page(viewer, { error: err.message });
    }
    return seeOther(reply, '/dashboard/sessions?notice=session-deleted');
  }

  private async page(viewer: DashboardViewer, extra: { notice?: string; error?: string }): Promise<string> {
    const all = await this.sessions.listAll(viewer.account.id);
    // At most 100 sessions, each looked up by indexed columns (and a bounded number of schedules): no scan of the account.
    const sessions = await Promise.all(all.map(async (session) => ({ session, use: await this.sessions.uses(viewer.account.id, session.id) })));
    const scenarios = (await this.scenarios.list(viewer.account.id, { page: 1, perPage: 100 }, {})).items;
    return sessionsPage(viewer, { sessions, scenarios, ...extra }).toString();
  }
}
