import { captureRunMs } from '../../screenshots/application/capture-route';
import type { JobKind } from '../../jobs/application/job-kinds';
import type { BatchItemJobOptions } from '../domain/batch-item-job';

/**
 * One URL of a batch (POST /batches): a capture of no website, bounded by CAPTURE_TIMEOUT_MS like any capture,
 * queued at batch priority through the account's fair slots (docs/fair-slots.md). Its jobs emit no event of their
 * own: the batch announces `batch.completed` once, when its last item ends.
 */
export const BATCH_ITEM_JOB_KIND: JobKind<BatchItemJobOptions> = {
  name: 'batch_item',
  label: 'batch item',
  // A saved session found logged out logs in again and captures once more: the lease covers that (capture-route.ts).
  maxRunMs: (config) => captureRunMs(config, true),
  events: null,
};
