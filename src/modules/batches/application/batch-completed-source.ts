import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EventSource, SourcedEvent } from '../../webhooks/application/ports';
import { WebhookDispatcher } from '../../webhooks/application/webhook-dispatcher';
import { batchView } from './batch-view';
import { BatchRepository } from './ports';

/** The webhook event of a batch's end, sent once per batch to the account's webhooks and notification channels. */
export const BATCH_COMPLETED_EVENT = 'batch.completed';

/**
 * `batch.completed`, read by the webhook dispatcher from the batches that ended and were not announced yet (durable:
 * a process that dies before marking one announces it again, and the deliveries' derived ids keep one of each).
 * `data`: `{batch}` as GET /batches/{id} shows it, without its items.
 */
@Injectable()
export class BatchCompletedSource implements EventSource, OnModuleInit {
  readonly event = BATCH_COMPLETED_EVENT;

  constructor(
    private readonly batches: BatchRepository,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  onModuleInit(): void {
    this.dispatcher.registerSource(this);
  }

  async pending(since: Date, limit: number): Promise<SourcedEvent[]> {
    return (await this.batches.completedToEmit(since, limit)).map((batch) => ({
      sourceId: batch.id,
      accountId: batch.accountId,
      happenedAt: batch.completedAt ?? batch.createdAt,
      data: () => Promise.resolve({ batch: batchView(batch) }),
    }));
  }

  markEmitted(sourceId: string, now: Date): Promise<void> {
    return this.batches.markEmitted(sourceId, now);
  }
}
