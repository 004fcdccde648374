import { UuidParam } from '../../../shared/http/uuid-param';
import { JobsService } from '../../jobs/application/jobs.service';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import type { CaptureResult } from './views/pages/website-form.page';

/**
 * A capture job of the account with its screenshot once there is one, for the result panels of the take-screenshot
 * page and the playground. Another account's job, or text that is no job id, is the 404 page.
 */
export async function loadCaptureResult(jobs: JobsService, screenshots: ScreenshotsService, accountId: number, rawJobId: string): Promise<CaptureResult> {
  const job = await jobs.get(accountId, new UuidParam().transform(rawJobId));
  const shot = job.resultId ? await screenshots.get(accountId, job.resultId).catch(() => null) : null;
  return { job, shot };
}
