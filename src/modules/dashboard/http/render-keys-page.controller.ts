import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { IdParam } from '../../../shared/http/id-param';
import { hasControlCharacters } from '../../../shared/http/validation';
import { requestOrigin } from '../../../shared/http/pagination';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { RenderKeysService } from '../../render-keys/application/render-keys.service';
import { RENDER_KEY_LIMITS } from '../../render-keys/domain/render-key';
import { NEW_RENDER_KEY_COOKIE } from './cookies';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { HtmlPage, seeOther } from './responses';
import { ShownOnce } from './shown-once';
import { deleteRenderKeyPage, renderKeysPage, RenderKeysView } from './views/pages/render-keys.page';

/** Every page of keys is one page: an account has at most RENDER_KEY_LIMITS.perAccount of them. */
const ALL_KEYS = { page: 1, perPage: RENDER_KEY_LIMITS.perAccount };

interface NewKey {
  id: number;
  secret: string;
}

/** Settings → Render keys: create (the secret shown once), list, delete. The same Post/Redirect/Get as API tokens. */
@DashboardController('dashboard/settings/render-keys')
export class RenderKeysPageController {
  private readonly newKey: ShownOnce<NewKey>;

  constructor(
    private readonly renderKeys: RenderKeysService,
    private readonly clock: Clock,
    secretBox: SecretBox,
    private readonly config: AppConfig,
  ) {
    this.newKey = new ShownOnce(NEW_RENDER_KEY_COOKIE, secretBox, config.publicUrl);
  }

  @Get()
  @HtmlPage()
  async list(
    @Viewer() viewer: DashboardViewer,
    @Req() request: DashboardRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('notice') notice?: string,
  ) {
    return this.page(viewer, request, { notice }, this.newKey.take(reply, request, viewer));
  }

  /** The secret rides a sealed, short-lived cookie to the list, which shows it once: a reload never makes another key. */
  @Post()
  @HtmlPage()
  async create(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    if (!viewer.account.hasApiAccess(this.clock.now())) throw new PlanNoApiAccessError(viewer.account.plan);
    const name = (formFields(request).get('name') ?? '').trim();
    if (name.length > RENDER_KEY_LIMITS.nameMax) {
      reply.status(422);
      return this.page(viewer, request, { nameError: `The name must be at most ${RENDER_KEY_LIMITS.nameMax} characters.` });
    }
    if (hasControlCharacters(name)) {
      reply.status(422);
      return this.page(viewer, request, { nameError: 'The name must be one line of text, without line breaks, tabs or other control characters.' });
    }
    try {
      const key = await this.renderKeys.create(viewer.account.id, name || null);
      this.newKey.carry(reply, request, viewer, { id: key.id, secret: key.secret });
      return seeOther(reply, '/dashboard/settings/render-keys');
    } catch (err) {
      if (!(err instanceof ValidationFailedError)) throw err;
      reply.status(422);
      return this.page(viewer, request, { nameError: `You already have ${RENDER_KEY_LIMITS.perAccount} render keys: delete one first.` });
    }
  }

  @Get(':id/delete')
  @HtmlPage()
  async confirmDelete(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number) {
    return deleteRenderKeyPage(viewer, await this.renderKeys.get(viewer.account.id, id)).toString();
  }

  @Post(':id/delete')
  async delete(@Viewer() viewer: DashboardViewer, @Param('id', IdParam) id: number, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.renderKeys.delete(viewer.account.id, id);
    return seeOther(reply, '/dashboard/settings/render-keys?notice=render-key-deleted');
  }

  private async page(
    viewer: DashboardViewer,
    request: DashboardRequest,
    extra: Pick<RenderKeysView, 'notice' | 'nameError'>,
    /** The secret just made (ShownOnce), shown only while its key still exists. */
    carried: NewKey | null = null,
  ): Promise<string> {
    const keys = (await this.renderKeys.list(viewer.account.id, ALL_KEYS)).items;
    const fresh = carried ? keys.find((k) => k.id === carried.id) : undefined;
    return renderKeysPage(viewer, {
      keys,
      hasAccess: viewer.account.hasApiAccess(this.clock.now()),
      origin: requestOrigin(request, this.config.publicUrl),
      created: fresh && { name: fresh.name, accessKey: fresh.accessKey, secret: carried!.secret },
      ...extra,
    }).toString();
  }
}
