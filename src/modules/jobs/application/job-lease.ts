import { AppConfig } from '../../../config/app-config';
import { JobType } from '../domain/job';
import { RunningCutoffs, StaleCutoffs } from './ports';

/**
 * On top of a job's longest legitimate run: launching a browser, storing the PNG and thumbnail, a slow
 * database. Generous on purpose — a lease that runs out under a live attempt costs a second capture (the
 * first one's result is then dropped), while a dead attempt is usually noticed sooner anyway (Bull's lock,
 * or the embedded process's restart).
 */
export const LEASE_MARGIN_MS = 60_000;

/** A queued job that no worker took within this long is presumed lost on its way to the transport. */
export const QUEUED_GRACE_MS = 30_000;

export type LeaseSettings = Pick<AppConfig, 'captureTimeoutMs' | 'scenarioTimeoutMs'>;

/**
 * How long one attempt of a job can legitimately run. A capture is bounded as a whole by CAPTURE_TIMEOUT_MS
 * (capture-run.ts); a scenario run is capped by SCENARIO_TIMEOUT_MS, and one capture timeout on top covers a
 * final screenshot taken at the cap (scenario-runner.ts).
 */
export function maxRunMs(type: JobType, settings: LeaseSettings): number {
  return type === 'scenario' ? settings.scenarioTimeoutMs + settings.captureTimeoutMs : settings.captureTimeoutMs;
}

/** A running attempt that started at or before these instants has outlived its lease: presumed dead. */
export function leaseExpiredBefore(now: Date, settings: LeaseSettings): RunningCutoffs {
  const cutoff = (type: JobType) => new Date(now.getTime() - maxRunMs(type, settings) - LEASE_MARGIN_MS);
  return { screenshot: cutoff('screenshot'), scenario: cutoff('scenario'), render: cutoff('render') };
}

/** What the periodic sweep hands to the transport again: queued past the grace period, or running past the lease. */
export function staleCutoffs(now: Date, settings: LeaseSettings): StaleCutoffs {
  return { queuedBefore: new Date(now.getTime() - QUEUED_GRACE_MS), runningStartedBefore: leaseExpiredBefore(now, settings) };
}
