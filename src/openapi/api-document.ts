import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { OperationObject, ParameterObject, ResponseObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ref, SCHEMAS } from './schemas';

/**
 * The OpenAPI 3 document: paths, methods and path parameters come from the controllers (Nest's route
 * metadata, so a route cannot exist without appearing here); OPERATIONS adds what each one means, and the
 * rules every authenticated call shares — bearer scheme, rate-limit headers, error bodies — are applied once.
 */
type Ok =
  | { status: 200 | 201; json: SchemaObject | { $ref: string } }
  | { status: 200; media: 'image/png' | 'application/zip' | 'image/webp'; description: string };

interface OperationDoc {
  tag: string;
  summary: string;
  body?: string;
  query?: ParameterObject[];
  ok: Ok;
}

const q = (name: string, schema: SchemaObject, description?: string): ParameterObject => ({ name, in: 'query', required: false, schema, description });
const PAGE = [q('page', { type: 'integer', minimum: 1, default: 1 }), q('per_page', { type: 'integer', minimum: 1, maximum: 100, default: 15 })];

const data = (schema: string) => ({ type: 'object', required: ['success', 'data'], properties: { success: { type: 'boolean', enum: [true] }, data: ref(schema) } }) as SchemaObject;
const list = (schema: string): SchemaObject => ({
  type: 'object',
  required: ['data', 'meta', 'links'],
  description: 'The pagination envelope, newest first.',
  properties: { data: { type: 'array', items: ref(schema) }, meta: ref('PageMeta'), links: ref('PageLinks') },
});
const created = (schema: string): Ok => ({ status: 201, json: data(schema) });
const ok = (schema: SchemaObject | { $ref: string }): Ok => ({ status: 200, json: schema });
const deleted: Ok = ok(ref('Success'));

const OPERATIONS: Record<string, OperationDoc> = {
  'get /health': { tag: 'Utility', summary: 'Health Check (no token; not rate limited)', ok: ok(ref('Health')) },
  'get /test': { tag: 'Utility', summary: 'Test Connection: the caller and its rate-limit window', ok: ok(ref('TestConnection')) },
  'get /websites': { tag: 'Websites', summary: 'List Websites', query: PAGE, ok: ok(list('Website')) },
  'post /websites': { tag: 'Websites', summary: 'Create Website', body: 'CreateWebsite', ok: created('Website') },
  'get /websites/{id}': { tag: 'Websites', summary: 'Get Website', ok: ok(data('Website')) },
  'put /websites/{id}': { tag: 'Websites', summary: 'Update Website (partial)', body: 'UpdateWebsite', ok: ok(data('Website')) },
  'delete /websites/{id}': { tag: 'Websites', summary: 'Delete Website (with its screenshots, scenarios and schedules)', ok: deleted },
  'post /websites/{id}/screenshot': { tag: 'Websites', summary: 'Take Screenshot: queue a capture job (optional body; Idempotency-Key header)', body: 'TakeScreenshot', ok: ok(ref('JobQueued')) },
  'get /screenshots': {
    tag: 'Screenshots',
    summary: 'List Screenshots',
    query: [...PAGE, q('website_id', { type: 'integer' }), q('scenario_id', { type: 'integer' }), q('status', { type: 'string', enum: ['success'] })],
    ok: ok(list('Screenshot')),
  },
  'get /screenshots/{id}': { tag: 'Screenshots', summary: 'Get Screenshot', ok: ok(data('Screenshot')) },
  'get /screenshots/{id}/download': { tag: 'Screenshots', summary: 'Download Screenshot (PNG; ETag / If-None-Match → 304)', ok: { status: 200, media: 'image/png', description: 'The PNG, as an attachment' } },
  'get /screenshots/{id}/thumbnail': { tag: 'Screenshots', summary: 'Screenshot thumbnail (WebP, at most 400×300, the top of tall captures)', ok: { status: 200, media: 'image/webp', description: 'The thumbnail' } },
  'post /screenshots/download-bulk': { tag: 'Screenshots', summary: 'Bulk Download: a streamed ZIP of up to 100 screenshots (Pro and Business)', body: 'BulkDownload', ok: { status: 200, media: 'application/zip', description: 'ZIP with entries <id>-<website-name>.png' } },
  'delete /screenshots/{id}': { tag: 'Screenshots', summary: 'Delete Screenshot (row and file)', ok: deleted },
  'get /jobs': { tag: 'Jobs', summary: 'List jobs', query: [...PAGE, q('status', { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] }), q('website_id', { type: 'integer' })], ok: ok(list('Job')) },
  'get /jobs/{id}': { tag: 'Jobs', summary: 'Get a job (queued → running → succeeded | failed)', ok: ok(data('Job')) },
  'get /scenarios': { tag: 'Scenarios', summary: 'List Scenarios', query: [...PAGE, q('website_id', { type: 'integer' })], ok: ok(list('Scenario')) },
  'post /scenarios': { tag: 'Scenarios', summary: 'Create Scenario', body: 'CreateScenario', ok: created('Scenario') },
  'get /scenarios/{id}': { tag: 'Scenarios', summary: 'Get Scenario', ok: ok(data('Scenario')) },
  'put /scenarios/{id}': { tag: 'Scenarios', summary: 'Update Scenario (partial; steps replace the whole list)', body: 'UpdateScenario', ok: ok(data('Scenario')) },
  'delete /scenarios/{id}': { tag: 'Scenarios', summary: 'Delete Scenario', ok: deleted },
  'post /scenarios/{id}/run': { tag: 'Scenarios', summary: 'Run Scenario (Idempotency-Key header)', ok: ok(ref('ExecutionQueued')) },
  'get /scenarios/{id}/executions': { tag: 'Scenarios', summary: "List a scenario's executions", query: PAGE, ok: ok(list('Execution')) },
  'get /executions/{id}': { tag: 'Scenarios', summary: 'Get an execution (per-step status)', ok: ok(data('Execution')) },
  'get /schedules': { tag: 'Schedules', summary: 'List Schedules', query: PAGE, ok: ok(list('Schedule')) },
  'post /schedules': { tag: 'Schedules', summary: 'Create Schedule', body: 'CreateSchedule', ok: created('Schedule') },
  'get /schedules/{id}': { tag: 'Schedules', summary: 'Get Schedule', ok: ok(data('Schedule')) },
  'put /schedules/{id}': { tag: 'Schedules', summary: 'Update Schedule (partial; enabled toggles)', body: 'UpdateSchedule', ok: ok(data('Schedule')) },
  'delete /schedules/{id}': { tag: 'Schedules', summary: 'Delete Schedule', ok: deleted },
};

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Maximum requests per minute for the plan', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute (0 on a 429)', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix timestamp in seconds when the limit resets', schema: { type: 'integer' } },
};
const headerRefs = Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((h) => [h, { $ref: `#/components/headers/${h}` }]));

function jsonResponse(description: string, schema: SchemaObject | { $ref: string }, withHeaders = true): ResponseObject {
  return { description, ...(withHeaders ? { headers: headerRefs } : {}), content: { 'application/json': { schema } } };
}

function document(op: OperationObject, path: string, doc: OperationDoc): void {
  const isPublic = path === '/health';
  op.tags = [doc.tag];
  op.summary = doc.summary;
  op.parameters = [
    ...(op.parameters ?? []).map((p) => {
      const param = p as ParameterObject;
      if (param.in !== 'path') return param;
      const isUuid = /^\/(jobs|executions)\//.test(path);
      return { ...param, schema: isUuid ? { type: 'string', format: 'uuid' } : { type: 'integer', minimum: 1 } };
    }),
    ...(doc.query ?? []),
  ];
  if (doc.body) {
    op.requestBody = { required: !doc.body.startsWith('Take'), content: { 'application/json': { schema: ref(doc.body) } } };
  } else {
    delete op.requestBody;
  }
  const responses: Record<string, ResponseObject> = {};
  responses[String(doc.ok.status)] =
    'media' in doc.ok
      ? { description: doc.ok.description, headers: headerRefs, content: { [doc.ok.media]: { schema: { type: 'string', format: 'binary' } } } }
      : jsonResponse('Success', doc.ok.json, !isPublic);
  if (isPublic) {
    responses['503'] = jsonResponse('Degraded: the database or the queue is down', ref('Health'), false);
  } else {
    responses['401'] = jsonResponse('Missing, malformed, unknown or revoked token', ref('Unauthorized'), false);
    responses['403'] = jsonResponse(
      doc.body === 'BulkDownload' ? 'Free plan, expired or inactive subscription (plan_no_api_access); Starter plan (plan_upgrade_required)' : 'Free plan, expired or inactive subscription',
      doc.body === 'BulkDownload' ? { oneOf: [ref('PlanNoApiAccess'), ref('PlanUpgradeRequired')] } : ref('PlanNoApiAccess'),
    );
    if (path.includes('{id}') || doc.body === 'BulkDownload') responses['404'] = jsonResponse('Unknown id, or one of another account', ref('NotFound'));
    if (doc.body || doc.query) responses['422'] = jsonResponse('Invalid or unknown fields; details name each one', ref('ValidationFailed'));
    if (doc.body) {
      responses['400'] = jsonResponse('Body is not JSON or not application/json', ref('Error'));
      responses['413'] = jsonResponse('Body over 1 MiB', ref('PayloadTooLarge'));
    }
    responses['429'] = {
      ...jsonResponse('Over the per-minute or per-hour limit', ref('RateLimited')),
      headers: { ...headerRefs, 'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer' } } },
    };
    responses['503'] = jsonResponse('Database or queue unavailable; nothing was applied', ref('Unavailable'));
    op.security = [{ bearer: [] }];
  }
  op.responses = responses;
}

export function buildApiDocument(app: INestApplication, version: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Screenshot capture service')
    .setDescription(
      'Real Chromium screenshots of your websites, on demand, by scenario or on a schedule. Every call but Health Check needs ' +
        '`Authorization: Bearer <token>` (tokens are made in the dashboard, Settings → API Keys) and an active Starter, Pro or Business ' +
        'plan; every authenticated response carries the X-RateLimit-* headers of the current calendar minute. Errors: ' +
        '`{success: false, error, code, ...}`.',
    )
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API token: sst_ followed by 43 base64url characters' }, 'bearer')
    .build();
  const doc = SwaggerModule.createDocument(app, config, { operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}` });
  doc.components = { ...doc.components, schemas: SCHEMAS, headers: RATE_LIMIT_HEADERS } as OpenAPIObject['components'];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'delete', 'patch'] as const) {
      const op = item[method];
      if (!op) continue;
      const described = OPERATIONS[`${method} ${path}`];
      if (described) document(op, path, described);
    }
  }
  return doc;
}

const UI_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
};

const UI_INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout', persistAuthorization: true });
};`;

const UI_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Screenshot service API</title><link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script><script src="/docs/swagger-ui-standalone-preset.js"></script><script src="/docs/init.js"></script>
</body></html>`;

/**
 * Serves the document at /openapi.json and Swagger UI at /docs. Registered on Fastify directly, outside
 * Nest's guards: public, no token, not rate limited. The UI's files come from swagger-ui-dist (read once
 * here, so no static-file plugin is needed).
 */
export function setUpApiDocs(app: INestApplication, version: string): void {
  const json = JSON.stringify(buildApiDocument(app, version));
  const uiDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets = Object.entries(UI_ASSETS).map(([name, type]) => ({ name, type, body: readFileSync(join(uiDir, name)) }));
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  fastify.get('/openapi.json', (_req, reply) => reply.type('application/json; charset=utf-8').send(json));
  fastify.get('/docs', (_req, reply) => reply.type('text/html; charset=utf-8').send(UI_PAGE));
  fastify.get('/docs/init.js', (_req, reply) => reply.type('text/javascript; charset=utf-8').send(UI_INIT));
  for (const asset of assets) {
    fastify.get(`/docs/${asset.name}`, (_req, reply) => reply.type(asset.type).header('Cache-Control', 'public, max-age=86400').send(asset.body));
  }
}

/** For the document's own test: every described operation. */
export const DESCRIBED_OPERATIONS = Object.keys(OPERATIONS);
