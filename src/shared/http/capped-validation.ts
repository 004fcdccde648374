import { FieldError, ValidationFailedError } from '../domain/domain-error';

/** At most this many field errors are listed in one 422; `details_total` says how many there were. */
export const MAX_DETAILS = 100;

/** A 422 listing at most MAX_DETAILS fields, with the full count when some were left out. */
export function cappedValidationError(details: FieldError[], total = details.length): ValidationFailedError {
  const error = new ValidationFailedError(details.slice(0, MAX_DETAILS));
  if (total > error.details.length) Object.assign(error.extra, { details_total: total });
  return error;
}

export const notAllowed = (key: string): FieldError => ({ field: key, message: `${key} is not allowed` });
