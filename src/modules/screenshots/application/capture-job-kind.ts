import { captureRunMs } from './capture-route';
import type { JobKind } from '../../jobs/application/job-kinds';
import type { CaptureJobOptions } from '../domain/capture-job-options';

/**
 * A capture of a website (POST /websites/{id}/screenshot, schedules, the dashboard): bounded as a whole by
 * CAPTURE_TIMEOUT_MS (capture-run.ts); announced as `screenshot.succeeded` / `screenshot.failed`.
 */
export const CAPTURE_JOB_KIND: JobKind<CaptureJobOptions> = {
  name: 'screenshot',
  label: 'screenshot',
  // A saved session found logged out logs in again and captures once more: the lease covers that (capture-route.ts).
  maxRunMs: (config) => captureRunMs(config, true),
  events: { succeeded: 'screenshot.succeeded', failed: 'screenshot.failed' },
};
