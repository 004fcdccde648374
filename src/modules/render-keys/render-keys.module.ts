import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RenderKeyRepository } from './application/ports';
import { RenderKeysService } from './application/render-keys.service';
import { RenderKeysController } from './http/render-keys.controller';
import { RenderKeyRow } from './infrastructure/render-key.row';
import { TypeOrmRenderKeyRepository } from './infrastructure/typeorm-render-key.repository';

/** Render keys: the keys that sign `/render` links, and the check of a signed link (RenderKeysService.authenticateLink). */
@Module({
  imports: [TypeOrmModule.forFeature([RenderKeyRow])],
  controllers: [RenderKeysController],
  providers: [{ provide: RenderKeyRepository, useClass: TypeOrmRenderKeyRepository }, RenderKeysService],
  exports: [RenderKeysService],
})
export class RenderKeysModule {}
