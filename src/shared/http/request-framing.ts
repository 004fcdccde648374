import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError, DomainError, NotFoundError } from '../domain/domain-error';

/** The documented limit on one path segment (docs/api.md; 414 `uri_too_long` beyond it). */
export const MAX_PATH_SEGMENT = 2048;

/**
 * A Host this API will put in a link or compare with an Origin: a DNS name, an IPv4 address or a bracketed IPv6
 * literal, with an optional port. RFC 3986's reg-name also allows sub-delimiters (`!$&'()*+,;=`) and
 * percent-encoding, which no real client sends and which would make odd links; such a Host is refused.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::\d{1,5})?$/;

export function isValidHost(host: string | undefined): host is string {
  return host !== undefined && HOST.test(host);
}

/** The longest `/`-separated segment of the request-target's path (raw, as sent: percent-escapes count as three). */
function longestSegment(url: string): number {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  let longest = 0;
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i === path.length || path.charCodeAt(i) === 0x2f) {
      longest = Math.max(longest, i - start);
      start = i + 1;
    }
  }
  return longest;
}

/** How many `Host` lines the request carried (Node keeps only the first in `headers`). */
function hostLines(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') count++;
  return count;
}

/**
 * What is wrong with a request before any route may see it, or null. RFC 9112 §3.2: an HTTP/1.1 request
 * without a Host, with two Host lines or an invalid one is a 400 (Node's own check answered an empty body; it is
 * off, see createFastifyAdapter). A path segment over MAX_PATH_SEGMENT is 414 — the router's maxParamLength
 * only covers segments that reach a parameter, and a longer one simply fell through to the unknown route (404).
 * QUERY is a method no route takes: Fastify would refuse it in its own words (a missing Content-Type) first.
 */
export function requestFault(request: FastifyRequest): DomainError | null {
  const lines = hostLines(request);
  if (lines > 1) return new BadRequestError('The request has more than one Host header');
  const host = request.headers.host;
  if (lines === 0 && request.raw.httpVersionMinor >= 1 && request.raw.httpVersionMajor === 1) {
    return new BadRequestError('An HTTP/1.1 request must have a Host header');
  }
  if (lines === 1 && !isValidHost(host)) return new BadRequestError('The Host header is not a valid host[:port]');
  if (longestSegment(request.url) > MAX_PATH_SEGMENT) {
    return new DomainError('uri_too_long', `A path segment is longer than ${MAX_PATH_SEGMENT} characters`);
  }
  if (request.method === 'QUERY') return new NotFoundError('Route');
  return null;
}

/** Whether the request announced a body (Content-Length above 0 or any Transfer-Encoding). */
function announcesBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * An answer sent before the request's body was read to its end — a 401, 403 or 429 to a body the parser cut
 * off at 1 MiB, a 413, a 414 raised before the body was read — closes the connection. Node's server would
 * otherwise keep it alive while the rest of the upload sat unread (the parser stopped reading it), so the next
 * request on it was never answered; draining it instead would read an unbounded upload for nothing. What still
 * arrives is read and dropped until the socket closes, so the kernel is less likely to answer the client's
 * last bytes with a reset before it has read the answer.
 */
function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (request.raw.complete || !announcesBody(request)) return;
  reply.header('connection', 'close');
  request.raw.resume();
}

export type EarlyAnswer = (error: DomainError, request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** The checks above on every request, answered by `answer` (the unknown route's guards, then the error body). */
export function registerRequestFraming(fastify: FastifyInstance, answer: EarlyAnswer): void {
  // A callback hook, not an async one: nearly every request has no fault, and an async hook costs each of them a
  // promise and a turn of the microtask queue. A faulty one is answered by `answer` and goes no further (`done` is
  // called only should answering fail, to hand the error to Fastify as the async hook's rejection did).
  fastify.addHook('onRequest', (request, reply, done) => {
    const fault = requestFault(request);
    if (fault === null) return done();
    answer(fault, request, reply).catch((err: Error) => done(err));
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    closeIfBodyUnread(request, reply);
    done(null, payload);
  });
}
