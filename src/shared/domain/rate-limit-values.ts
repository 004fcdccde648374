/**
 * The values of the spec's three X-RateLimit-* headers: rate-limiting's quota and per-address limits produce them,
 * shared/http writes them. Defined once here, below both.
 */
export interface RateLimitHeaderValues {
  limit: number;
  remaining: number;
  /** Unix seconds. */
  reset: number;
}
