import { ApiPropertyOptional } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { isValidHost } from './request-framing';
import { MAX_ID, QueryInt } from './validation';
import type { PageRequest } from '../domain/page-request';

export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 100;
/** Far beyond any real list; keeps (page - 1) × per_page an offset both databases accept. */
export const MAX_PAGE = MAX_ID;

/** `page` and `per_page` query parameters shared by every list endpoint. */
export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page number' })
  @QueryInt(1, MAX_PAGE)
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE, description: 'Items per page' })
  @QueryInt(1, MAX_PER_PAGE)
  per_page?: number;
}

export function pageRequest(query: PageQuery): PageRequest {
  return { page: query.page ?? 1, perPage: query.per_page ?? DEFAULT_PER_PAGE };
}

export interface Envelope<T> {
  data: T[];
  meta: { current_page: number; last_page: number; per_page: number; total: number };
  links: { first: string; last: string; prev: string | null; next: string | null };
}

/**
 * Origin for absolute links: PUBLIC_URL when the operator set it, else the request's scheme and Host. The Host
 * was checked at the door (registerRequestFraming: a host[:port], else 400); an HTTP/1.0 request may lack one.
 */
export function requestOrigin(request: FastifyRequest, publicUrl: string | null): string {
  if (publicUrl) return publicUrl;
  const host = isValidHost(request.headers.host) ? request.headers.host : 'localhost';
  return `${request.protocol === 'https' ? 'https' : 'http'}://${host}`;
}

/** The path and query of a request-target in origin form (`/websites?page=2`) or absolute form (`http://x/websites`). */
function requestTarget(url: string): { pathname: string; search: string } {
  if (url.startsWith('/') && !url.startsWith('//')) {
    const query = url.indexOf('?');
    return query === -1 ? { pathname: url, search: '' } : { pathname: url.slice(0, query), search: url.slice(query) };
  }
  try {
    return new URL(url, 'http://localhost');
  } catch {
    return { pathname: '/', search: '' };
  }
}

/**
 * The spec's pagination envelope, with absolute links that keep the caller's other query parameters. Only the
 * request-target's path and query are used: an absolute-form target (`GET http://elsewhere/websites`) names
 * another authority, which a link must not copy.
 */
export function envelope<T>(request: FastifyRequest, publicUrl: string | null, items: T[], total: number, page: PageRequest): Envelope<T> {
  const lastPage = Math.max(1, Math.ceil(total / page.perPage));
  const target = requestTarget(request.url);
  const link = (n: number): string => {
    const params = new URLSearchParams(target.search);
    params.set('page', String(n));
    return `${requestOrigin(request, publicUrl)}${target.pathname}?${params.toString()}`;
  };
  return {
    data: items,
    meta: { current_page: page.page, last_page: lastPage, per_page: page.perPage, total },
    links: {
      first: link(1),
      last: link(lastPage),
      prev: page.page > 1 ? link(Math.min(page.page - 1, lastPage)) : null,
      next: page.page < lastPage ? link(page.page + 1) : null,
    },
  };
}

/** A list endpoint in one call: page from the query, load that page, map each item to its view, wrap it. */
export async function paginate<T, V>(
  request: FastifyRequest,
  publicUrl: string | null,
  query: PageQuery,
  load: (page: PageRequest) => Promise<{ items: T[]; total: number }>,
  view: (item: T) => V,
): Promise<Envelope<V>> {
  const page = pageRequest(query);
  const { items, total } = await load(page);
  return envelope(request, publicUrl, items.map(view), total, page);
}
