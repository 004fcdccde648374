import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import request from 'supertest';
import { TIME_PATTERN, isValidTimeZone } from '../../src/modules/schedules/domain/schedule-rules';
import { isValidCssSelector } from '../../src/shared/css-selector/css-selector';
import { optionsSetOn } from '../../src/shared/domain/capture-option-table';
import { STATUS_BY_CODE } from '../../src/shared/http/error-filter';
import { UUID_PATTERN } from '../../src/shared/http/uuid-param';
import { MAX_ID } from '../../src/shared/http/validation';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The document clients generate SDKs from says what the server does: closed request schemas, every status
 * the server answers documented on the operation that answers it (and the body it answers fits the schema
 * documented for that status), bounded ids, the rules the server enforces visible in the schemas, links
 * that lead somewhere, examples and defaults that fit their own schemas.
 */

type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: unknown;
  required?: string[];
  enum?: unknown[];
  example?: unknown;
  pattern?: string;
  format?: string;
  description?: string;
};
type Media = { schema?: Schema; example?: unknown; examples?: Record<string, { value?: unknown }> };
type Header = { $ref?: string; schema?: Schema; example?: unknown };
type Response = { $ref?: string; description: string; content?: Record<string, Media>; headers?: Record<string, Header>; links?: Record<string, Link> };
type Link = { operationId: string; parameters: Record<string, string>; description?: string };
type Parameter = { in: string; name: string; required?: boolean; schema: Schema; example?: unknown; examples?: Record<string, { value?: unknown }> };
type Operation = {
  operationId: string;
  requestBody?: { required?: boolean; content: Record<string, Media> };
  responses: Record<string, Response>;
  parameters?: Parameter[];
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema>; headers: Record<string, Header> } };

const WRITE_METHODS = ['post', 'put', 'delete'];
/** Statuses Node's HTTP parser answers for any request, before a route is known. */
const PARSER_STATUSES = ['400', '408', '431'];

/**
 * The document's schemas as JSON Schema for Ajv: OpenAPI 3.0's `nullable` becomes `anyOf [.., null]`,
 * its annotations that are not JSON Schema (`discriminator`, `example`, `xml`) are dropped, and
 * `#/components/schemas/X` becomes a reference into one schema that holds them all.
 */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (['discriminator', 'example', 'xml', 'externalDocs', 'nullable'].includes(key)) continue;
    if (key === '$ref' && typeof value === 'string') out.$ref = value.replace('#/components/schemas/', 'components#/$defs/');
    else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, toJsonSchema(child)]));
    } else out[key] = toJsonSchema(value);
  }
  return (node as Schema).nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}

describe('OpenAPI conformance', () => {
  let t: TestApp;
  let doc: Document;
  let alice: TestAccount;
  let ajv: Ajv;
  const compiled = new Map<Schema, ValidateFunction>();

  /** Validates a value against one of the document's schemas; the problems found, as text. */
  const problems = (value: unknown, schema: Schema): string[] => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(toJsonSchema(schema) as object);
      compiled.set(schema, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  };
  const deref = <T extends { $ref?: string }>(node: T): T => {
    if (!node?.$ref) return node;
    const target = node.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, part) => (at as Record<string, unknown>)?.[part], doc) as T;
    return deref(target);
  };

  beforeAll(async () => {
    t = await startTestApp();
    doc = (await request(t.url).get('/openapi.json').expect(200)).body;
    alice = await t.createAccount({ plan: 'business' });
    ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    // The server's own selector check (the one behind every 422 on a selector field).
    ajv.addFormat('css-selector', (value: string) => isValidCssSelector(value.trim()));
    ajv.addSchema({ $id: 'components', $defs: toJsonSchema(doc.components.schemas) as object });
  });
  afterAll(async () => t.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op, key: `${method} ${path}` })));
  const requestSchema = (op: Operation) => op.requestBody?.content['application/json']?.schema;

  /** Every schema reachable from `schema` (properties, items, oneOf/anyOf/allOf members, $refs), each once. */
  const reachable = (schema: Schema, at: string, visit: (schema: Schema, at: string) => void, seen = new Set<Schema>()) => {
    const walk = (node: Schema, where: string) => {
      node = deref(node);
      if (seen.has(node)) return;
      seen.add(node);
      visit(node, where);
      for (const [name, child] of Object.entries(node.properties ?? {})) walk(child, `${where}.${name}`);
      if (node.items) walk(node.items, `${where}[]`);
      if (node.additionalProperties && typeof node.additionalProperties === 'object') walk(node.additionalProperties as Schema, `${where}{}`);
      for (const member of [...(node.oneOf ?? []), ...(node.anyOf ?? []), ...(node.allOf ?? [])]) walk(member, `${where}|`);
    };
    walk(schema, at);
  };

  it('every request body schema is closed, nested objects and oneOf members included', () => {
    const open: string[] = [];
    let bodies = 0;
    let objects = 0;
    for (const { key, op } of operations()) {
      const schema = requestSchema(op);
      if (!schema) continue;
      bodies += 1;
      reachable(schema, key, (node, at) => {
        if (!node.properties) return;
        objects += 1;
        if (node.additionalProperties !== false) open.push(at);
      });
    }
    expect(bodies).toBeGreaterThanOrEqual(8);
    expect(objects).toBeGreaterThanOrEqual(18); // the bodies and the ten step types
    expect(open).toEqual([]);
  });

  it('every operation documents the answers given before routing; authenticated ones 400/401/403/414/429/503; body-carrying ones 400, 413, 415 and 422', () => {
    const missing: string[] = [];
    for (const { path, method, op, key } of operations()) {
      const wanted = [...PARSER_STATUSES];
      // A render's signed link has no token (its 403 is the signature's), so no 401 or rate limit.
      if (path === '/renders/{id}') wanted.push('403', '414', '503');
      else if (path !== '/health') wanted.push('401', '403', '414', '429', '503');
      if (WRITE_METHODS.includes(method)) wanted.push('413', '415', '422');
      if (path.includes('{')) wanted.push('404');
      for (const status of wanted) if (!op.responses[status]) missing.push(`${key} ${status}`);
    }
    expect(missing).toEqual([]);
  });

  it('every error response has the error body {success: false, error, code, details?} with the codes of its status', () => {
    const wrong: string[] = [];
    let errors = 0;
    for (const { key, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400 || (key === 'get /health' && status === '503')) continue; // Health's 503 is its own body, `degraded`
        errors += 1;
        const schema = deref(response).content?.['application/json']?.schema;
        if (!schema) {
          wrong.push(`${key} ${status}: no JSON body`);
          continue;
        }
        const members = (deref(schema).oneOf ?? [schema]).map((s) => deref(s));
        for (const body of members) {
          const props = body.properties ?? {};
          if (JSON.stringify(props.success?.enum) !== '[false]' || props.error?.type !== 'string' || !body.required?.includes('code'))
            wrong.push(`${key} ${status}: not the error body`);
          for (const code of (props.code?.enum ?? []) as Array<keyof typeof STATUS_BY_CODE>) {
            // Node's parser answers a request that did not arrive in time with 408 `bad_request` (client-errors.ts).
            const statusOfCode = status === '408' && code === 'bad_request' ? 408 : STATUS_BY_CODE[code];
            if (String(statusOfCode) !== status) wrong.push(`${key} ${status}: code ${code} is answered with ${statusOfCode}`);
          }
          if (!props.code?.enum?.length) wrong.push(`${key} ${status}: code not enumerated`);
        }
      }
    }
    expect(errors).toBeGreaterThan(250);
    expect(wrong).toEqual([]);
    const codes = (status: string) => deref(deref(doc.paths['/websites'].post.responses[status]).content!['application/json'].schema!).properties!.code.enum;
    expect([codes('414'), codes('415'), codes('431')]).toEqual([['uri_too_long'], ['unsupported_media_type'], ['headers_too_large']]);
  });

  it('path ids carry the bounds the server enforces: integers 1..2147483647, or UUIDs with their pattern', () => {
    const uuid = new RegExp(UUID_PATTERN);
    expect(['3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c', '3F2B8C1E-9A4D-4E7B-8C2A-1D5E6F7A8B9C'].every((id) => uuid.test(id))).toBe(true);
    expect(['not-a-uuid', '3f2b8c1e9a4d4e7b8c2a1d5e6f7a8b9c', ' 3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c'].some((id) => uuid.test(id))).toBe(false);
    let ids = 0;
    for (const { key, op } of operations()) {
      for (const p of (op.parameters ?? []).filter((x) => x.in === 'path')) {
        ids += 1;
        const s = p.schema;
        const bounded =
          (s.type === 'integer' && s.minimum === 1 && s.maximum === MAX_ID) || (s.type === 'string' && s.format === 'uuid' && s.pattern === UUID_PATTERN);
        expect({ at: `${key} ${p.name}`, bounded, required: p.required }).toEqual({ at: `${key} ${p.name}`, bounded: true, required: true });
      }
    }
    expect(ids).toBeGreaterThanOrEqual(18);
  });

  it('ids in bodies and queries carry the same bounds (website_id, screenshot_ids items, …)', () => {
    const unbounded: string[] = [];
    let seen = 0;
    const check = (schema: Schema, at: string) => {
      if (schema.type !== 'integer' || schema.minimum !== 1 || schema.maximum !== MAX_ID) unbounded.push(at);
      seen += 1;
    };
    for (const { key, op } of operations()) {
      for (const p of (op.parameters ?? []).filter((x) => x.in === 'query' && /_id$/.test(x.name))) check(p.schema, `${key} ?${p.name}`);
      const schema = requestSchema(op);
      if (!schema) continue;
      reachable(schema, key, (node, at) => {
        for (const [name, child] of Object.entries(node.properties ?? {})) {
          if (/_id$/.test(name)) check(deref(child), `${at}.${name}`);
          if (/_ids$/.test(name)) check(deref(deref(child).items ?? {}), `${at}.${name}[]`);
        }
      });
    }
    expect(seen).toBeGreaterThanOrEqual(9);
    expect(unbounded).toEqual([]);
    expect(deref(requestSchema(doc.paths['/screenshots/download-bulk'].post)!).properties!.screenshot_ids.items).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: MAX_ID,
    });
  });

  it('the rules the server enforces are in the schemas: IANA time zones, HH:MM, http/https URLs, CSS selectors', () => {
    const body = (path: string, method = 'post') => deref(requestSchema(doc.paths[path][method])!);
    for (const [path, method] of [
      ['/schedules', 'post'],
      ['/schedules/{id}', 'put'],
    ]) {
      const { time, timezone } = body(path, method).properties!;
      expect(time.pattern).toBe(TIME_PATTERN.source);
      expect(timezone).toMatchObject({ type: 'string', example: expect.any(String), description: expect.stringMatching(/IANA/) });
      // The documented pattern refuses nothing the server accepts: every zone the runtime knows that the server takes.
      const zonePattern = new RegExp(timezone.pattern!);
      const accepted = [...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC', 'GMT'].filter((zone) => isValidTimeZone(zone));
      expect(accepted.length).toBeGreaterThan(300);
      expect(accepted.filter((zone) => !zonePattern.test(zone) || zone.length > (timezone.maxLength as number))).toEqual([]);
      expect(['+02:00', 'utc', ' Europe/Berlin', 'Europe//Berlin'].filter((zone) => zonePattern.test(zone))).toEqual([]);
      const timePattern = new RegExp(time.pattern!);
      const all = Array.from({ length: 24 * 60 }, (_, m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);
      expect(all.filter((hhmm) => !timePattern.test(hhmm))).toEqual([]);
      expect(['7:05', '24:00', '12:60', ' 07:00'].filter((hhmm) => timePattern.test(hhmm))).toEqual([]);
    }
    for (const [path, method] of [
      ['/websites', 'post'],
      ['/websites/{id}', 'put'],
    ]) {
      const { url } = body(path, method).properties!;
      expect(url).toMatchObject({ type: 'string', maxLength: 2048, description: expect.stringMatching(/URL policy/) });
      const pattern = new RegExp(url.pattern!);
      expect(['https://example.com', 'http://example.com/a', 'HTTPS://example.com'].every((u) => pattern.test(u))).toBe(true);
      expect(['ftp://example.com', 'file:///etc/passwd', 'javascript:alert(1)', 'example.com'].some((u) => pattern.test(u))).toBe(false);
    }
    const navigate = deref(doc.components.schemas.NavigateStep).properties!.url;
    expect(navigate).toMatchObject({ maxLength: 2048, pattern: body('/websites').properties!.url.pattern, description: expect.stringMatching(/URL policy/) });
    const selectors: string[] = [];
    for (const { key, op } of operations()) {
      const schema = requestSchema(op);
      if (!schema) continue;
      reachable(schema, key, (node, at) => {
        if (node.type === 'string' && /selector/i.test(at)) {
          expect({ at, format: node.format, description: node.description }).toEqual({
            at,
            format: 'css-selector',
            description: expect.stringMatching(/CSS selector/),
          });
          selectors.push(at);
        }
      });
    }
    expect(selectors.length).toBeGreaterThanOrEqual(7); // wait_for_selector, hide_selectors[], the selectors of fill, click, wait_for, hover and select
    // scroll's `to` is "bottom" or a selector: said so, and bounded like a selector.
    expect(deref(doc.components.schemas.ScrollStep).properties!.to).toMatchObject({
      minLength: 1,
      maxLength: 1000,
      description: expect.stringMatching(/CSS selector/),
    });
  });

  it('PUT bodies are partial, and required exactly as the server requires them: {} is accepted, no body is 422', () => {
    const puts = operations().filter((o) => o.method === 'put');
    expect(puts.length).toBe(6); // websites, scenarios, schedules, webhooks, notification channels, proxy pools
    for (const { key, op } of puts) {
      const schema = deref(requestSchema(op)!);
      expect({ key, required: op.requestBody?.required, fields: schema.required ?? [] }).toEqual({ key, required: true, fields: [] });
    }
    // The optional body of Take Screenshot is not required (an empty POST queues a capture with the website's settings).
    expect(doc.paths['/websites/{id}/screenshot'].post.requestBody?.required).toBe(false);
    expect(deref(requestSchema(doc.paths['/websites/{id}/screenshot'].post)!).required ?? []).toEqual([]);
  });

  it('every example and every default fits its own schema (Ajv, with the server’s selector check)', () => {
    const bad: string[] = [];
    let examples = 0;
    const fits = (value: unknown, schema: Schema | undefined, at: string) => {
      if (!schema) return;
      examples += 1;
      bad.push(...problems(value, schema).map((p) => `${at}: ${JSON.stringify(value)} ${p}`));
    };
    const seen = new Set<Schema>();
    const schemaExamples = (schema: Schema | undefined, at: string) => {
      if (!schema) return;
      reachable(
        schema,
        at,
        (node, where) => {
          if (node.example !== undefined) fits(node.example, node, `${where} example`);
          if (node.default !== undefined) fits(node.default, node, `${where} default`);
        },
        seen,
      );
    };
    const mediaExamples = (media: Media | undefined, at: string) => {
      if (!media) return;
      schemaExamples(media.schema, at);
      if (media.example !== undefined) fits(media.example, media.schema, `${at} example`);
      for (const [name, ex] of Object.entries(media.examples ?? {})) fits(ex.value, media.schema, `${at} examples.${name}`);
    };
    for (const [name, schema] of Object.entries(doc.components.schemas)) schemaExamples(schema, name);
    for (const [name, header] of Object.entries(doc.components.headers ?? {})) schemaExamples(header.schema, `header ${name}`);
    for (const { key, op } of operations()) {
      for (const p of op.parameters ?? []) {
        schemaExamples(p.schema, `${key} ${p.in} ${p.name}`);
        if (p.example !== undefined) fits(p.example, p.schema, `${key} ${p.name} example`);
        for (const [name, ex] of Object.entries(p.examples ?? {})) fits(ex.value, p.schema, `${key} ${p.name} examples.${name}`);
      }
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) mediaExamples(media, `${key} body ${type}`);
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(deref(response).content ?? {})) mediaExamples(media, `${key} ${status} ${type}`);
        for (const [name, header] of Object.entries(deref(response).headers ?? {})) schemaExamples(deref(header).schema, `${key} ${status} header ${name}`);
      }
    }
    expect(examples).toBeGreaterThan(40);
    expect(bad).toEqual([]);
  });

  it('GET /render takes every query parameter it declares, with a value of its schema (only the refused url is named)', async () => {
    const account = await t.createAccount({ plan: 'business' });
    const rows = new Map(optionsSetOn('render').map((row) => [row.wire, row]));
    /** A value the parameter's schema allows, spelled as a query string spells it. */
    const valueOf = (p: Parameter): string => {
      const schema = deref(p.schema);
      if (p.name === 'clip') return JSON.stringify({ x: 0, y: 0, width: 10, height: 10 });
      if (p.name === 'locale') return 'en-US';
      if (p.name === 'timezone') return 'Europe/Berlin';
      if (typeof schema.example === 'string' || typeof schema.example === 'number') return String(schema.example);
      if (schema.enum) return String(schema.enum[0]);
      if (schema.type === 'boolean') return 'true';
      if (schema.type === 'integer' || schema.type === 'number') return String(typeof schema.minimum === 'number' ? schema.minimum : 1);
      const item = schema.type === 'array' ? deref(schema.items!) : schema;
      if (item.enum) return String(item.enum[0]);
      if (item.format === 'css-selector') return '.a';
      return 'x';
    };
    const declared = (doc.paths['/render'].get.parameters ?? []).filter((p) => p.in === 'query');
    // The signed link's own three are taken without an Authorization header only (render-keys.e2e-spec.ts).
    const options = declared.filter((p) => !['url', 'access_key', 'expires', 'signature'].includes(p.name));
    expect(options.length).toBeGreaterThan(30);
    const refused: string[] = [];
    for (const p of options) {
      const formats = rows.get(p.name)?.formats;
      // `formats` is for response_type=json only (its description says so), as some options are for one format only.
      const format = formats && !formats.includes('png') ? `&format=${formats[0]}` : p.name === 'formats' ? '&response_type=json' : '';
      const res = await request(t.url)
        .get(`/render?url=ftp%3A%2F%2Fexample.com%2F&${p.name}=${encodeURIComponent(valueOf(p))}${format}`)
        .set(account.auth);
      const fields = (res.body.details ?? []).map((d: { field: string }) => d.field);
      if (res.status !== 422 || fields.join() !== 'url') refused.push(`${p.name}=${valueOf(p)}: ${res.status} ${JSON.stringify(res.body.details)}`);
      t.clock.advance(1_100); // 60 a minute
    }
    expect(refused).toEqual([]);
  });

  it('links lead from what creates a resource or a job to where it is read, and resolve', () => {
    const links = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].links ?? {};
    expect(links('/websites/{id}/screenshot', 'post', '200').GetJob.operationId).toBe('Jobs_get');
    expect(links('/scenarios/{id}/run', 'post', '200').GetExecution.operationId).toBe('Executions_get');
    expect(links('/websites', 'post', '201').GetWebsite.operationId).toBe('Websites_get');
    expect(links('/scenarios', 'post', '201').GetScenario.operationId).toBe('Scenarios_get');
    expect(links('/schedules', 'post', '201').GetSchedule.operationId).toBe('Schedules_get');
    const byId = new Map(operations().map((o) => [o.op.operationId, o.op]));
    let count = 0;
    for (const { key, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [name, link] of Object.entries(response.links ?? {})) {
          count += 1;
          const target = byId.get(link.operationId);
          expect({ link: `${key} ${status} ${name}`, target: !!target }).toEqual({ link: `${key} ${status} ${name}`, target: true });
          for (const [param, expression] of Object.entries(link.parameters)) {
            expect((target!.parameters ?? []).map((p) => p.name)).toContain(param);
            // `$response.body#/data/id` must name a property of the documented body.
            const pointer = /^\$response\.body#\/(.+)$/.exec(expression)?.[1];
            expect({ link: `${key} ${name}`, expression, pointer: !!pointer }).toEqual({ link: `${key} ${name}`, expression, pointer: true });
            let node: Schema | undefined = deref(response.content!['application/json'].schema!);
            for (const part of pointer!.split('/')) node = node?.properties?.[part] ? deref(node.properties[part]) : undefined;
            expect({ link: `${key} ${name}`, expression, resolves: node !== undefined }).toEqual({ link: `${key} ${name}`, expression, resolves: true });
          }
        }
      }
    }
    expect(count).toBeGreaterThanOrEqual(5);
  });

  it('every status the server answers in these requests is the expected one, documented for the operation, with the documented body', async () => {
    const website = (await request(t.url).post('/websites').set(alice.auth).send({ name: 'Doc', url: 'http://127.0.0.1:9/doc' }).expect(201)).body.data.id;
    const schedule = (
      await request(t.url)
        .post('/schedules')
        .set(alice.auth)
        .send({ name: 'S', website_id: website, frequency: 'daily', time: '07:00', timezone: 'UTC' })
        .expect(201)
    ).body.data.id;
    const scenario = (
      await request(t.url)
        .post('/scenarios')
        .set(alice.auth)
        .send({ name: 'Sc', website_id: website, steps: [{ type: 'scroll', to: 'bottom' }] })
        .expect(201)
    ).body.data.id;
    const json = (r: request.Test) => r.set('Content-Type', 'application/json');
    const twoMiB = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
    const cases: Array<[number, string, string, (r: request.Test) => request.Test]> = [
      [200, 'get', '/websites', (r) => r],
      [422, 'post', '/websites', (r) => r.send({ name: 'x', url: 'http://127.0.0.1:9/x', extra: 1 })],
      [422, 'post', '/websites', (r) => r.send({ name: 'x', url: 'http://127.0.0.1:9/x', constructor: 1 })],
      [400, 'post', '/websites', (r) => json(r).send('{not json')],
      [400, 'post', '/websites', (r) => r.set('Content-Type', 'text/plain').send('name=x')],
      [400, 'post', '/websites', (r) => r.set('Content-Type', 'application/json, text/plain').send('{}')],
      [413, 'post', '/websites', (r) => json(r).send(twoMiB)],
      [415, 'post', '/websites', (r) => json(r).set('Content-Encoding', 'zstd').send('{}')],
      [422, 'put', `/websites/${website}`, (r) => r],
      [422, 'put', `/websites/${website}`, (r) => json(r).send('null')],
      [200, 'put', `/websites/${website}`, (r) => r.send({})],
      [422, 'put', `/websites/${website}`, (r) => r.send({ nmae: 'typo' })],
      [200, 'put', `/schedules/${schedule}`, (r) => r.send({})],
      [422, 'put', `/schedules/${schedule}`, (r) => r],
      [422, 'put', `/schedules/${schedule}`, (r) => r.send({ timezone: 'utc' })],
      [422, 'put', `/schedules/${schedule}`, (r) => r.send({ time: '24:00' })],
      [200, 'put', `/scenarios/${scenario}`, (r) => r.send({})],
      [422, 'put', `/scenarios/${scenario}`, (r) => r.send({ steps: [{ type: 'click', selector: 'a[' }] })],
      [422, 'put', `/scenarios/${scenario}`, (r) => r.send({ steps: [{ type: 'click', selector: 'a', extra: 1 }] })],
      [404, 'get', '/websites/0x10', (r) => r],
      [404, 'get', '/websites/2147483648', (r) => r],
      [404, 'get', `/websites/${'9'.repeat(2048)}`, (r) => r],
      // Over the README's 2048-character segment limit (issue 27: this was a 404, the 414 never raised).
      [414, 'get', `/websites/${'9'.repeat(3000)}`, (r) => r],
      [400, 'get', '/websites/%E0%A4%A', (r) => r],
      [404, 'put', '/websites/0', (r) => r.send({})],
      [422, 'delete', '/websites/999999', (r) => r.send({ a: 1 })],
      [400, 'delete', '/websites/999999', (r) => json(r).send('{not json')],
      [413, 'delete', '/websites/999999', (r) => json(r).send(twoMiB)],
      [404, 'delete', '/websites/999999', (r) => r.send({})],
      [422, 'post', '/scenarios/999999/run', (r) => r.send({ a: 1 })],
      [415, 'post', '/scenarios/999999/run', (r) => json(r).set('Content-Encoding', 'zstd').send('{}')],
      [413, 'post', '/scenarios/999999/run', (r) => json(r).send(twoMiB)],
      [404, 'post', '/scenarios/999999/run', (r) => r],
      [422, 'get', '/jobs/00000000-0000-4000-8000-000000000000?wait=31', (r) => r],
      [404, 'get', '/jobs/00000000-0000-4000-8000-000000000000', (r) => r],
      [404, 'get', '/jobs/not-a-uuid', (r) => r],
      [404, 'get', '/executions/not-a-uuid', (r) => r],
      [422, 'post', '/screenshots/download-bulk', (r) => r.send({ screenshot_ids: [0] })],
      [422, 'post', '/screenshots/download-bulk', (r) => r.send({ screenshot_ids: [MAX_ID + 1] })],
      [404, 'post', '/screenshots/download-bulk', (r) => r.send({ screenshot_ids: [MAX_ID] })],
      [422, 'post', '/schedules', (r) => r.send({ name: 'x', website_id: website, frequency: 'daily', time: '07:00', timezone: '+02:00' })],
      [422, 'post', '/schedules', (r) => r.send({ name: 'x', website_id: MAX_ID + 1, frequency: 'daily', time: '07:00', timezone: 'UTC' })],
      [422, 'get', '/websites?page=0', (r) => r],
      [401, 'get', '/test', (r) => r.set('Authorization', 'Bearer sst_wrong')],
      [431, 'get', '/test', (r) => r.set('X-Big', 'a'.repeat(20_000))],
      [431, 'get', '/health', (r) => r.set('X-Big', 'a'.repeat(20_000))],
    ];
    const observed: string[] = [];
    const unexpected: string[] = [];
    const undocumented: string[] = [];
    const misfits: string[] = [];
    /** Checks an answer against the document: its status documented for the operation, its JSON body fitting that status's schema. */
    const check = (method: string, path: string, res: { status: number; contentType: string; body: unknown }) => {
      const template = Object.keys(doc.paths).find((p) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path.split('?')[0]));
      expect({ path, template: template !== undefined }).toEqual({ path, template: true });
      const response = doc.paths[template!][method]?.responses[String(res.status)];
      if (!response) undocumented.push(`${method} ${path.slice(0, 60)} → ${res.status}`);
      const schema = response && deref(response).content?.['application/json']?.schema;
      if (schema && /json/.test(res.contentType))
        misfits.push(...problems(res.body, schema).map((p) => `${method} ${path.slice(0, 60)} → ${res.status}: ${p}`));
      return res;
    };
    const answer = async (method: string, path: string, build: (r: request.Test) => request.Test, auth: object) => {
      const res = await build(
        request(t.url)
          [method as 'get'](path)
          .set(auth as Record<string, string>),
      );
      return check(method, path, { status: res.status, contentType: String(res.headers['content-type']), body: res.body });
    };
    /** fetch sends a Buffer as the bytes it holds (superagent would serialise it as JSON). */
    const answerBytes = async (method: string, path: string, headers: Record<string, string>, bytes: Buffer) => {
      const res = await fetch(`${t.url}${path}`, {
        method: method.toUpperCase(),
        headers: { ...alice.auth, 'Content-Type': 'application/json', ...headers },
        body: new Uint8Array(bytes),
      });
      const contentType = res.headers.get('content-type') ?? '';
      return check(method, path, { status: res.status, contentType, body: /json/.test(contentType) ? await res.json() : await res.text() });
    };
    for (const [expected, method, path, build] of cases) {
      const res = await answer(method, path, build, alice.auth);
      observed.push(`${method} ${path.slice(0, 60)} → ${res.status}`);
      if (res.status !== expected) unexpected.push(`${method} ${path.slice(0, 60)} → ${res.status}, expected ${expected}: ${JSON.stringify(res.body)}`);
    }
    const encoded: Array<[number, string, string, Record<string, string>, Buffer]> = [
      [422, 'post', '/websites', { 'Content-Encoding': 'gzip' }, gzipSync('{"name":"x"}')],
      [201, 'post', '/websites', { 'Content-Encoding': 'br' }, brotliCompressSync('{"name":"br","url":"http://127.0.0.1:9/br"}')],
      [400, 'post', '/websites', { 'Content-Encoding': 'gzip' }, Buffer.from('{"name":"x"}')],
      [413, 'post', '/websites', { 'Content-Encoding': 'gzip' }, gzipSync(twoMiB)],
      [413, 'put', `/websites/${website}`, { 'Content-Encoding': 'deflate' }, deflateSync(twoMiB)],
      [422, 'delete', '/websites/999999', { 'Content-Encoding': 'gzip' }, gzipSync('{"a":1}')],
    ];
    for (const [expected, method, path, headers, bytes] of encoded) {
      const res = await answerBytes(method, path, headers, bytes);
      observed.push(`${method} ${path} (${headers['Content-Encoding']}) → ${res.status}`);
      if (res.status !== expected)
        unexpected.push(`${method} ${path} (${headers['Content-Encoding']}) → ${res.status}, expected ${expected}: ${JSON.stringify(res.body)}`);
    }
    expect(unexpected).toEqual([]);
    // 403 on a plan without API access, and 429 once a plan's minute limit is used up (Starter: 5 a minute).
    const free = await t.createAccount({ plan: 'free' });
    expect((await answer('get', '/websites', (r) => r, free.auth)).status).toBe(403);
    const starter = await t.createAccount({ plan: 'starter' });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await answer('get', '/websites', (r) => r, starter.auth)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(undocumented).toEqual([]);
    expect(misfits).toEqual([]);
    expect(observed.length).toBe(cases.length + encoded.length);
  });
});
