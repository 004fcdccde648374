import { Module } from '@nestjs/common';
import { HealthController } from './http/health.controller';
import { DependencyProbe } from './infrastructure/dependency-probe';

@Module({ controllers: [HealthController], providers: [DependencyProbe] })
export class HealthModule {}
