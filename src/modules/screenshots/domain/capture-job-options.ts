import type { CaptureOptions } from '../../../shared/domain/capture-option-table';

/**
 * What a capture job was asked for (a Take Screenshot body in the domain's names; the website's defaults fill
 * what it leaves out when the job runs), as the job row holds it: the request's `secrets` never stored like
 * this (CaptureJobsService seals them) but sealed (SecretBox), with a keyed digest for idempotency; erased when
 * the job ends.
 */
export type CaptureJobOptions = CaptureOptions & {
  sealedSecrets?: string;
  secretsDigest?: string;
};
