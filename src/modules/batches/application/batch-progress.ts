import { Injectable, Logger } from '@nestjs/common';
import { errorMessage } from '../../../shared/domain/error-message';
import { WebhookDispatcher } from '../../webhooks/application/webhook-dispatcher';
import { BatchRepository, ItemResult } from './ports';

/**
 * Records items' ends on their batch (counters and the batch's own end in one transaction, BatchRepository.endItems)
 * and, the one time a batch ends, asks the webhook dispatcher to announce `batch.completed` now rather than on
 * its next poll (the announcement itself is durable: the dispatcher reads ended batches not yet emitted).
 */
@Injectable()
export class BatchProgress {
  private readonly logger = new Logger('BatchProgress');

  constructor(
    private readonly batches: BatchRepository,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  async itemsEnded(batchId: string, jobIds: string[], result: ItemResult): Promise<number> {
    const { ended, completed } = await this.batches.endItems(batchId, jobIds, result);
    if (completed) {
      this.logger.log(`batch ${batchId} ended`);
      try {
        this.dispatcher.nudge();
      } catch (err) {
        this.logger.warn(`batch ${batchId}: announcing its end now failed, the next webhook pass does: ${errorMessage(err)}`);
      }
    }
    return ended;
  }
}
