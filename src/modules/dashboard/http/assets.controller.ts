import { Get, Header, NotFoundException, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { DashboardController } from './dashboard-pages.decorator';
import { DASHBOARD_CSS, DASHBOARD_JS } from './views/assets';

const ASSETS: Record<string, { type: string; body: string }> = {
  'dashboard.css': { type: 'text/css; charset=utf-8', body: DASHBOARD_CSS },
  'dashboard.js': { type: 'text/javascript; charset=utf-8', body: DASHBOARD_JS },
};

@DashboardController('dashboard/assets', { signedIn: false })
export class AssetsController {
  @Get(':name')
  @Header('Cache-Control', 'public, max-age=3600')
  asset(@Param('name') name: string, @Res({ passthrough: true }) reply: FastifyReply): string {
    const asset = Object.prototype.hasOwnProperty.call(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) throw new NotFoundException();
    reply.header('Content-Type', asset.type);
    reply.header('Cache-Control', 'public, max-age=3600');
    return asset.body;
  }
}

/** Any other /dashboard/… address: the dashboard's own 404 page rather than the API's JSON body. */
@DashboardController('dashboard', { signedIn: false })
export class DashboardNotFoundController {
  /** Where people (and the spec's "Settings → API Keys") look for it first. */
  @Get('api-keys')
  apiKeys(@Res({ passthrough: true }) reply: FastifyReply): string {
    reply.status(301).header('Location', '/dashboard/settings/api-keys');
    return '';
  }

  @Get('*')
  notFound(): never {
    throw new NotFoundError('Page');
  }
}
