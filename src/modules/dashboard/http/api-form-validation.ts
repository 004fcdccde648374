import type { Type } from '@nestjs/common';
import { FieldError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { createValidationPipe } from '../../../shared/http/validation';
import type { UrlPolicy } from '../../../shared/url-policy';
import { inPeoplesWordsAll } from './form-messages';

/**
 * A dashboard form judged exactly as the API judges the same JSON body: the API's DTO through the API's own
 * validation pipe (class-validator rules, unknown fields, and the domain checks the DTO names with @AlsoChecks),
 * so a form shows the same rules and messages (`steps[2].selector is required`). Empty when the body passes.
 */
export async function apiFieldErrors(urlPolicy: UrlPolicy, dto: Type<unknown>, body: Record<string, unknown>): Promise<FieldError[]> {
  try {
    await createValidationPipe({ urlPolicy }).transform(body, { type: 'body', metatype: dto, data: '' });
    return [];
  } catch (err) {
    if (err instanceof ValidationFailedError) return err.details;
    throw err;
  }
}

/** The errors of a ValidationFailedError thrown by a service, or rethrows anything else. */
export function fieldErrorsOf(err: unknown): FieldError[] {
  if (err instanceof ValidationFailedError) return err.details;
  throw err;
}

/**
 * Messages by field name (several for one field joined), for showing each next to its input: in people's words
 * (form-messages.ts), the field still the API's path.
 */
export function errorsByField(errors: readonly FieldError[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const { field, message } of inPeoplesWordsAll(errors)) map.set(field, map.has(field) ? `${map.get(field)} ${message}` : message);
  return map;
}

/** A positive integer form value as a number; anything else as the text it is (the validator names it). */
export function idField(text: string | null): unknown {
  if (text === null || text === '') return undefined;
  return /^\d{1,10}$/.test(text) ? Number(text) : text;
}
