import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppConfig } from '../../../config/app-config';
import { BEARER_AUTH } from './decorators';
import { conformToServer } from './conformance';
import {
  BadRequestErrorBody,
  HeadersTooLargeErrorBody,
  PayloadTooLargeErrorBody,
  RESPONSE_HEADER_COMPONENTS,
  UnsupportedMediaTypeErrorBody,
  UriTooLongErrorBody,
  ValidationErrorBody,
} from './schemas';

export const OPENAPI_JSON_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

const DESCRIPTION = [
  'Real Chromium screenshots of your websites: on demand, by scripted scenario, or on a schedule.',
  '',
  'Every operation but Health Check needs `Authorization: Bearer <token>` (tokens are made in the dashboard, Settings → API Keys)',
  'and an active Starter, Pro or Business subscription. Requests are limited per account and calendar minute (and hour);',
  'every authenticated response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`.',
  '',
  'Bodies are JSON (`Content-Type: application/json`, at most 1 MiB); unknown fields are refused with 422.',
  'Errors look like `{"success": false, "error": "…", "code": "…"}`; each response below names its codes.',
  'Lists answer `{data, meta: {current_page, last_page, per_page, total}, links: {first, last, prev, next}}`, newest first.',
].join('\n');

/**
 * The OpenAPI 3 document, generated from the controllers' and DTOs' decorators. Dashboard controllers
 * exclude themselves (@ApiExcludeController).
 */
export function createOpenApiDocument(app: INestApplication, version: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Screenshot capture API')
    .setDescription(DESCRIPTION)
    .setVersion(version)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'sst_<43 base64url characters>',
        description: 'An API token, made in the dashboard (Settings → API Keys)',
      },
      BEARER_AUTH,
    )
    .build();
  config.components = { ...config.components, headers: RESPONSE_HEADER_COMPONENTS };
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
    extraModels: [
      BadRequestErrorBody,
      PayloadTooLargeErrorBody,
      ValidationErrorBody,
      UriTooLongErrorBody,
      UnsupportedMediaTypeErrorBody,
      HeadersTooLargeErrorBody,
    ],
  });
  return conformToServer(document);
}

/** Swagger UI's files, from the swagger-ui-dist package @nestjs/swagger depends on. */
const UI_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const UI_INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${OPENAPI_JSON_PATH}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const UI_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Screenshot capture API</title>
  <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/swagger-ui-init.js"></script>
</body>
</html>
`;

/**
 * Serves the document at GET /openapi.json and Swagger UI at GET /docs. The document is built and
 * serialised once, here. The routes go straight onto Fastify, outside Nest's guards and interceptors:
 * public (no token), not counted, no X-RateLimit-* headers. SwaggerModule.setup() is not used: with its UI
 * on, it needs @fastify/static on Fastify, so the UI's few files are served from swagger-ui-dist here.
 */
export function setupOpenApi(app: NestFastifyApplication): void {
  const json = JSON.stringify(createOpenApiDocument(app, app.get(AppConfig).apiVersion));
  const uiDir = dirname(require.resolve('swagger-ui-dist/package.json', { paths: [require.resolve('@nestjs/swagger')] }));
  const assets = new Map<string, Promise<Buffer>>();
  const asset = (name: string): Promise<Buffer> => {
    if (!assets.has(name)) assets.set(name, readFile(join(uiDir, name)));
    return assets.get(name)!;
  };

  const fastify = app.getHttpAdapter().getInstance();
  fastify.get(OPENAPI_JSON_PATH, (_request, reply) => reply.type('application/json; charset=utf-8').header('Cache-Control', 'no-cache').send(json));
  fastify.get(DOCS_PATH, (_request, reply) => reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(UI_HTML));
  fastify.get(`${DOCS_PATH}/swagger-ui-init.js`, (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'no-cache').send(UI_INIT_JS),
  );
  for (const [name, type] of Object.entries(UI_ASSETS)) {
    fastify.get(`${DOCS_PATH}/${name}`, async (_request, reply) =>
      reply
        .type(type)
        .header('Cache-Control', 'public, max-age=86400')
        .send(await asset(name)),
    );
  }
}
