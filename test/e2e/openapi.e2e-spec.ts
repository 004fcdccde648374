import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { STEP_TYPES } from '../../src/modules/scenarios/domain/steps';
import { optionsSetOn } from '../../src/shared/domain/capture-option-table';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The served OpenAPI document against the binding spec. docs/spec/screenshot-api-spec.md is a verbatim copy
 * of the spec (../shared is not there on a clean clone); its endpoint tables are parsed here, so an endpoint
 * the spec names but the document lacks fails this test.
 */

type Json = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const API_MD_EXTRAS = ['get /jobs', 'get /jobs/{id}', 'get /executions/{id}', 'get /scenarios/{id}/executions', 'get /screenshots/{id}/thumbnail'];
/** POST operations that take no body at all. */
const BODILESS = [
  'post /scenarios/{id}/run',
  'post /sessions/{id}/refresh',
  'post /webhooks/{id}/test',
  'post /notification-channels/{id}/test',
  'post /schedules/{id}/run',
];

/** `METHOD /path` of every row of the spec's endpoint tables (section "Endpoints"), `{id}` kept as is. */
function specOperations(): string[] {
  const spec = readFileSync(join(__dirname, '..', '..', 'docs', 'spec', 'screenshot-api-spec.md'), 'utf8');
  const section = spec.slice(spec.indexOf('\n## Endpoints'), spec.indexOf('\n## Authentication'));
  const rows = section.split('\n').filter((line) => line.startsWith('|'));
  return rows.flatMap((row) => [...row.matchAll(/\b(GET|POST|PUT|DELETE|PATCH) `(\/[^`\s]*)`/g)].map((m) => `${m[1].toLowerCase()} ${m[2]}`));
}

describe('OpenAPI document (GET /openapi.json) and Swagger UI (GET /docs)', () => {
  let t: TestApp;
  let doc: Json;

  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ key: `${method} ${path}`, path, method, op: item[method] as Json })),
    );
  // A render's signed link (GET /renders/{id}) is authenticated by its signature, not the bearer token.
  const authenticated = () => operations().filter((o) => o.path !== '/health' && o.path !== '/renders/{id}');
  /** Follows a `#/components/...` reference (and only those). */
  const deref = (node: Json): Json => {
    if (typeof node?.$ref !== 'string') return node;
    expect(node.$ref).toMatch(/^#\/components\//);
    const target = node.$ref
      .slice(2)
      .split('/')
      .reduce((at: Json | undefined, part: string) => at?.[part], doc);
    expect({ ref: node.$ref, resolves: target !== undefined }).toEqual({ ref: node.$ref, resolves: true });
    return deref(target as Json);
  };
  const success = (op: Json): [string, Json] => {
    const found = Object.entries(op.responses as Json).find(([status]) => /^2\d\d$/.test(status));
    expect(found).toBeDefined();
    return found as [string, Json];
  };
  const jsonSchema = (response: Json): Json => deref(deref(response).content['application/json'].schema);
  const props = (schema: Json): Json => deref(schema).properties;

  beforeAll(async () => {
    t = await startTestApp();
    const res = await request(t.url).get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.body;
  });
  afterAll(async () => t.close());

  it('is OpenAPI 3 with the service’s title and version', () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toEqual(expect.any(String));
    expect(doc.info.description).toEqual(expect.any(String));
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(doc.info.version).toBe(pkg.version);
  });

  it('has every endpoint of the spec’s tables and of API.md, path and method, and no dashboard route', () => {
    const wanted = specOperations();
    expect(wanted.length).toBeGreaterThanOrEqual(24); // a broken parser must not pass with nothing to check
    expect(wanted).toEqual(
      expect.arrayContaining(['get /websites', 'post /screenshots/download-bulk', 'post /scenarios/{id}/run', 'get /health', 'get /test']),
    );
    const have = new Set(operations().map((o) => o.key));
    expect([...wanted, ...API_MD_EXTRAS].filter((op) => !have.has(op))).toEqual([]);
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/dashboard'))).toEqual([]);
  });

  it('every operation has a summary, a tag and a documented success response', () => {
    for (const { key, op } of operations()) {
      expect({ key, summary: op.summary, tags: op.tags?.length }).toEqual({ key, summary: expect.any(String), tags: 1 });
      const [, response] = success(op);
      // One media type each, but the download: a screenshot is sent in its own format (png, jpeg, webp, pdf).
      // A render answers the file in its format or, with response_type=json, JSON; its signed link, the file.
      const types = key === 'get /screenshots/{id}/download' || key === 'get /renders/{id}' ? 4 : key.endsWith(' /render') ? 5 : 1;
      expect({ key, content: Object.keys(response.content ?? {}).length }).toEqual({ key, content: types });
    }
  });

  it('the bearer scheme applies to every operation but Health Check', () => {
    const schemes = Object.entries(doc.components.securitySchemes as Json).filter(([, s]) => s.type === 'http' && s.scheme === 'bearer');
    expect(schemes).toHaveLength(1);
    const [name] = schemes[0];
    for (const { key, op } of authenticated()) expect({ key, security: op.security }).toEqual({ key, security: [{ [name]: [] }] });
    expect(doc.paths['/health'].get.security ?? []).toEqual([]);
    expect(doc.security ?? []).toEqual([]);
  });

  it('authenticated operations carry the X-RateLimit-* headers on success and document 401, 403 and 429 (with Retry-After)', () => {
    for (const { key, op } of authenticated()) {
      const [status, response] = success(op);
      const headers = Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, header]) => [name, deref(header as Json)]));
      expect({ key, status, headers: Object.keys(headers) }).toEqual({ key, status, headers: expect.arrayContaining(RATE_LIMIT_HEADERS) });
      for (const name of RATE_LIMIT_HEADERS) expect(headers[name].schema).toEqual(expect.objectContaining({ type: 'integer' }));
      expect({ key, errors: ['401', '403', '429'].filter((s) => !op.responses[s]) }).toEqual({ key, errors: [] });
      expect({ key, retryAfter: Object.keys(op.responses['429'].headers ?? {}) }).toEqual({
        key,
        retryAfter: expect.arrayContaining([...RATE_LIMIT_HEADERS, 'Retry-After']),
      });
    }
    expect(Object.keys(doc.paths['/health'].get.responses['200'].headers ?? {})).toEqual([]);
  });

  it('error bodies: 401 exactly the spec’s, 403 with current_plan, 429 with message/limit/current/reset_at', () => {
    const op = doc.paths['/websites'].get;
    const unauthorized = jsonSchema(op.responses['401']);
    expect(props(unauthorized)).toMatchObject({ success: { enum: [false] }, error: { enum: ['Unauthorized'] }, code: { enum: ['unauthorized'] } });
    expect(unauthorized.required).toEqual(expect.arrayContaining(['success', 'error', 'code']));
    const noAccess = jsonSchema(op.responses['403']);
    expect(props(noAccess)).toMatchObject({
      error: { enum: ['API access is not available on your plan'] },
      code: { enum: ['plan_no_api_access'] },
      current_plan: { type: 'string' },
    });
    const limited = jsonSchema(op.responses['429']);
    expect(props(limited)).toMatchObject({
      error: { enum: ['Rate limit exceeded'] },
      code: { enum: ['rate_limited'] },
      message: { type: 'string' },
      limit: { type: 'integer' },
      current: { type: 'integer' },
      reset_at: { type: 'string', format: 'date-time' },
    });
    expect(limited.required).toEqual(expect.arrayContaining(['message', 'limit', 'current', 'reset_at']));
    expect(props(jsonSchema(op.responses['503'])).code.enum).toEqual(['unavailable']);
  });

  it('bodies of POST/PUT operations have schemas; those answer 400, 413 and 422 (with details)', () => {
    const writes = operations().filter((o) => o.method === 'post' || o.method === 'put');
    expect(writes.length).toBeGreaterThanOrEqual(9);
    for (const { key, op } of writes) {
      if (BODILESS.includes(key)) {
        expect({ key, body: op.requestBody }).toEqual({ key, body: undefined });
        continue;
      }
      const schema = deref(op.requestBody?.content?.['application/json']?.schema);
      expect({ key, properties: Object.keys(schema?.properties ?? {}).length > 0 }).toEqual({ key, properties: true });
      if (key === 'post /mcp') {
        // A JSON-RPC message, judged by the protocol (its errors are JSON-RPC errors), not by a DTO naming fields.
        expect({ key, errors: ['400', '413'].filter((s) => !op.responses[s]) }).toEqual({ key, errors: [] });
        expect(Object.keys(schema.properties).sort()).toEqual(['id', 'jsonrpc', 'method', 'params']);
        continue;
      }
      expect({ key, errors: ['400', '413', '422'].filter((s) => !op.responses[s]) }).toEqual({ key, errors: [] });
      const details = props(jsonSchema(op.responses['422'])).details;
      expect({ key, details: details?.type }).toEqual({ key, details: 'array' });
      expect(props(details.items)).toMatchObject({ field: { type: 'string' }, message: { type: 'string' } });
      expect(props(jsonSchema(op.responses['400'])).code.enum).toEqual(['bad_request']);
      expect(props(jsonSchema(op.responses['413'])).code.enum).toEqual(['payload_too_large']);
    }
    expect(doc.paths['/websites'].post.requestBody.required).toBe(true);
    expect(deref(doc.paths['/websites'].post.requestBody.content['application/json'].schema).required).toEqual(['name', 'url']);
    expect(doc.paths['/websites/{id}/screenshot'].post.requestBody.required).toBe(false);
  });

  it('operations on an id document 404; Bulk Download documents plan_upgrade_required with required_plans', () => {
    for (const { key, op } of authenticated().filter((o) => o.path.includes('{id}'))) {
      expect({ key, notFound: props(jsonSchema(op.responses['404'] ?? {})).code.enum }).toEqual({ key, notFound: ['not_found'] });
    }
    const bulk = doc.paths['/screenshots/download-bulk'].post;
    const forbidden = deref(bulk.responses['403']).content['application/json'].schema.oneOf.map((s: Json) => deref(s));
    expect(forbidden.map((s: Json) => s.properties.code.enum[0]).sort()).toEqual(['plan_no_api_access', 'plan_upgrade_required']);
    expect(forbidden.find((s: Json) => s.properties.required_plans).properties).toMatchObject({
      current_plan: { type: 'string' },
      required_plans: { type: 'array' },
    });
  });

  it('binary responses: PNG download, ZIP bulk download, WebP thumbnail', () => {
    const binary = { schema: { type: 'string', format: 'binary' } };
    expect(doc.paths['/screenshots/{id}/download'].get.responses['200'].content).toEqual({
      'image/png': binary,
      'image/jpeg': binary,
      'image/webp': binary,
      'application/pdf': binary,
    });
    expect(doc.paths['/screenshots/download-bulk'].post.responses['200'].content).toEqual({ 'application/zip': binary });
    expect(doc.paths['/screenshots/{id}/thumbnail'].get.responses['200'].content).toEqual({ 'image/webp': binary });
    expect(doc.paths['/screenshots/{id}/download'].get.responses['304']).toBeDefined();
  });

  it('lists answer the pagination envelope and take page, per_page and the filters of API.md', () => {
    const lists = ['/websites', '/screenshots', '/jobs', '/scenarios', '/schedules', '/scenarios/{id}/executions'];
    for (const path of lists) {
      const op = doc.paths[path].get;
      const envelope = jsonSchema(op.responses['200']);
      expect({ path, required: envelope.required }).toEqual({ path, required: ['data', 'meta', 'links'] });
      expect(envelope.properties.data.type).toBe('array');
      expect(Object.keys(props(envelope.properties.meta)).sort()).toEqual(['current_page', 'last_page', 'per_page', 'total']);
      const links = props(envelope.properties.links);
      expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next', 'prev']);
      expect([links.prev.nullable, links.next.nullable]).toEqual([true, true]);
      const query = Object.fromEntries((op.parameters as Json[]).filter((p) => p.in === 'query').map((p) => [p.name, p.schema]));
      expect(query.page).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
      expect(query.per_page).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 15 });
    }
    const queryOf = (path: string) => (doc.paths[path].get.parameters as Json[]).filter((p) => p.in === 'query').map((p) => p.name);
    expect(queryOf('/screenshots')).toEqual(expect.arrayContaining(['website_id', 'status', 'scenario_id']));
    expect(queryOf('/jobs')).toEqual(expect.arrayContaining(['status', 'website_id']));
  });

  it('scenario steps are a oneOf discriminated by type, one schema per step type', () => {
    const steps = props(deref(doc.paths['/scenarios'].post.requestBody.content['application/json'].schema)).steps;
    expect(steps).toMatchObject({ type: 'array', minItems: 1, maxItems: 50 });
    const { oneOf, discriminator } = steps.items;
    expect(discriminator.propertyName).toBe('type');
    expect(Object.keys(discriminator.mapping).sort()).toEqual([...STEP_TYPES].sort());
    expect(oneOf).toHaveLength(STEP_TYPES.length);
    for (const type of STEP_TYPES) {
      const schema = deref({ $ref: discriminator.mapping[type] });
      expect({ type, enum: schema.properties.type.enum, required: schema.required }).toEqual({
        type,
        enum: [type],
        required: expect.arrayContaining(['type']),
      });
    }
    expect(props(jsonSchema(doc.paths['/scenarios/{id}'].get.responses['200'])).data).toEqual({ $ref: expect.any(String) });
  });

  it('GET /render declares every capture option of the table as a query parameter (secrets left out), the render’s fields and a signed link’s', () => {
    const query = (doc.paths['/render'].get.parameters as Json[]).filter((p) => p.in === 'query');
    const byName = Object.fromEntries(query.map((p) => [p.name, p]));
    const names = query.map((p) => p.name as string);
    expect(new Set(names).size).toBe(names.length);
    const options = optionsSetOn('render');
    expect(options.length).toBeGreaterThan(30); // the table, not a short hand-kept list
    const plain = options.filter((o) => !o.secret).map((o) => o.wire);
    const secret = options.filter((o) => o.secret).map((o) => o.wire);
    expect(secret).toEqual(expect.arrayContaining(['cookies', 'headers', 'http_auth']));
    expect([...names].sort()).toEqual(
      [...plain, 'url', 'response_type', 'formats', 'cache_ttl', 'cache_key', 'fresh', 'access_key', 'expires', 'signature'].sort(),
    );
    for (const name of secret) expect(doc.paths['/render'].get.description).toContain(`\`${name}\``);
    expect(byName.url).toMatchObject({ required: true, schema: { type: 'string', minLength: 1 } });
    expect(byName.cache_key).toMatchObject({ required: false, schema: { type: 'string', minLength: 1 } });
    expect(byName.viewport_width.schema).toMatchObject({ type: 'integer', minimum: 320, maximum: 3840 });
    expect(byName.full_page.schema).toMatchObject({ type: 'boolean' });
    expect(byName.format.schema.enum).toEqual(expect.arrayContaining(['png', 'jpeg', 'pdf']));
    expect(byName.hide_selectors.schema).toMatchObject({ type: 'array', maxItems: 50 });
    expect(byName.clip.schema).toMatchObject({ type: 'string' });
    // GET /render takes formats=png,markdown,metadata (docs/outputs.md): declared, as the query spells it.
    expect(byName.formats).toMatchObject({ required: false, schema: { type: 'string', example: 'png,markdown,metadata' } });
    expect(byName.expires).toMatchObject({ required: false, schema: { type: 'integer' } });
    expect(byName.signature).toMatchObject({ required: false, schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } });
    for (const p of query) expect({ name: p.name, description: typeof p.description }).toEqual({ name: p.name, description: 'string' });
    // POST /render takes its options in the body; its query declares nothing.
    expect((doc.paths['/render'].post.parameters ?? []).filter((p: Json) => p.in === 'query')).toEqual([]);
  });

  it('POST /websites takes monitor {every, channel_ids} and answers it; POST /mcp is declared (GET /mcp, a 405, is not)', () => {
    const create = doc.paths['/websites'].post;
    expect(create.operationId).toBe('Websites_create');
    const body = deref(create.requestBody.content['application/json'].schema as Json);
    const monitor = deref(props(body).monitor as Json);
    expect(props(monitor).every.enum).toEqual(expect.arrayContaining(['5m', '15m', '30m', '1h', '1d', '1w', 'hourly']));
    expect(props(monitor).channel_ids).toMatchObject({ type: 'array', items: { type: 'integer' } });
    expect(monitor.required).toEqual(['every']);
    const answer = props(jsonSchema(create.responses['201']));
    expect(answer.data).toEqual({ $ref: '#/components/schemas/Website' });
    expect(Object.keys(props(deref(answer.monitor as Json))).sort()).toEqual(['channel_ids', 'every', 'first_job_id', 'schedule_id']);
    expect(Object.keys(doc.paths['/mcp'])).toEqual(['post']);
    expect(doc.paths['/mcp'].post.tags).toEqual(['MCP']);
  });

  it('GET /renders/{id} requires expires and signature; render url, cache_key and a channel’s target have minLength 1', () => {
    const query = Object.fromEntries((doc.paths['/renders/{id}'].get.parameters as Json[]).filter((p) => p.in === 'query').map((p) => [p.name, p]));
    expect(query.expires).toMatchObject({ required: true, schema: { type: 'integer', minimum: 0 } });
    expect(query.signature).toMatchObject({ required: true, schema: { type: 'string', minLength: 1 } });
    const render = props(doc.paths['/render'].post.requestBody.content['application/json'].schema);
    expect(render.url).toMatchObject({ type: 'string', minLength: 1 });
    expect(render.cache_key).toMatchObject({ type: 'string', minLength: 1 });
    for (const method of ['post', 'put']) {
      const path = method === 'post' ? '/notification-channels' : '/notification-channels/{id}';
      expect(props(doc.paths[path][method].requestBody.content['application/json'].schema).target).toMatchObject({ type: 'string', minLength: 1 });
    }
  });

  it('every $ref resolves inside components', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of new Set(refs)) deref({ $ref: ref });
  });

  it('GET /openapi.json is public and not rate limited: no token needed, a bad one ignored, no X-RateLimit headers', async () => {
    for (const headers of [{}, { Authorization: 'Bearer not-a-token' }]) {
      const res = await request(t.url).get('/openapi.json').set(headers).expect(200);
      expect(res.body.openapi).toBe(doc.openapi);
      expect(Object.keys(res.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
    }
  });

  it('GET /docs is Swagger UI on the document, public and not rate limited, and its assets load', async () => {
    const res = await request(t.url).get('/docs').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
    expect(res.text).toContain('id="swagger-ui"');
    const assets = [...res.text.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    expect(assets.filter((a) => a.endsWith('.js')).length).toBeGreaterThanOrEqual(2);
    expect(assets.filter((a) => a.endsWith('.css')).length).toBeGreaterThanOrEqual(1);
    let init = '';
    for (const asset of assets) {
      const file = await request(t.url)
        .get(new URL(asset, `${t.url}/docs`).pathname)
        .expect(200);
      expect(file.headers['content-type']).toMatch(asset.endsWith('.css') ? /^text\/css/ : /javascript/);
      expect(Object.keys(file.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
      if (asset.endsWith('-init.js')) init = file.text;
    }
    expect(init).toContain('SwaggerUIBundle');
    expect(init).toContain('/openapi.json');
  });
});
