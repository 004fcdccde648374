import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFoundError } from '../domain/domain-error';
import { MAX_ID } from './validation';

/**
 * Path ids: anything that is not a positive integer in range cannot name a resource, so it is a 404
 * (never a 500 from the database, never a 422 that would hint at the id format).
 */
@Injectable()
export class IdParam implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^[1-9]\d{0,9}$/.test(value)) throw new NotFoundError();
    const id = Number(value);
    if (id > MAX_ID) throw new NotFoundError();
    return id;
  }
}
