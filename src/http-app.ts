import { CanActivate } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Logger, PinoLogger } from 'nestjs-pino';
import { AppConfig } from './config/app-config';
import { ApiAccessGuard, AuthGuard } from './modules/accounts/http/auth.guards';
import { Metrics } from './shared/metrics/metrics';
import { timeHttpRequests } from './modules/metrics/http/request-durations';
import { RateLimitGuard } from './modules/rate-limiting/http/rate-limit.guard';
import { BadRequestError, DomainError } from './shared/domain/domain-error';
import { BODY_LIMIT_BYTES, registerBodyParsers } from './shared/http/body-parsing';
import { answerClientError } from './shared/http/client-errors';
import { toErrorResponse } from './shared/http/error-filter';
import { MAX_PATH_SEGMENT, registerRequestFraming } from './shared/http/request-framing';
import { setupOpenApi } from './shared/http/openapi';
import { UnknownRouteController } from './shared/http/unknown-route.controller';
import { createValidationPipe } from './shared/http/validation';
import { writeAccessLog } from './shared/logging/access-log';
import { UrlPolicy } from './shared/url-policy';

/**
 * A path segment this long still reaches its route (where a bad id is a 404 with the caller's rate-limit
 * headers); a longer one is 414 (registerRequestFraming). The request line as a whole is bounded by Node's
 * 16 KiB header limit.
 */
const MAX_PARAM_LENGTH = MAX_PATH_SEGMENT;

type UnroutableAnswer = (error: DomainError, request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** Per Fastify instance: how a request the router could not take is answered (set once the app exists). */
const unroutableAnswers = new WeakMap<object, UnroutableAnswer>();

function sendError(error: unknown, reply: FastifyReply): void {
  const { status, body } = toErrorResponse(error);
  reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
}

export function createFastifyAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy,
    logger: false,
    // Node answers an HTTP/1.1 request without Host with an empty 400; registerRequestFraming answers it with the error body.
    http: { requireHostHeader: false },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler: answerClientError,
    // A URL the router cannot decode (bad percent-encoding) or a segment over MAX_PARAM_LENGTH.
    frameworkErrors: (err: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply) => {
      const error =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new DomainError('uri_too_long', 'A path segment is longer than 2048 characters')
          : new BadRequestError('The request URL is not valid (malformed percent-encoding)');
      const answer = unroutableAnswers.get(reply.server);
      if (answer) void answer(error, request, reply);
      else sendError(error, reply);
    },
  });
}

/** Nest's own body parsers are off: ours (registerBodyParsers) decide what an empty or malformed body means. */
export const HTTP_APP_OPTIONS = { bodyParser: false } as const;

/** Everything an HTTP app needs beyond its module graph; shared by main.ts and the e2e tests. */
export function configureHttpApp(app: NestFastifyApplication): void {
  app.useLogger(app.get(Logger));
  const fastify = app.getHttpAdapter().getInstance();
  writeAccessLog(fastify, () => PinoLogger.root);
  timeHttpRequests(fastify, app.get(Metrics));
  registerBodyParsers(fastify);
  // Errors Fastify raises before a route runs (a request it cannot read) reach the global ErrorFilter
  // through Nest's own Fastify error handler, so they get the same body as every other error.
  app.useGlobalPipes(createValidationPipe({ urlPolicy: app.get(UrlPolicy) }));
  // A request the router refused is answered as an unknown route would be (the same guards, so a client
  // with a token gets its X-RateLimit-* headers and is counted), with the router's error instead of a 404.
  const guards: CanActivate[] = [app.get(AuthGuard), app.get(ApiAccessGuard), app.get(RateLimitGuard)];
  const answerUnroutable: UnroutableAnswer = async (error, request, reply) => {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the context names the handler; nothing calls it through this reference
    const context = new ExecutionContextHost([request, reply], UnknownRouteController, UnknownRouteController.prototype.unknownRoute);
    context.setType('http');
    try {
      for (const guard of guards) await guard.canActivate(context);
      sendError(error, reply);
    } catch (guardError) {
      sendError(guardError, reply);
    }
  };
  unroutableAnswers.set(fastify, answerUnroutable);
  // A missing or doubled Host, a path segment over the limit, a QUERY: answered the same way, before any route.
  registerRequestFraming(fastify, answerUnroutable);
  setupOpenApi(app);
  app.enableShutdownHooks();
}
