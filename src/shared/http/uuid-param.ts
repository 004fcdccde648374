import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFoundError } from '../domain/domain-error';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Job and execution ids are UUIDs; anything else cannot name one, so it is a 404. */
@Injectable()
export class UuidParam implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!UUID.test(value)) throw new NotFoundError();
    return value.toLowerCase();
  }
}
