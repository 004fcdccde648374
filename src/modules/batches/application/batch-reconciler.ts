import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { errorMessage } from '../../../shared/domain/error-message';
import { PeriodicTask } from '../../../shared/scheduling/periodic-task';
import { BatchesService } from './batches.service';

const EVERY_MS = 15_000;

/**
 * Ends the items whose jobs ended without their runner recording it (the dispatcher failed them after their last
 * attempt, or gave them up), so a batch whose every job has ended always ends and announces itself, whether or not
 * anyone reads it. Workers only; safe on several at once (an item is ended once: BatchRepository.endItems).
 */
@Injectable()
export class BatchReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('BatchReconciler');
  private readonly task = new PeriodicTask<number>((err) => this.logger.warn(`batch reconciliation failed, retried: ${errorMessage(err)}`));

  constructor(
    private readonly batches: BatchesService,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    this.task.start(EVERY_MS, EVERY_MS, () => this.batches.reconcile());
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }
}
