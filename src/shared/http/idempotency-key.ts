import { ValidationFailedError } from '../domain/domain-error';

/** The optional `Idempotency-Key` header: a retry with the same key returns the same job. */
export function idempotencyKey(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const key = raw.trim();
  if (key.length < 1 || key.length > 255) throw ValidationFailedError.of('Idempotency-Key', 'Idempotency-Key must be 1..255 characters');
  return key;
}
