import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Metrics, UNMATCHED_ROUTE } from '../../../shared/metrics/metrics';

/** The patterns of the catch-all route (shared/http/unknown-route.controller.ts) as Nest hands them to Fastify. */
const CATCH_ALL = new Set(['*', '/*']);

/**
 * The route label of a request: the pattern that took it (`/screenshots/:id`), never the path asked for, so
 * the number of series stays bounded whatever clients send. A request no pattern took (the catch-all's 404, a
 * URL the router could not decode) is UNMATCHED_ROUTE.
 */
export function routeLabel(request: Pick<FastifyRequest, 'routeOptions'>): string {
  const pattern = request.routeOptions?.url;
  return pattern === undefined || CATCH_ALL.has(pattern) ? UNMATCHED_ROUTE : pattern;
}

/**
 * Times every answered request from a Fastify hook rather than a Nest interceptor: requests Nest never
 * routes (/openapi.json, /docs, errors raised before a handler) are timed too, and `elapsedTime` is the
 * time until the answer was sent, streamed downloads included.
 */
export function timeHttpRequests(fastify: FastifyInstance, metrics: Metrics): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    metrics.httpRequestTimed(request.method, routeLabel(request), reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
