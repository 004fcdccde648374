/**
 * Batches (API.md "Extensions of the fourth round", docs/batches.md): many URLs captured as one aggregate over
 * ordinary jobs. Plain rules: the states, what counts as done, the names of the files in the ZIP.
 */
import { FORMAT_FILES, type OutputFormat } from '../../../shared/domain/output-format';

/** `running` while any item may still run; `completed` when every item ended; `cancelled` when it ended after a cancel. */
export const BATCH_STATUSES = ['running', 'completed', 'cancelled'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/** An item's state: `queued` until its job ends (the view shows `running` from the job), then one of the others. */
export const ITEM_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
/** The states stored on an item row (`running` is read from its job). */
export type StoredItemStatus = Exclude<ItemStatus, 'running'>;
export type ItemOutcome = 'succeeded' | 'failed' | 'cancelled';

export const BATCH_NAME_MAX = 255;
/** The job error of an item cancelled before it started. */
export const CANCELLED_ERROR = 'Cancelled: the batch was cancelled before this item started';

export interface BatchProps {
  id: string;
  accountId: number;
  name: string | null;
  status: BatchStatus;
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  createdAt: Date;
  cancelRequestedAt: Date | null;
  completedAt: Date | null;
}

export interface BatchFile {
  key: string;
  format: OutputFormat;
  size: number;
  width: number;
  height: number;
}

export interface BatchItemProps {
  id: number;
  batchId: string;
  /** 0-based, in the order of the request's list. */
  position: number;
  url: string;
  jobId: string;
  status: StoredItemStatus;
  error: string | null;
  file: BatchFile | null;
  finishedAt: Date | null;
}

/** Items not ended yet: queued (or running). */
export function remaining(batch: Pick<BatchProps, 'total' | 'succeeded' | 'failed' | 'cancelled'>): number {
  return Math.max(0, batch.total - batch.succeeded - batch.failed - batch.cancelled);
}

/** Where an item's file is kept in the storage port: `batches/<account>/<batch>/<position>.<extension>`. */
export function batchItemFileKey(accountId: number, batchId: string, position: number, format: OutputFormat): string {
  return `batches/${accountId}/${batchId}/${position}.${FORMAT_FILES[format].extension}`;
}

/**
 * An item's file name in the ZIP (and `file` in results.csv): its 1-based number, padded so the names sort in the
 * list's order, and the URL's host and path made safe for every file system: `003-example.com-pricing.png`.
 */
export function batchEntryName(position: number, total: number, url: string, format: OutputFormat): string {
  const width = String(Math.max(total, 1)).length;
  let stem = url;
  try {
    const parsed = new URL(url);
    stem = `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    // kept as given
  }
  const safe =
    stem
      .normalize('NFKD')
      .replace(/[^\w.-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, 80) || 'page';
  return `${String(position + 1).padStart(width, '0')}-${safe}.${FORMAT_FILES[format].extension}`;
}
