import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

/** Every `METHOD \`/path\`` of the spec's endpoint tables (docs/spec is a verbatim copy of the binding spec). */
function specOperations(): string[] {
  const spec = readFileSync(join(__dirname, '..', '..', 'docs', 'spec', 'screenshot-api-spec.md'), 'utf8');
  return [...spec.matchAll(/\b(GET|POST|PUT|DELETE|PATCH) `(\/[^`]*)`/g)].map((m) => `${m[1].toLowerCase()} ${m[2]}`);
}

const API_MD_EXTRAS = ['get /jobs', 'get /jobs/{id}', 'get /executions/{id}', 'get /scenarios/{id}/executions', 'get /screenshots/{id}/thumbnail'];
const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { security?: unknown[]; summary?: string; requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }> }>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string }>; schemas: Record<string, unknown>; headers: Record<string, unknown> };
};

describe('OpenAPI document (/openapi.json) and interactive docs (/docs)', () => {
  let t: TestApp;
  let doc: Doc;
  const operations = () => Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => ({ key: `${m} ${path}`, path, op: item[m] })));

  beforeAll(async () => {
    t = await startTestApp();
    const res = await request(t.url).get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    doc = res.body;
  });
  afterAll(async () => t.close());

  it('is OpenAPI 3 and lists every endpoint of the spec, path and method', () => {
    expect(doc.openapi).toMatch(/^3\./);
    const wanted = specOperations();
    expect(wanted.length).toBeGreaterThanOrEqual(24); // a broken parser must not pass with nothing to check
    const have = new Set(operations().map((o) => o.key));
    expect(wanted.filter((op) => !have.has(op))).toEqual([]);
  });

  it('lists the endpoints API.md adds, and no dashboard route', () => {
    const have = new Set(operations().map((o) => o.key));
    expect(API_MD_EXTRAS.filter((op) => !have.has(op))).toEqual([]);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/dashboard'))).toEqual([]);
  });

  it('every operation is described: summary, success response with a schema or media type', () => {
    for (const { key, op } of operations()) {
      expect({ key, summary: typeof op.summary === 'string' && op.summary.length > 0 }).toEqual({ key, summary: true });
      const success = Object.entries(op.responses).find(([status]) => /^20\d$/.test(status));
      expect({ key, success: Boolean(success?.[1].content) }).toEqual({ key, success: true });
    }
  });

  it('the bearer scheme guards every operation but Health Check', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { key, path, op } of operations()) {
      expect({ key, secured: Boolean(op.security?.length) }).toEqual({ key, secured: path !== '/health' });
    }
  });

  it('authenticated operations document 401 (spec body), 403, 429 and the X-RateLimit-* headers on success', () => {
    expect(Object.keys(doc.components.headers).sort()).toEqual(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']);
    expect(doc.components.schemas.Unauthorized).toMatchObject({ properties: { error: { enum: ['Unauthorized'] } } });
    expect(doc.components.schemas.RateLimited).toMatchObject({ required: expect.arrayContaining(['message', 'limit', 'current', 'reset_at']) });
    for (const { key, path, op } of operations().filter((o) => o.path !== '/health')) {
      const success = Object.entries(op.responses).find(([status]) => /^20\d$/.test(status))![1];
      expect({ key, headers: Object.keys(success.headers ?? {}).sort() }).toEqual({ key, headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] });
      expect({ key, errors: ['401', '403', '429'].every((s) => op.responses[s]) }).toEqual({ key, errors: true });
      expect(op.responses['429'].headers).toHaveProperty('Retry-After');
      if (path.includes('{id}')) expect({ key, has404: Boolean(op.responses['404']) }).toEqual({ key, has404: true });
    }
  });

  it('bodies of POST/PUT operations have schemas, and invalid ones a 422 with details', () => {
    for (const { key, op } of operations().filter((o) => /^(post|put) /.test(o.key) && !/\/run$/.test(o.path))) {
      expect({ key, body: Boolean(op.requestBody?.content['application/json']?.schema) }).toEqual({ key, body: true });
      expect({ key, has422: Boolean(op.responses['422']) }).toEqual({ key, has422: true });
    }
    expect(doc.components.schemas.ValidationFailed).toMatchObject({ properties: { details: { type: 'array' } } });
    expect(doc.paths['/screenshots/{id}/download'].get.responses['200'].content).toHaveProperty(['image/png']);
    expect(doc.paths['/screenshots/download-bulk'].post.responses['200'].content).toHaveProperty(['application/zip']);
    expect(doc.components.schemas.Step).toMatchObject({ discriminator: { propertyName: 'type' } });
  });

  it('every $ref resolves inside the document', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(50);
    const missing = refs.filter((r) => r.split('/').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], doc) === undefined);
    expect([...new Set(missing)]).toEqual([]);
  });

  it('/docs is Swagger UI, public and not rate limited, and its assets load', async () => {
    const res = await request(t.url).get('/docs').redirects(1).expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(res.text).toMatch(/swagger-ui/i);
    const assets = [...res.text.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const url = asset.startsWith('/') ? asset : `/docs/${asset.replace(/^\.\//, '')}`;
      await request(t.url).get(url).expect(200);
    }
  });
});
