import { captureRunMs } from '../../screenshots/application/capture-route';
import type { JobKind } from '../../jobs/application/job-kinds';
import type { RenderJobOptions } from '../domain/render-job';

/**
 * A capture for GET/POST /render, of no website (website_id null): bounded by its timeout_ms (at most
 * CAPTURE_TIMEOUT_MS). It emits no event: its client is waiting for the answer, and the webhook events the API
 * names (screenshot.*, execution.*) carry a screenshot or an execution a render does not have.
 */
export const RENDER_JOB_KIND: JobKind<RenderJobOptions> = {
  name: 'render',
  label: 'render',
  // A saved session found logged out logs in again and captures once more: the lease covers that (capture-route.ts).
  maxRunMs: (config) => captureRunMs(config, true),
  events: null,
};
