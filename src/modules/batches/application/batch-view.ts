import { type BatchItemProps, type BatchProps, batchEntryName, type ItemStatus, remaining } from '../domain/batch';

/** A batch as the API shows it (GET /batches, GET /batches/{id} without its items, `batch.completed`'s data). */
export function batchView(batch: BatchProps) {
  return {
    id: batch.id,
    name: batch.name,
    status: batch.status,
    total: batch.total,
    counts: { queued: remaining(batch), succeeded: batch.succeeded, failed: batch.failed, cancelled: batch.cancelled },
    created_at: batch.createdAt.toISOString(),
    cancel_requested_at: batch.cancelRequestedAt?.toISOString() ?? null,
    completed_at: batch.completedAt?.toISOString() ?? null,
  };
}

/** An item as the API shows it: `running` when its job has started (read from the job), its file once captured. */
export function batchItemView(item: BatchItemProps, total: number, running: boolean) {
  const status: ItemStatus = item.status === 'queued' && running ? 'running' : item.status;
  return {
    position: item.position,
    url: item.url,
    status,
    job_id: item.jobId,
    error: item.error,
    file: item.file
      ? {
          name: batchEntryName(item.position, total, item.url, item.file.format),
          format: item.file.format,
          file_size: item.file.size,
          width: item.file.width,
          height: item.file.height,
        }
      : null,
    finished_at: item.finishedAt?.toISOString() ?? null,
  };
}
