import type { JobKind } from '../../jobs/application/job-kinds';

/**
 * A scenario run (POST /scenarios/{id}/run, schedules): capped by SCENARIO_TIMEOUT_MS, and one capture timeout on
 * top covers a final screenshot taken at the cap (scenario-runner.ts); announced as `execution.succeeded` /
 * `execution.failed`. Its payload is the steps snapshotted when it was asked for: a retry with the same
 * Idempotency-Key after the scenario was edited is still the same request.
 */
export const SCENARIO_JOB_KIND: JobKind = {
  name: 'scenario',
  label: 'scenario run',
  maxRunMs: (config) => config.scenarioTimeoutMs + config.captureTimeoutMs,
  events: { succeeded: 'execution.succeeded', failed: 'execution.failed' },
  samePayloadOnRetry: false,
};
