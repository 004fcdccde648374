import { ApiPropertyOptional } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
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

/** Origin for absolute links: PUBLIC_URL when the operator set it, else what the request says. */
export function requestOrigin(request: FastifyRequest, publicUrl: string | null): string {
  if (publicUrl) return publicUrl;
  const host = request.headers.host ?? `localhost`;
  return `${request.protocol}://${host}`;
}

/** The spec's pagination envelope, with absolute links that keep the caller's other query parameters. */
export function envelope<T>(request: FastifyRequest, publicUrl: string | null, items: T[], total: number, page: PageRequest): Envelope<T> {
  const lastPage = Math.max(1, Math.ceil(total / page.perPage));
  const [path, rawQuery = ''] = request.url.split('?', 2);
  const link = (n: number): string => {
    const params = new URLSearchParams(rawQuery);
    params.set('page', String(n));
    return `${requestOrigin(request, publicUrl)}${path}?${params.toString()}`;
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
