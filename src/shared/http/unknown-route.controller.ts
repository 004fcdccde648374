import { All, Controller } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { NotFoundError } from '../domain/domain-error';
import { IgnoresBody } from './body-parsing';
import { AuthIfPresented } from './decorators';

/**
 * Every path and method no other route takes. Without a token it is a plain 404; with one, the guards run as
 * on any API route, so the 404 carries the caller's X-RateLimit-* headers and counts (spec: every response
 * to an authenticated client), and a wrong token is the counted 401 it would be anywhere else. Whatever the
 * body says (JSON fields, too large, not JSON), there is no such route: 404.
 */
@ApiExcludeController()
@AuthIfPresented()
@IgnoresBody()
@Controller()
export class UnknownRouteController {
  @All('*')
  unknownRoute(): never {
    throw new NotFoundError('Route');
  }
}
