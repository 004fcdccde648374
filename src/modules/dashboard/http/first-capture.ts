import { Logger } from '@nestjs/common';
import { CaptureJobsService } from '../../screenshots/application/capture-jobs.service';
import type { WebsiteProps } from '../../websites/domain/website';

const log = new Logger('Dashboard');

/**
 * A website created in the dashboard gets its first screenshot at once (issue 31): a person who just typed a URL
 * expects to see it, not to look for "Take screenshot". The same durable job as POST /websites/{id}/screenshot
 * with the website's saved options. A paused website is left alone (pausing says "do not capture"). Answers the
 * `?notice=` key the websites list shows; the website stays created when the job cannot be queued.
 */
export async function queueFirstCapture(captureJobs: CaptureJobsService, accountId: number, website: WebsiteProps): Promise<string> {
  if (website.status !== 'active') return 'website-created-paused';
  try {
    await captureJobs.requestCapture(accountId, website.id, {}, null, 'dashboard');
    return 'website-created-capturing';
  } catch (err) {
    log.warn(`website ${website.id}: its first capture could not be queued: ${err instanceof Error ? err.message : String(err)}`);
    return 'website-created-not-captured';
  }
}
