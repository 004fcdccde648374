/**
 * Errors raised by domain and application code. Each carries a stable machine `code`; the global HTTP
 * filter maps codes to statuses and bodies, so no controller ever builds an error body by hand.
 */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'plan_no_api_access'
  | 'plan_upgrade_required'
  | 'forbidden'
  | 'invalid_signature'
  | 'link_expired'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'uri_too_long'
  | 'headers_too_large'
  | 'validation_failed'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable'
  | 'capture_failed'
  | 'capture_timeout';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra top-level fields of the error body (e.g. current_plan, details). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export interface FieldError {
  field: string;
  message: string;
}

/** At most this many field errors are listed in one 422; `details_total` says how many there were. */
export const MAX_DETAILS = 100;

/**
 * A 422 naming its fields. The body lists at most MAX_DETAILS of them, with `details_total` when there were
 * more (`total`: the full count, when only some were collected); `details` keeps what was given, for merging.
 */
export class ValidationFailedError extends DomainError {
  constructor(
    readonly details: FieldError[],
    total = details.length,
  ) {
    const shown = details.length > MAX_DETAILS ? details.slice(0, MAX_DETAILS) : details;
    const count = Math.max(total, details.length);
    super('validation_failed', 'The given data was invalid', { details: shown, ...(count > shown.length ? { details_total: count } : {}) });
  }

  /** The full count of field errors (the body's `details_total`, else its `details`). */
  get total(): number {
    return (this.extra.details_total as number | undefined) ?? this.details.length;
  }

  static of(field: string, message: string): ValidationFailedError {
    return new ValidationFailedError([{ field, message }]);
  }
}

export class NotFoundError extends DomainError {
  constructor(what = 'Resource', extra: Record<string, unknown> = {}) {
    super('not_found', `${what} not found`, extra);
  }

  /** A 404 that says why, where "X not found" would not (a diff whose previous capture was deleted). */
  static because(message: string): NotFoundError {
    const error = new NotFoundError();
    error.message = message;
    return error;
  }
}

export class UnauthorizedError extends DomainError {
  constructor() {
    // The spec fixes this body exactly: {success: false, error: "Unauthorized"}.
    super('unauthorized', 'Unauthorized');
  }
}

export class BadRequestError extends DomainError {
  constructor(message: string) {
    super('bad_request', message);
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor() {
    super('payload_too_large', 'Request body is larger than 1 MiB');
  }
}

/** A body sent with a Content-Encoding this API does not decode (it takes identity, gzip, deflate and br). */
export class UnsupportedMediaTypeError extends DomainError {
  constructor(message: string) {
    super('unsupported_media_type', message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class UnavailableError extends DomainError {
  constructor(message = 'Service temporarily unavailable') {
    super('unavailable', message);
  }
}

/** A render whose page failed (API.md, Render in one call): 502 with the page's error, as a job's `error` says it. */
export class CaptureFailedError extends DomainError {
  /** `errorCode`: the raw cause's code (failure-words.ts), the body's `error_code`. */
  constructor(message: string, errorCode: string | null = null) {
    super('capture_failed', message, errorCode === null ? {} : { error_code: errorCode });
  }
}

/** A render that did not end within its time: 504. */
export class CaptureTimeoutError extends DomainError {
  constructor(message: string, errorCode: string | null = null) {
    super('capture_timeout', message, errorCode === null ? {} : { error_code: errorCode });
  }
}
