import { Get, Headers, NotFoundException, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { DashboardController } from './dashboard-pages.decorator';
import { StaticAssets } from './static-assets';

@DashboardController('dashboard/assets', { signedIn: false })
export class AssetsController {
  constructor(private readonly assets: StaticAssets) {}

  @Get(':name')
  asset(
    @Param('name') name: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Buffer | string {
    const asset = this.assets.get(name);
    if (!asset) throw new NotFoundException();
    // Set here rather than with @Header: the guard's no-store for pages must not win over it.
    reply.header('Cache-Control', 'public, max-age=3600');
    reply.header('ETag', asset.etag);
    if (ifNoneMatch === asset.etag) {
      reply.status(304);
      return '';
    }
    reply.header('Content-Type', asset.type);
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
