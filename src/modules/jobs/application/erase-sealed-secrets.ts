import type { Logger } from '@nestjs/common';
import { errorMessage } from '../../../shared/domain/error-message';
import type { JobRepository } from './ports';

/**
 * A request's sealed secrets (headers, cookies, credentials, proxy) leave its job row once the job has ended: one rule
 * for every job kind that carries them. A failure to erase is logged, not thrown: the job has ended either way, and
 * what is left is sealed, which only the key could open.
 */
export async function eraseSealedSecrets(
  jobs: JobRepository,
  job: { id: string; options: { sealedSecrets?: string | null } },
  logger: Pick<Logger, 'warn'>,
): Promise<void> {
  if (!job.options.sealedSecrets) return;
  const { sealedSecrets: _sealed, ...rest } = job.options;
  try {
    await jobs.replaceOptions(job.id, rest);
  } catch (err) {
    logger.warn(`job ${job.id}: erasing its sealed secrets failed: ${errorMessage(err)}`);
  }
}
