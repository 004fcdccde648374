/** The parts of a capture that are timed; their sum is the capture's time from its tab opening to its row committed. */
export const CAPTURE_PHASES = ['navigation', 'settle', 'render', 'store'] as const;
export type CapturePhase = (typeof CAPTURE_PHASES)[number];

export type JobOutcome = 'succeeded' | 'failed';

/**
 * The limits a 429 can come from: `api` (an account's quota) and the per-address scopes of RateLimiter
 * (failed authentications, the dashboard, its sign-in form). Listed so each series exists from the start.
 */
export const RATE_LIMIT_NAMES = ['api', 'authfail', 'dash', 'signin'] as const;

/** Route label of every request no route pattern took, so a scan of random paths adds one series, not one per path. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface MetricsExposition {
  contentType: string;
  body: string;
}

/**
 * Port: what this process counts and times for Prometheus. In the shared kernel so that jobs, captures, rate
 * limits and the HTTP layer record without importing the metrics module (which reads jobs and the capture engine). Recording never throws and never waits, so
 * instrumented code cannot fail or slow down because of it. Each app instance has its own registry: two apps
 * in one process (the tests) never mix their counts.
 */
export abstract class Metrics {
  /** A job ended for good (never a retried attempt), counted once by the attempt that ended it; `type` is its job type. */
  abstract jobEnded(type: string, outcome: JobOutcome): void;
  abstract capturePhaseTimed(phase: CapturePhase, seconds: number): void;
  /** `route` is the route's pattern (`/screenshots/:id`) or UNMATCHED_ROUTE, never the raw path. */
  abstract httpRequestTimed(method: string, route: string, status: number, seconds: number): void;
  /** A request answered 429; `limit` names which limit (`api`, or a per-address scope such as `authfail`). */
  abstract rateLimitRejected(limit: string): void;
  /** A capture went through (`success`) or could not connect through (`failure`) a proxy of pool `poolId`. */
  abstract proxyPoolUsed(poolId: number, outcome: 'success' | 'failure'): void;
  /** Everything, in Prometheus text format; gauges are read now (a source that fails is left out, never thrown). */
  abstract scrape(): Promise<MetricsExposition>;
}
