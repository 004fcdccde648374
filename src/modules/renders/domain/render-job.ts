import type { ContentFormat } from '../../../shared/domain/output-format';
import type { CaptureOptions } from '../../../shared/domain/capture-option-table';

/**
 * A render job's payload (job type `render`, website_id null): the URL as the URL policy normalized it, the capture
 * options in the domain's names with the request's secrets sealed (SecretBox, like a capture job's), and the cache
 * TTL its entry gets when it ends.
 */
export interface RenderJobOptions {
  url: string;
  options: Omit<CaptureOptions, 'secrets'>;
  sealedSecrets?: string;
  secretsDigest?: string;
  ttlSeconds: number;
  /** `formats`: page content read in the same visit and kept beside the file (renderContentsKey). */
  contents?: ContentFormat[];
}
