import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFoundError } from '../domain/domain-error';
import { parseId } from './validation';

/**
 * Path ids: anything that is not a positive integer in range cannot name a resource, so it is a 404
 * (never a 500 from the database, never a 422 that would hint at the id format).
 */
@Injectable()
export class IdParam implements PipeTransform<string, number> {
  transform(value: string): number {
    const id = parseId(value);
    if (id === null) throw new NotFoundError();
    return id;
  }
}
