import { FieldError, MAX_DETAILS, ValidationFailedError } from '../domain/domain-error';

export { MAX_DETAILS };

/** A 422 listing at most MAX_DETAILS fields, with the full count when some were left out. */
export function cappedValidationError(details: FieldError[], total = details.length): ValidationFailedError {
  return new ValidationFailedError(details.slice(0, MAX_DETAILS), total);
}

export const notAllowed = (key: string): FieldError => ({ field: key, message: `${key} is not allowed` });
