import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError, ErrorCode } from '../domain/domain-error';
import { isForeignKeyViolation } from '../persistence/constraint-violations';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  plan_no_api_access: 403,
  plan_upgrade_required: 403,
  forbidden: 403,
  invalid_signature: 403,
  link_expired: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  validation_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
  capture_failed: 502,
  capture_timeout: 504,
};

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'plan_no_api_access',
  404: 'not_found',
  405: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  431: 'headers_too_large',
  422: 'validation_failed',
  429: 'rate_limited',
  503: 'unavailable',
};

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
}

/**
 * What ioredis says when Redis is gone: a command that found no connection (there is no offline queue, so it
 * fails at once), one cut off by a lost connection, or one that outlived the command timeout.
 */
const REDIS_OUTAGE = /Stream isn't writeable|enableOfflineQueue|Command timed out|Reached the max retries per request limit/;

/** Connection-level failures of the database or Redis: the request was not applied, the client may retry. */
export function isInfrastructureOutage(err: unknown): boolean {
  const e = err as { name?: string; code?: string; driverError?: { code?: string }; message?: string } | null;
  const code = e?.code ?? e?.driverError?.code;
  const message = e?.message ?? '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03', '53300', 'SQLITE_BUSY'].includes(String(code)) ||
    e?.name === 'MaxRetriesPerRequestError' ||
    REDIS_OUTAGE.test(message) ||
    /Connection terminated|Connection is closed|connect ECONNREFUSED/.test(message)
  );
}

/**
 * What of an error may be logged: its message, code and stack — never the whole object. TypeORM's
 * QueryFailedError carries the query and its parameters (a scenario's fill values, session and CSRF
 * token hashes…) as properties, which a serializer would copy into the log.
 */
export function loggable(err: unknown): { message: string; code?: string; stack?: string } {
  if (!(err instanceof Error)) return { message: String(err) };
  const code = (err as { code?: unknown }).code;
  return { message: err.message, ...(typeof code === 'string' ? { code } : {}), stack: err.stack };
}

/**
 * Turns anything thrown into the spec's error body `{success: false, error, code, ...}`. Unknown errors
 * become a generic 500: no stack trace, SQL or server path ever reaches a client.
 */
export function toErrorResponse(err: unknown, logger?: Logger): ErrorResponse {
  if (err instanceof DomainError) {
    return { status: STATUS_BY_CODE[err.code], body: { success: false, error: err.message, code: err.code, ...err.extra } };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const code = CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
    const error = status === (HttpStatus.NOT_FOUND as number) ? 'Not found' : status >= 500 ? 'Internal server error' : err.message;
    return { status, body: { success: false, error, code } };
  }
  const fastifyError = err as { statusCode?: number; code?: string; message?: string } | null;
  if (fastifyError?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 413, body: { success: false, error: 'Request body is larger than 1 MiB', code: 'payload_too_large' } };
  }
  if (typeof fastifyError?.code === 'string' && fastifyError.code.startsWith('FST_') && (fastifyError.statusCode ?? 500) < 500) {
    return { status: 400, body: { success: false, error: 'Malformed request', code: 'bad_request' } };
  }
  if (isForeignKeyViolation(err)) {
    // Only a race with a delete gets here (every reference is checked first): answer as that delete would.
    return { status: 404, body: { success: false, error: 'A resource this request refers to no longer exists', code: 'not_found' } };
  }
  if (isInfrastructureOutage(err)) {
    // No stack: during an outage every request lands here, and the stack says nothing new.
    const { message, code } = loggable(err);
    logger?.error({ err: { message, code } }, 'dependency unavailable');
    return { status: 503, body: { success: false, error: 'Service temporarily unavailable', code: 'unavailable' } };
  }
  logger?.error({ err: loggable(err) }, 'unhandled error');
  return { status: 500, body: { success: false, error: 'Internal server error', code: 'internal_error' } };
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { status, body } = toErrorResponse(exception, this.logger);
    if (reply.sent) return; // a stream already started; nothing sane can be sent now
    // A download that failed after setting its own headers must not keep them on the error body.
    reply.removeHeader('content-disposition');
    reply.removeHeader('etag');
    reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }
}
