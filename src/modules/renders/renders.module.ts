import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../jobs/jobs.module';
import { ScreenshotsModule } from '../screenshots/screenshots.module';
import { AccountsModule } from '../accounts/accounts.module';
import { RateLimitingModule } from '../rate-limiting/rate-limiting.module';
import { RenderKeysModule } from '../render-keys/render-keys.module';
import { ProxiesModule } from '../proxies/proxies.module';
import { SignedLinkGuard } from './http/signed-link.guard';
import { SignedRenders } from './application/signed-renders';
import { RenderRepository } from './application/ports';
import { RenderJobRunner } from './application/render-job.runner';
import { RenderLinks } from './application/render-links';
import { RenderSweeper } from './application/render-sweeper';
import { RendersService } from './application/renders.service';
import { RenderController, RenderLinkController } from './http/render.controller';
import { RenderRow } from './infrastructure/render.row';
import { TypeOrmRenderRepository } from './infrastructure/typeorm-render.repository';

/**
 * Render in one call (GET/POST /render) and its cache: render jobs (run by the workers through the capture port),
 * cache entries in their own table and storage area, signed links to them, and the sweep at expiry.
 */
@Module({
  imports: [TypeOrmModule.forFeature([RenderRow]), JobsModule, ScreenshotsModule, AccountsModule, RateLimitingModule, RenderKeysModule, ProxiesModule],
  controllers: [RenderController, RenderLinkController],
  providers: [
    { provide: RenderRepository, useClass: TypeOrmRenderRepository },
    RendersService,
    RenderJobRunner,
    RenderLinks,
    RenderSweeper,
    SignedRenders,
    SignedLinkGuard,
  ],
  exports: [RendersService],
})
export class RendersModule {}
