import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { HeaderObject, ReferenceObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import type { FieldError } from '../../domain/domain-error';

/**
 * Schemas every context's OpenAPI description shares: the error bodies (spec, Errors; API.md, General),
 * the `{success, message}` answer of deletes, the pagination envelope's meta and links, and the response
 * headers of rate-limited operations. Plain classes, read by @nestjs/swagger's decorators only.
 */

export const TIMESTAMP = { type: 'string', format: 'date-time', example: '2026-11-22T07:00:00.000Z' } as const;

// ---------------------------------------------------------------------------------------------------------
// Error bodies: `{success: false, error, code, ...}`; each code has its own named schema.
// ---------------------------------------------------------------------------------------------------------

export class ErrorBody {
  @ApiProperty({ type: 'boolean', enum: [false] }) success!: false;
  @ApiProperty({ description: 'Human-readable message' }) error!: string;
  @ApiProperty({ description: 'Stable machine-readable code' }) code!: string;
}

@ApiSchema({
  description:
    'A request the server cannot read: a malformed HTTP request (refused by the parser, then the connection is closed), a URL with bad percent-encoding, a body that is not valid JSON, nests over 32 levels or is not `application/json`',
})
export class BadRequestErrorBody extends ErrorBody {
  @ApiProperty({ example: 'Request body is not valid JSON' }) override error!: string;
  @ApiProperty({ enum: ['bad_request'] }) override code!: 'bad_request';
}

@ApiSchema({ description: 'Exactly the spec’s body: missing, malformed, unknown, expired or revoked token' })
export class UnauthorizedErrorBody extends ErrorBody {
  @ApiProperty({ enum: ['Unauthorized'] }) override error!: 'Unauthorized';
  @ApiProperty({ enum: ['unauthorized'] }) override code!: 'unauthorized';
}

@ApiSchema({ description: 'Free plan, or an expired or inactive subscription' })
export class PlanNoApiAccessErrorBody extends ErrorBody {
  @ApiProperty({ enum: ['API access is not available on your plan'] }) override error!: string;
  @ApiProperty({ enum: ['plan_no_api_access'] }) override code!: 'plan_no_api_access';
  @ApiProperty({ description: 'The account’s plan (wire value)', example: 'free' }) current_plan!: string;
}

@ApiSchema({ description: 'The feature needs a higher plan (Bulk Download: Pro or Business)' })
export class PlanUpgradeRequiredErrorBody extends ErrorBody {
  @ApiProperty({ example: 'Bulk download requires the Pro or Business plan' }) override error!: string;
  @ApiProperty({ enum: ['plan_upgrade_required'] }) override code!: 'plan_upgrade_required';
  @ApiProperty({ description: 'The account’s plan (wire value)', example: 'starter' }) current_plan!: string;
  @ApiProperty({ type: [String], description: 'Plans that include the feature', example: ['pro', 'business'] }) required_plans!: string[];
}

@ApiSchema({ description: 'Unknown route or id, or an id of another account (never 403: existence does not leak)' })
export class NotFoundErrorBody extends ErrorBody {
  @ApiProperty({ example: 'Website not found' }) override error!: string;
  @ApiProperty({ enum: ['not_found'] }) override code!: 'not_found';
  @ApiPropertyOptional({ type: 'integer', isArray: true, description: 'Bulk Download only: the requested ids that are not the caller’s', example: [7, 9] })
  missing_ids?: number[];
}

@ApiSchema({ description: 'Request body over 1 MiB' })
export class PayloadTooLargeErrorBody extends ErrorBody {
  @ApiProperty({ example: 'Request body is larger than 1 MiB' }) override error!: string;
  @ApiProperty({ enum: ['payload_too_large'] }) override code!: 'payload_too_large';
}

@ApiSchema({ description: 'The request conflicts with an earlier one (an Idempotency-Key reused for a different request)' })
export class ConflictErrorBody extends ErrorBody {
  @ApiProperty({ example: 'This Idempotency-Key was already used for a different request; use a new key for a new request.' }) override error!: string;
  @ApiProperty({ enum: ['conflict'] }) override code!: 'conflict';
}

export class FieldErrorItem implements FieldError {
  @ApiProperty({ description: 'The field, as a path into the body or query', example: 'steps[3].selector' }) field!: string;
  @ApiProperty({ example: 'steps[3].selector is required' }) message!: string;
}

@ApiSchema({ description: 'Invalid or unknown fields in the body, query or headers; one detail per problem' })
export class ValidationErrorBody extends ErrorBody {
  @ApiProperty({ example: 'The given data was invalid' }) override error!: string;
  @ApiProperty({ enum: ['validation_failed'] }) override code!: 'validation_failed';
  @ApiProperty({ type: [FieldErrorItem], description: 'One entry per problem; an unknown field is `{field, message: "<field> is not allowed"}`' })
  details!: FieldErrorItem[];
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'Present when `details` was cut short (at most 100 unknown fields are listed): how many problems there were',
    example: 60000,
  })
  details_total?: number;
}

@ApiSchema({ description: 'The spec’s body: the limit that was hit, the count in its window and when it resets' })
export class RateLimitErrorBody extends ErrorBody {
  @ApiProperty({ enum: ['Rate limit exceeded'] }) override error!: 'Rate limit exceeded';
  @ApiProperty({ enum: ['rate_limited'] }) override code!: 'rate_limited';
  @ApiProperty({ description: 'Names the limit that was hit', example: 'Rate limit of 20 requests per minute exceeded' }) message!: string;
  @ApiProperty({ type: 'integer', example: 20 }) limit!: number;
  @ApiProperty({ type: 'integer', description: 'Requests counted in the window, this one included', example: 21 }) current!: number;
  @ApiProperty({ ...TIMESTAMP, description: 'When the window resets (ISO 8601 UTC)' }) reset_at!: string;
}

@ApiSchema({ description: 'The database or the queue is unreachable; nothing was applied, the request may be retried' })
export class UnavailableErrorBody extends ErrorBody {
  @ApiProperty({ example: 'Service temporarily unavailable' }) override error!: string;
  @ApiProperty({ enum: ['unavailable'] }) override code!: 'unavailable';
}

@ApiSchema({ description: 'A render whose page failed: the page’s error, as a job’s `error` says it' })
export class CaptureFailedErrorBody extends ErrorBody {
  @ApiProperty({ example: '127.0.0.1:8080 refused the connection. Check that the site is up and that the address and port are right.' })
  override error!: string;
  @ApiProperty({ enum: ['capture_failed'] }) override code!: 'capture_failed';
  @ApiProperty({ required: false, example: 'net::ERR_CONNECTION_REFUSED', description: 'The raw cause’s code, as a Job’s `error_code`' }) error_code?: string;
}

@ApiSchema({ description: 'A render that did not end in time (its timeout_ms, or the server’s CAPTURE_TIMEOUT_MS)' })
export class CaptureTimeoutErrorBody extends ErrorBody {
  @ApiProperty({ example: 'The page did not answer within 5 s. Check that the site is up, or give it longer (timeout_ms).' }) override error!: string;
  @ApiProperty({ enum: ['capture_timeout'] }) override code!: 'capture_timeout';
  @ApiProperty({ required: false, example: 'capture_timeout', description: 'The raw cause’s code, as a Job’s `error_code`' }) error_code?: string;
}

@ApiSchema({ description: 'A path segment over 2048 characters' })
export class UriTooLongErrorBody extends ErrorBody {
  @ApiProperty({ example: 'A path segment is longer than 2048 characters' }) override error!: string;
  @ApiProperty({ enum: ['uri_too_long'] }) override code!: 'uri_too_long';
}

@ApiSchema({ description: 'A `Content-Encoding` other than identity, gzip, deflate or br' })
export class UnsupportedMediaTypeErrorBody extends ErrorBody {
  @ApiProperty({ example: 'Content-Encoding "zstd" is not supported (use identity, gzip, deflate or br)' }) override error!: string;
  @ApiProperty({ enum: ['unsupported_media_type'] }) override code!: 'unsupported_media_type';
}

@ApiSchema({ description: 'Request headers over 16 KiB (answered before any header is read: no X-RateLimit-* headers; the connection is closed)' })
export class HeadersTooLargeErrorBody extends ErrorBody {
  @ApiProperty({ example: 'Request headers are larger than 16 KiB' }) override error!: string;
  @ApiProperty({ enum: ['headers_too_large'] }) override code!: 'headers_too_large';
}

@ApiSchema({
  description:
    'A signed link (render keys) whose `signature` is missing, not the last parameter, not the HMAC-SHA256 of the query before it, or made with an unknown or deleted key',
})
export class InvalidSignatureErrorBody extends ErrorBody {
  @ApiProperty({ example: 'The link’s signature is invalid' }) override error!: string;
  @ApiProperty({ enum: ['invalid_signature'] }) override code!: 'invalid_signature';
}

@ApiSchema({ description: 'A correctly signed link whose `expires` (unix seconds) has passed' })
export class LinkExpiredErrorBody extends ErrorBody {
  @ApiProperty({ example: 'The link expired at 2026-11-26T20:00:00.000Z' }) override error!: string;
  @ApiProperty({ enum: ['link_expired'] }) override code!: 'link_expired';
}

// ---------------------------------------------------------------------------------------------------------
// Success shapes shared by every context
// ---------------------------------------------------------------------------------------------------------

@ApiSchema({ description: 'Answer of the delete operations' })
export class MessageResponse {
  @ApiProperty({ type: 'boolean', enum: [true] }) success!: true;
  @ApiProperty({ example: 'Website deleted' }) message!: string;
}

export class PageMeta {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 }) current_page!: number;
  @ApiProperty({ type: 'integer', minimum: 1, example: 3 }) last_page!: number;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100, example: 15 }) per_page!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Items in all pages', example: 42 }) total!: number;
}

export class PageLinks {
  @ApiProperty({ format: 'uri', example: 'https://api.example.com/websites?page=1' }) first!: string;
  @ApiProperty({ format: 'uri', example: 'https://api.example.com/websites?page=3' }) last!: string;
  @ApiProperty({ type: 'string', format: 'uri', nullable: true, description: 'null on the first page' }) prev!: string | null;
  @ApiProperty({ type: 'string', format: 'uri', nullable: true, description: 'null on the last page', example: 'https://api.example.com/websites?page=2' })
  next!: string | null;
}

// ---------------------------------------------------------------------------------------------------------
// Response headers (components.headers; responses refer to them)
// ---------------------------------------------------------------------------------------------------------

/** Spec, Limits 3: on every authenticated response, for the calendar minute of the request. */
export const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'X-RateLimit-Limit': { description: 'Maximum requests per minute for the plan', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute (0 on a 429)', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'Unix timestamp in seconds when the minute window resets', schema: { type: 'integer' } },
};

export const RETRY_AFTER_HEADER: Record<string, HeaderObject> = {
  'Retry-After': { description: 'Seconds until requests are accepted again', schema: { type: 'integer', minimum: 1 } },
};

export const RESPONSE_HEADER_COMPONENTS: Record<string, HeaderObject> = { ...RATE_LIMIT_HEADERS, ...RETRY_AFTER_HEADER };

/** References to header components; a fresh object each time (@nestjs/swagger keeps what it is given). */
export function headerRefs(names: readonly string[]): Record<string, ReferenceObject> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}
