import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProxyPoolRepository } from './application/ports';
import { ProxyPoolsService } from './application/proxy-pools.service';
import { ProxyRouter } from './application/proxy-router';
import { ProxyPoolsController } from './http/proxy-pools.controller';
import { ProxyPoolRow } from './infrastructure/proxy-pool.row';
import { TypeOrmProxyPoolRepository } from './infrastructure/typeorm-proxy-pool.repository';

/** Proxy pools (/proxy-pools) and the router that turns a capture's proxy choice into proxies to try. */
@Module({
  imports: [TypeOrmModule.forFeature([ProxyPoolRow])],
  controllers: [ProxyPoolsController],
  providers: [{ provide: ProxyPoolRepository, useClass: TypeOrmProxyPoolRepository }, ProxyPoolsService, ProxyRouter],
  exports: [ProxyRouter],
})
export class ProxiesModule {}
