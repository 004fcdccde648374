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
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'uri_too_long'
  | 'headers_too_large'
  | 'validation_failed'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable';

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

export class ValidationFailedError extends DomainError {
  constructor(readonly details: FieldError[]) {
    super('validation_failed', 'The given data was invalid', { details });
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
