import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { AppConfig } from './config/app-config';
import { BODY_LIMIT_BYTES, registerBodyParsers } from './shared/http/body-parsing';
import { setupOpenApi } from './shared/http/openapi';
import { createValidationPipe } from './shared/http/validation';
import { UrlPolicy } from './shared/url-policy';

export function createFastifyAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({ bodyLimit: BODY_LIMIT_BYTES, trustProxy: config.trustProxy, logger: false });
}

/** Nest's own body parsers are off: ours (registerBodyParsers) decide what an empty or malformed body means. */
export const HTTP_APP_OPTIONS = { bodyParser: false } as const;

/** Everything an HTTP app needs beyond its module graph; shared by main.ts and the e2e tests. */
export function configureHttpApp(app: NestFastifyApplication): void {
  app.useLogger(app.get(Logger));
  const fastify = app.getHttpAdapter().getInstance();
  registerBodyParsers(fastify);
  // Errors Fastify raises before a route runs (a request it cannot read) reach the global ErrorFilter
  // through Nest's own Fastify error handler, so they get the same body as every other error.
  app.useGlobalPipes(createValidationPipe({ urlPolicy: app.get(UrlPolicy) }));
  setupOpenApi(app);
  app.enableShutdownHooks();
}
