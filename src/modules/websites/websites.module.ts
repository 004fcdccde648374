import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebsiteRepository } from './application/ports';
import { WebsitesService } from './application/websites.service';
import { WebsitesController } from './http/websites.controller';
import { TypeOrmWebsiteRepository } from './infrastructure/typeorm-website.repository';
import { WebsiteRow } from './infrastructure/website.row';

@Module({
  imports: [TypeOrmModule.forFeature([WebsiteRow])],
  controllers: [WebsitesController],
  providers: [{ provide: WebsiteRepository, useClass: TypeOrmWebsiteRepository }, WebsitesService],
  exports: [WebsitesService, WebsiteRepository],
})
export class WebsitesModule {}
