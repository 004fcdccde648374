import { AppConfig } from '../../../config/app-config';
import { JobKind } from './job-kinds';
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

/**
 * A running attempt that started at or before these instants has outlived its lease: presumed dead. One cutoff per
 * kind, from the kind's own time limit (JobKind.maxRunMs); a row of a kind this version does not know never lapses.
 */
export function leaseExpiredBefore(now: Date, config: AppConfig, kinds: readonly JobKind[]): RunningCutoffs {
  return Object.fromEntries(kinds.map((kind) => [kind.name, new Date(now.getTime() - kind.maxRunMs(config) - LEASE_MARGIN_MS)]));
}

/** What the periodic sweep hands to the transport again: queued past the grace period, or running past the lease. */
export function staleCutoffs(now: Date, config: AppConfig, kinds: readonly JobKind[]): StaleCutoffs {
  return { queuedBefore: new Date(now.getTime() - QUEUED_GRACE_MS), runningStartedBefore: leaseExpiredBefore(now, config, kinds) };
}
