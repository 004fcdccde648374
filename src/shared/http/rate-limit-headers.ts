import type { FastifyReply } from 'fastify';
import type { RateLimitHeaderValues } from '../domain/rate-limit-values';

/**
 * The spec's three headers (Limits 3: "Every API response carries these headers"), set in one place for
 * the per-account quota, the per-address limit on failed authentication and uncounted 403s.
 */
export function setRateLimitHeaders(reply: FastifyReply, values: RateLimitHeaderValues): void {
  reply.header('X-RateLimit-Limit', String(values.limit));
  reply.header('X-RateLimit-Remaining', String(values.remaining));
  reply.header('X-RateLimit-Reset', String(values.reset));
}
