import type { Options } from 'pino-http';

interface SerializedRequest {
  id?: unknown;
  method?: string;
  url?: string;
  remoteAddress?: string;
}

/**
 * The access log: one line per answered request, saying who asked for what and how it went — and nothing
 * a reader of the logs should not have. Headers are left out altogether (the bearer token and the session
 * cookie are in them), and so is the query string (long-poll waits, page numbers: noise, and a place where a
 * client could put anything). Leaving them out is also what makes a line cheap: pino-http's default serializers
 * copy every header of every request and response, then clone them again to redact the secret ones, which
 * cost more per request than the whole authenticated lookup (bench/api-bench.ts, README "Per-request cost").
 */
export function serializeRequest(req: SerializedRequest): Record<string, unknown> {
  const url = typeof req.url === 'string' ? req.url : '';
  const queryAt = url.indexOf('?');
  return { id: req.id, method: req.method, path: queryAt === -1 ? url : url.slice(0, queryAt), remoteAddress: req.remoteAddress };
}

export function serializeResponse(res: { statusCode?: number }): Record<string, unknown> {
  return { statusCode: res.statusCode };
}

export function accessLogOptions(level: string): Options {
  return {
    level,
    serializers: { req: serializeRequest, res: serializeResponse },
    // Belt and braces: should a serializer ever include headers again, tokens and cookies stay out.
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
    autoLogging: { ignore: (req) => req.url === '/health' },
  };
}
