import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { destination, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

interface RequestLine {
  id?: unknown;
  method?: string;
  url?: string;
  ip?: string;
}

/**
 * The access log: one line per answered request, saying who asked for what and how it went — and nothing
 * a reader of the logs should not have. Headers are left out altogether (the bearer token and the session
 * cookie are in them), and so is the query string (long-poll waits, page numbers: noise, and a place where a
 * client could put anything).
 */
export function serializeRequest(req: RequestLine): Record<string, unknown> {
  const url = typeof req.url === 'string' ? req.url : '';
  const queryAt = url.indexOf('?');
  return { id: req.id, method: req.method, path: queryAt === -1 ? url : url.slice(0, queryAt), remoteAddress: req.ip };
}

export function serializeResponse(res: { statusCode?: number }): Record<string, unknown> {
  return { statusCode: res.statusCode };
}

/**
 * Health checks are polled by load balancers, and /metrics by Prometheus, every few seconds: logging them would
 * drown everything else. A refused scrape (a wrong METRICS_TOKEN) is logged.
 */
export function isLoggedPath(url: string | undefined, statusCode = 200): boolean {
  if (url === '/health') return false;
  return url !== '/metrics' || statusCode !== 200;
}

/** Options of the root logger (nestjs-pino's `pinoHttp`): the level, and secrets redacted should a line ever carry them. */
export function loggerOptions(level: string): LoggerOptions {
  return { level, redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'] };
}

/**
 * Where the lines go: standard output, written asynchronously. pino's default writes each line with its own
 * synchronous write(2), one system call per answered request on the request path; asynchronously, lines logged
 * while a write is under way go out together in the next one (bench/api-bench.ts, docs/benchmark.md
 * "Per-request cost"). pino flushes what is pending when the process exits.
 */
export function logDestination(): DestinationStream {
  return destination({ dest: 1, sync: false });
}

/**
 * Writes the access log from Fastify's onResponse hook, with the root logger.
 *
 * Not pino-http as Nest middleware (nestjs-pino's default): that runs every request through Fastify's middleware
 * engine and an AsyncLocalStorage scope, and the scope turns on promise hooks for the whole process — together
 * a larger share of a request's CPU than authenticating it (bench/api-bench.ts, docs/benchmark.md "Per-request cost").
 * Nothing here needs a per-request logger: log lines from services carry their own context. The root logger is
 * looked up per line because nestjs-pino creates it when the app initialises, after this hook is added.
 */
export function writeAccessLog(fastify: FastifyInstance, rootLogger: () => Logger): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (isLoggedPath(request.url, reply.statusCode)) {
      const logger = rootLogger();
      // `request`/`response`, not pino-http's `req`/`res`: its logger re-serializes those keys as raw Node requests.
      const line = { request: serializeRequest(request), response: serializeResponse(reply), responseTime: Math.round(reply.elapsedTime) };
      if (reply.statusCode >= 500) logger.error(line, 'request errored');
      else logger.info(line, 'request completed');
    }
    done();
  });
}
