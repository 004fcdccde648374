import type { Page, PageRequest } from '../../../shared/domain/page-request';
import type { BatchFile, BatchItemProps, BatchProps, ItemOutcome, StoredItemStatus } from '../domain/batch';

export interface NewBatch {
  id: string;
  accountId: number;
  name: string | null;
  createdAt: Date;
  items: Array<{ position: number; url: string; jobId: string }>;
}

/** What an item came to: its outcome, its error or its file. */
export interface ItemResult {
  outcome: ItemOutcome;
  error: string | null;
  file: BatchFile | null;
  finishedAt: Date;
}

export abstract class BatchRepository {
  /** Inserts the batch (status running, counters 0) and every item (queued), all or nothing. */
  abstract create(batch: NewBatch): Promise<BatchProps>;
  abstract findOwned(accountId: number, id: string): Promise<BatchProps | null>;
  abstract findById(id: string): Promise<BatchProps | null>;
  abstract list(accountId: number, page: PageRequest): Promise<Page<BatchProps>>;
  /** The batch's items by position, keyset-paged; `status` filters. */
  abstract items(batchId: string, page: PageRequest, status?: StoredItemStatus): Promise<Page<BatchItemProps>>;
  /** Every item of the batch in `status`, by position (at most the plan's batch size: the ZIP, results.csv, a cancel). */
  abstract allItems(batchId: string, status?: StoredItemStatus): Promise<BatchItemProps[]>;
  abstract itemByJob(jobId: string): Promise<BatchItemProps | null>;
  /**
   * Ends the still-queued items among `jobIds` with `result`, counts them on the batch and ends the batch when
   * none is left — in one transaction. An item already ended is not touched (nor counted again), so any number
   * of workers, retries and reconciliations may report the same item. `completed` is true for exactly one call
   * per batch: the one whose update moved the batch out of `running` (a conditional update).
   */
  abstract endItems(batchId: string, jobIds: string[], result: ItemResult): Promise<{ ended: number; completed: boolean }>;
  /** Marks the cancel asked for (once); false when the batch had ended already. */
  abstract requestCancel(id: string, now: Date): Promise<boolean>;
  /** Ended batches whose `batch.completed` has not been turned into deliveries yet (since `since`), oldest first. */
  abstract completedToEmit(since: Date, limit: number): Promise<BatchProps[]>;
  abstract markEmitted(id: string, now: Date): Promise<void>;
  /** Running batches (the reconciliation's work list), oldest first. */
  abstract running(limit: number): Promise<BatchProps[]>;
  /** Removes the batch and its items (rows only); used when its jobs could not be queued. */
  abstract delete(id: string): Promise<void>;
}
