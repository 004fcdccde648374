import type { CaptureSecrets } from '../../../shared/domain/capture-secrets';
import type { OutputOptions } from '../../../shared/domain/output-format';
import type { PageOptions } from '../../../shared/domain/page-options';
import type { WaitUntil } from '../../../shared/domain/wait-until';

/**
 * What a capture job was asked for (Take Screenshot body; the website's defaults fill what it leaves out
 * when the job runs): stored on the job.
 */
export interface CaptureOptions extends OutputOptions, PageOptions {
  fullPage?: boolean;
  viewportWidth?: number;
  viewportHeight?: number;
  delayMs?: number;
  waitForSelector?: string;
  deviceScaleFactor?: number;
  hideSelectors?: string[];
  darkMode?: boolean;
  waitUntil?: WaitUntil;
  /** Headers, cookies, credentials as the request sent them; never stored like this (CaptureJobsService seals them). */
  secrets?: CaptureSecrets;
  /** How the job row holds them: sealed (SecretBox), with a keyed digest for idempotency; erased when the job ends. */
  sealedSecrets?: string;
  secretsDigest?: string;
}
