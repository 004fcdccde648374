import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../../shared/domain/domain-error';
import { requestOrigin } from '../../../shared/http/pagination';

/** Every dashboard form carries this hidden field. */
export const CSRF_FIELD = '_csrf';

export class CsrfRejectedError extends DomainError {
  constructor() {
    super('forbidden', 'This form has expired or was not sent from this site. Go back, reload the page and try again.');
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A form post is accepted only with the expected token, and — when the browser says where it came from —
 * only from our own origin. SameSite=Lax cookies already stop most cross-site posts; this is the guarantee.
 * `Origin: null` (a sandboxed iframe, a `data:` or `file:` page, a cross-origin redirect) is no origin of ours:
 * refused, whatever the token (our pages send `Referrer-Policy: same-origin`, so our own forms name our origin).
 */
export function checkCsrf(request: FastifyRequest, publicUrl: string | null, sent: string | null, expected: string | undefined): void {
  if (!sent || !expected || !same(sent, expected)) throw new CsrfRejectedError();
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== requestOrigin(request, publicUrl)) throw new CsrfRejectedError();
}
