import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RenderKeyRepository, SystemKeyRepository } from './application/ports';
import { RenderKeysService } from './application/render-keys.service';
import { SystemLinks } from './application/system-links';
import { RenderKeysController } from './http/render-keys.controller';
import { RenderKeyRow } from './infrastructure/render-key.row';
import { TypeOrmRenderKeyRepository } from './infrastructure/typeorm-render-key.repository';
import { RenderSystemKeyRow } from './infrastructure/render-system-key.row';
import { TypeOrmSystemKeyRepository } from './infrastructure/typeorm-system-key.repository';

/**
 * Render keys: the keys that sign `/render` links, and the check of a signed link (RenderKeysService.authenticateLink);
 * the per-account system keys the service signs its own links with (SystemLinks: notifications' alert links).
 */
@Module({
  imports: [TypeOrmModule.forFeature([RenderKeyRow, RenderSystemKeyRow])],
  controllers: [RenderKeysController],
  providers: [
    { provide: RenderKeyRepository, useClass: TypeOrmRenderKeyRepository },
    { provide: SystemKeyRepository, useClass: TypeOrmSystemKeyRepository },
    RenderKeysService,
    SystemLinks,
  ],
  exports: [RenderKeysService, SystemLinks],
})
export class RenderKeysModule {}
