import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../jobs/jobs.module';
import { ProxiesModule } from '../proxies/proxies.module';
import { ScreenshotsModule } from '../screenshots/screenshots.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { BatchCompletedSource } from './application/batch-completed-source';
import { BatchItemRunner } from './application/batch-item.runner';
import { BatchProgress } from './application/batch-progress';
import { BatchReconciler } from './application/batch-reconciler';
import { BatchesService } from './application/batches.service';
import { BatchRepository } from './application/ports';
import { BatchesController } from './http/batches.controller';
import { BatchItemRow, BatchRow } from './infrastructure/batch.rows';
import { TypeOrmBatchRepository } from './infrastructure/typeorm-batch.repository';

/**
 * Batches (POST /batches): an aggregate over ordinary jobs of kind `batch_item` (its runner is the one registration
 * line), their files in the screenshots' storage port, `batch.completed` through the webhooks' dispatcher.
 */
@Module({
  imports: [TypeOrmModule.forFeature([BatchRow, BatchItemRow]), JobsModule, ScreenshotsModule, ProxiesModule, WebhooksModule],
  controllers: [BatchesController],
  providers: [
    { provide: BatchRepository, useClass: TypeOrmBatchRepository },
    BatchesService,
    BatchProgress,
    BatchItemRunner,
    BatchCompletedSource,
    BatchReconciler,
  ],
  exports: [BatchesService],
})
export class BatchesModule {}
