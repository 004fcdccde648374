import type { FastifyRequest } from 'fastify';

/**
 * The request's one `Authorization` header. Node keeps only the first of several, so two headers would
 * authenticate as whichever came first — whatever a proxy in front added or meant. Several are no credential.
 */
export function authorizationHeader(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') count += 1;
  return count === 1 ? request.headers.authorization : count === 0 ? undefined : '';
}
