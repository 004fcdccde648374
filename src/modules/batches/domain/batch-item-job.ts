import type { CaptureOptions } from '../../../shared/domain/capture-option-table';

/**
 * A batch item's job payload (job type `batch_item`, website_id null): its batch and place in it, the URL as the
 * URL policy normalized it, and the capture options (the batch's shared `options` under the item's own) in the
 * domain's names, the request's secrets sealed (SecretBox) as a capture job's are.
 */
export interface BatchItemJobOptions {
  batchId: string;
  position: number;
  url: string;
  options: Omit<CaptureOptions, 'secrets'>;
  sealedSecrets?: string;
  secretsDigest?: string;
}
