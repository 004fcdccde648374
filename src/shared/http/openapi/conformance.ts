import type { OpenAPIObject, OperationObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { RATE_LIMIT_HEADERS } from './schemas';

/**
 * What the server does to every request, written into the generated document once instead of onto every
 * decorator, so the document cannot drift from it:
 * - request bodies are closed (`additionalProperties: false`, nested objects too): unknown fields are 422;
 * - every operation can meet the answers Node's HTTP parser gives before routing (400 malformed request, 408 a
 *   request not received in time, 431 headers over 16 KiB), and every authenticated one 400 for a bad URL and
 *   414 for a path segment over 2048 characters;
 * - an operation whose body names a website can meet that website's delete (404);
 * - every operation that may carry a body (POST, PUT, DELETE) answers 400, 413, 415 and 422 about it, those
 *   without a body of their own too (a body with fields is refused there);
 * - links from what creates a resource or a job to where it is read.
 */
export function conformToServer(document: OpenAPIObject): OpenAPIObject {
  const schemas = document.components?.schemas ?? {};
  const closed = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item) as Array<[string, OperationObject]>) {
      if (!operation?.responses) continue;
      const body = (operation.requestBody as { content?: Record<string, { schema?: SchemaObject | ReferenceObject }> } | undefined)?.content?.[
        'application/json'
      ]?.schema;
      if (body) closeSchema(body, schemas, closed);
      // Node's HTTP parser answers 400/408/431 before any route is known, on every path (Health Check too).
      const rateLimited = path !== '/health';
      addError(
        operation,
        400,
        'BadRequestErrorBody',
        '`bad_request`: a malformed request (refused by the HTTP parser: no X-RateLimit-* headers, the connection is closed), a URL with bad percent-encoding, or an unreadable body',
        rateLimited,
      );
      addError(
        operation,
        408,
        'BadRequestErrorBody',
        '`bad_request`: the request (headers or body) was not received in time (no X-RateLimit-* headers; the connection is closed)',
        false,
      );
      addError(
        operation,
        431,
        'HeadersTooLargeErrorBody',
        '`headers_too_large`: request line and headers over 16 KiB (no X-RateLimit-* headers; the connection is closed)',
        false,
      );
      if (path === '/health') continue;
      addError(operation, 414, 'UriTooLongErrorBody', '`uri_too_long`: a path segment is longer than 2048 characters');
      if (['post', 'put', 'delete'].includes(method)) {
        addError(operation, 413, 'PayloadTooLargeErrorBody', '`payload_too_large`: the body is over 1 MiB (after decoding its Content-Encoding)');
        addError(operation, 415, 'UnsupportedMediaTypeErrorBody', '`unsupported_media_type`: a Content-Encoding other than identity, gzip, deflate or br');
        addError(
          operation,
          422,
          'ValidationErrorBody',
          body
            ? '`validation_failed`: invalid or unknown fields, each named in `details`'
            : '`validation_failed`: this operation takes no body; each field sent is named in `details`',
        );
      }
      if (body && refersToWebsite(body, schemas)) {
        addError(
          operation,
          404,
          'NotFoundErrorBody',
          '`not_found`: the website named by `website_id` was deleted while this request ran (a `website_id` that is not the caller’s is 422)',
        );
      }
    }
  }
  addLinks(document);
  return document;
}

function addError(operation: OperationObject, status: number, schema: string, description: string, rateLimited = true): void {
  if (operation.responses[status]) return;
  const response: ResponseObject = { description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } };
  if (rateLimited) response.headers = Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  operation.responses[status] = response;
}

/** Marks an object schema and every object schema it reaches (properties, items, oneOf/anyOf/allOf, $refs) closed. */
function closeSchema(schema: SchemaObject | ReferenceObject, schemas: Record<string, SchemaObject | ReferenceObject>, done: Set<string>): void {
  if ('$ref' in schema) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    if (done.has(name) || !schemas[name]) return;
    done.add(name);
    return closeSchema(schemas[name], schemas, done);
  }
  if (schema.properties) {
    if (schema.additionalProperties === undefined) schema.additionalProperties = false;
    for (const child of Object.values(schema.properties)) closeSchema(child, schemas, done);
  }
  if (schema.items) closeSchema(schema.items, schemas, done);
  for (const member of [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])]) closeSchema(member, schemas, done);
}

/** Whether a request body names a website by `website_id` (a reference a concurrent delete can break). */
function refersToWebsite(schema: SchemaObject | ReferenceObject, schemas: Record<string, SchemaObject | ReferenceObject>): boolean {
  const resolved = '$ref' in schema ? schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
  return !!resolved && !('$ref' in resolved) && !!resolved.properties?.website_id;
}

/** operationId → the links of its success response: where to read what it made. */
const LINKS: Record<string, { status: string; links: Record<string, { operationId: string; parameters: Record<string, string>; description: string }> }> = {
  TakeScreenshot_take: {
    status: '200',
    links: { GetJob: { operationId: 'Jobs_get', parameters: { id: '$response.body#/job_id' }, description: 'The job this request queued (use `?wait=30`)' } },
  },
  Scenarios_run: {
    status: '200',
    links: { GetExecution: { operationId: 'Executions_get', parameters: { id: '$response.body#/execution_id' }, description: 'The run this request queued' } },
  },
  Websites_create: {
    status: '201',
    links: { GetWebsite: { operationId: 'Websites_get', parameters: { id: '$response.body#/data/id' }, description: 'The website just made' } },
  },
  Scenarios_create: {
    status: '201',
    links: { GetScenario: { operationId: 'Scenarios_get', parameters: { id: '$response.body#/data/id' }, description: 'The scenario just made' } },
  },
  Schedules_create: {
    status: '201',
    links: { GetSchedule: { operationId: 'Schedules_get', parameters: { id: '$response.body#/data/id' }, description: 'The schedule just made' } },
  },
  Jobs_get: {
    status: '200',
    links: {
      GetScreenshot: {
        operationId: 'Screenshots_get',
        parameters: { id: '$response.body#/data/screenshot_id' },
        description: 'The screenshot the job produced (once `succeeded`)',
      },
      DownloadScreenshot: {
        operationId: 'Screenshots_download',
        parameters: { id: '$response.body#/data/screenshot_id' },
        description: 'Its image (once `succeeded`)',
      },
    },
  },
  Schedules_get: {
    status: '200',
    links: {
      GetLastJob: {
        operationId: 'Jobs_get',
        parameters: { id: '$response.body#/data/last_job_id' },
        description: 'The capture job of the last occurrence (once one fired)',
      },
    },
  },
};

function addLinks(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as OperationObject[]) {
      const wanted = operation?.operationId ? LINKS[operation.operationId] : undefined;
      const response = wanted ? (operation.responses[wanted.status] as ResponseObject | undefined) : undefined;
      if (wanted && response) response.links = { ...response.links, ...wanted.links };
    }
  }
}
