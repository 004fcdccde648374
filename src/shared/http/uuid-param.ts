import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFoundError } from '../domain/domain-error';

/** A UUID in its canonical 8-4-4-4-12 hex form, either case (OpenAPI documents the same pattern). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const UUID = new RegExp(UUID_PATTERN);

/** Job and execution ids are UUIDs; anything else cannot name one, so it is a 404. */
@Injectable()
export class UuidParam implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!UUID.test(value)) throw new NotFoundError();
    return value.toLowerCase();
  }
}
