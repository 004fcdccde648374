import { applyDecorators, Type } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiHeader, ApiParam, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { HeaderObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import type { ErrorCode } from '../../domain/domain-error';
import { STATUS_BY_CODE } from '../error-filter';
import { UUID_PATTERN } from '../uuid-param';
import { MAX_ID } from '../validation';
import {
  BadRequestErrorBody,
  CaptureFailedErrorBody,
  CaptureTimeoutErrorBody,
  ConflictErrorBody,
  headerRefs,
  NotFoundErrorBody,
  PageLinks,
  PageMeta,
  PayloadTooLargeErrorBody,
  PlanNoApiAccessErrorBody,
  PlanUpgradeRequiredErrorBody,
  RATE_LIMIT_HEADERS,
  RateLimitErrorBody,
  RETRY_AFTER_HEADER,
  UnauthorizedErrorBody,
  UnavailableErrorBody,
  UnsupportedMediaTypeErrorBody,
  UriTooLongErrorBody,
  HeadersTooLargeErrorBody,
  InvalidSignatureErrorBody,
  LinkExpiredErrorBody,
  ValidationErrorBody,
} from './schemas';

/**
 * The OpenAPI decorators the controllers compose: one bearer-controller decorator, error responses by code,
 * success responses that always carry the X-RateLimit-* headers, and the shared parameters.
 */

/** Name of the bearer security scheme in components.securitySchemes. */
export const BEARER_AUTH = 'bearer';

const RATE_LIMITED = Object.keys(RATE_LIMIT_HEADERS);

type DocumentedErrorCode = Exclude<ErrorCode, 'forbidden' | 'internal_error'>;

interface ErrorDoc {
  body: Type<unknown>;
  description: string;
  /** Response headers; errors raised after the rate-limit guard carry the X-RateLimit-* set. */
  headers: readonly string[];
}

const ERRORS: Record<DocumentedErrorCode, ErrorDoc> = {
  bad_request: {
    body: BadRequestErrorBody,
    description:
      '`bad_request`: the body is not valid JSON (or nests over 32 levels) or its Content-Type is not `application/json`; or a malformed request or URL',
    headers: RATE_LIMITED,
  },
  unauthorized: {
    body: UnauthorizedErrorBody,
    description:
      '`unauthorized`: missing or malformed `Authorization` header, unknown, expired or revoked token. The X-RateLimit-* headers are those of ' +
      'the per-address limit on failed authentications (no account is known)',
    headers: RATE_LIMITED,
  },
  plan_no_api_access: {
    body: PlanNoApiAccessErrorBody,
    description:
      '`plan_no_api_access`: Free plan, or an expired or inactive subscription (not counted; the headers show the plan’s minute window, limit 0 on Free)',
    headers: RATE_LIMITED,
  },
  plan_upgrade_required: {
    body: PlanUpgradeRequiredErrorBody,
    description: '`plan_upgrade_required`: the plan does not include this feature',
    headers: RATE_LIMITED,
  },
  not_found: { body: NotFoundErrorBody, description: '`not_found`: unknown id, or an id of another account', headers: RATE_LIMITED },
  conflict: {
    body: ConflictErrorBody,
    description: '`conflict`: the `Idempotency-Key` was already used for a different request (another target or other options)',
    headers: RATE_LIMITED,
  },
  payload_too_large: {
    body: PayloadTooLargeErrorBody,
    description: '`payload_too_large`: the body is over 1 MiB (answered after authentication, counted; read no further than the limit)',
    headers: RATE_LIMITED,
  },
  validation_failed: {
    body: ValidationErrorBody,
    description: '`validation_failed`: invalid or unknown fields, each named in `details`',
    headers: RATE_LIMITED,
  },
  rate_limited: {
    body: RateLimitErrorBody,
    description:
      '`rate_limited`: over the plan’s per-minute or per-hour limit (rejected requests count too); or too many failed authentications ' +
      'from one address (then the headers are those of that per-address limit)',
    headers: [...RATE_LIMITED, ...Object.keys(RETRY_AFTER_HEADER)],
  },
  uri_too_long: { body: UriTooLongErrorBody, description: '`uri_too_long`: a path segment is longer than 2048 characters', headers: RATE_LIMITED },
  unsupported_media_type: {
    body: UnsupportedMediaTypeErrorBody,
    description: '`unsupported_media_type`: the body has a `Content-Encoding` other than identity, gzip, deflate or br',
    headers: RATE_LIMITED,
  },
  headers_too_large: {
    body: HeadersTooLargeErrorBody,
    description: '`headers_too_large`: request headers over 16 KiB (refused before any header is read: no X-RateLimit-* headers, connection closed)',
    headers: [],
  },
  invalid_signature: {
    body: InvalidSignatureErrorBody,
    description:
      '`invalid_signature`: a signed link (no `Authorization` header) whose `signature` is missing, not last, wrong, or made with an unknown or deleted render key',
    headers: [],
  },
  link_expired: { body: LinkExpiredErrorBody, description: '`link_expired`: a signed link whose `expires` (unix seconds) has passed', headers: [] },
  unavailable: { body: UnavailableErrorBody, description: '`unavailable`: the database or the queue is unreachable; nothing was applied', headers: [] },
  capture_failed: { body: CaptureFailedErrorBody, description: '`capture_failed`: the page failed (its error in `error`)', headers: RATE_LIMITED },
  capture_timeout: { body: CaptureTimeoutErrorBody, description: '`capture_timeout`: the capture did not end in time', headers: RATE_LIMITED },
};

/**
 * Error responses by code. Codes sharing a status are documented as one response whose body is one of
 * their schemas (403: `plan_no_api_access` | `plan_upgrade_required`). On a method, a status replaces the
 * controller's response for that status, so list every code the status can have there.
 */
export function ApiErrorResponses(...codes: DocumentedErrorCode[]): ClassDecorator & MethodDecorator {
  const byStatus = new Map<number, ErrorDoc[]>();
  for (const code of codes) byStatus.set(STATUS_BY_CODE[code], [...(byStatus.get(STATUS_BY_CODE[code]) ?? []), ERRORS[code]]);
  const decorators = [...byStatus].map(([status, docs]) => {
    const description = docs.map((d) => d.description).join('; or ');
    const names = [...new Set(docs.flatMap((d) => d.headers))];
    const headers = names.length ? { headers: headerRefs(names) } : {};
    if (docs.length === 1) return ApiResponse({ status, description, ...headers, type: docs[0].body });
    return applyDecorators(
      ApiExtraModels(...docs.map((d) => d.body)),
      ApiResponse({ status, description, ...headers, schema: { oneOf: docs.map((d) => ({ $ref: getSchemaPath(d.body) })) } }),
    );
  });
  return applyDecorators(...decorators);
}

/**
 * A controller of the token-protected API: its tag, the bearer scheme, and the errors every one of its
 * operations can answer (authentication, plan, rate limit, outage).
 */
export function ApiBearerController(tag: string): ClassDecorator {
  return applyDecorators(ApiTags(tag), ApiBearerAuth(BEARER_AUTH), ApiErrorResponses('unauthorized', 'plan_no_api_access', 'rate_limited', 'unavailable'));
}

// ---------------------------------------------------------------------------------------------------------
// Success responses: every one carries the X-RateLimit-* headers.
// ---------------------------------------------------------------------------------------------------------

interface SuccessOptions {
  status?: 200 | 201 | 202;
  description: string;
}

/** A JSON success body described by its own class. */
export function ApiSuccessResponse(body: Type<unknown>, { status = 200, description }: SuccessOptions): MethodDecorator {
  return ApiResponse({ status, description, type: body, headers: headerRefs(RATE_LIMITED) });
}

/** `{success: true, data: <model>}`. */
export function ApiDataResponse(model: Type<unknown>, { status = 200, description }: SuccessOptions): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status,
      description,
      headers: headerRefs(RATE_LIMITED),
      schema: {
        type: 'object',
        required: ['success', 'data'],
        properties: { success: { type: 'boolean', enum: [true] }, data: { $ref: getSchemaPath(model) } },
      },
    }),
  );
}

/** The pagination envelope `{data: [<model>], meta, links}` (query parameters come from the query DTO). */
export function ApiPageResponse(model: Type<unknown>, description: string): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(model, PageMeta, PageLinks),
    ApiResponse({
      status: 200,
      description: `${description}; newest first, in the pagination envelope`,
      headers: headerRefs(RATE_LIMITED),
      schema: {
        type: 'object',
        required: ['data', 'meta', 'links'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(model) } },
          meta: { $ref: getSchemaPath(PageMeta) },
          links: { $ref: getSchemaPath(PageLinks) },
        },
      },
    }),
  );
}

const CACHE_HEADERS: Record<string, HeaderObject> = {
  ETag: { description: 'Strong validator of the file; send it back in `If-None-Match`', schema: { type: 'string' } },
  'Cache-Control': { description: 'Stored files never change: `private, max-age=31536000, immutable`', schema: { type: 'string' } },
};

/**
 * A binary file. `conditional`: the file has an ETag and `If-None-Match` with a matching tag answers 304
 * without a body.
 */
export function ApiFileResponse(
  mediaType: string | readonly string[],
  description: string,
  { conditional = false, headers = {} }: { conditional?: boolean; headers?: Record<string, HeaderObject> } = {},
): MethodDecorator {
  const ok = ApiResponse({
    status: 200,
    description,
    headers: { ...headerRefs(RATE_LIMITED), ...(conditional ? CACHE_HEADERS : {}), ...headers },
    content: Object.fromEntries(
      (typeof mediaType === 'string' ? [mediaType] : mediaType).map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
    ),
  });
  if (!conditional) return ok;
  return applyDecorators(
    ok,
    ApiHeader({ name: 'If-None-Match', required: false, description: 'ETag(s) of a copy the client holds', schema: { type: 'string' } }),
    ApiResponse({ status: 304, description: 'Not modified: the copy the client holds is current', headers: { ...headerRefs(RATE_LIMITED), ...CACHE_HEADERS } }),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------------------

/** Integer path id (IdParam): anything else cannot name a resource and is a 404. */
export function ApiIdParam(resource: string): MethodDecorator {
  return ApiParam({
    name: 'id',
    description: `${resource} id: plain decimal digits, 1..${MAX_ID}, no sign, leading zero, exponent or hex (\`0x10\`, \`011\`, \`+1\`, \`1e3\` are 404)`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_ID },
  });
}

/** UUID path id (UuidParam) of a job or an execution. */
export function ApiUuidParam(resource: string): MethodDecorator {
  return ApiParam({
    name: 'id',
    description: `${resource} id (a UUID, either case); anything else is 404`,
    schema: { type: 'string', format: 'uuid', pattern: UUID_PATTERN, example: '3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c' },
  });
}

/** The optional `Idempotency-Key` header (idempotencyKey()): a retry with the same key returns the same job. */
export function ApiIdempotencyKey(): MethodDecorator {
  return ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'A retry with the same key returns the job of the first request instead of queuing another (1..255 characters); ' +
      'the same key for a different request is 409 `conflict`',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  });
}
