import { Module } from '@nestjs/common';
import { DependencyProbe } from './application/dependency-probe';
import { HealthController } from './http/health.controller';
import { DatabaseAndRedisProbe } from './infrastructure/dependency-probe';

@Module({ controllers: [HealthController], providers: [{ provide: DependencyProbe, useClass: DatabaseAndRedisProbe }] })
export class HealthModule {}
