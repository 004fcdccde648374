import { Global, Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { Metrics } from '../../shared/metrics/metrics';
import { MetricsController } from './http/metrics.controller';
import { PromClientMetrics } from './infrastructure/prom-client-metrics';

/**
 * Prometheus metrics: the Metrics port (global, since jobs, captures, rate limits and the HTTP layer all
 * record into it), its prom-client adapter and GET /metrics.
 */
@Global()
@Module({
  imports: [JobsModule],
  controllers: [MetricsController],
  providers: [{ provide: Metrics, useClass: PromClientMetrics }],
  exports: [Metrics],
})
export class MetricsModule {}
