import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { isValidHost } from './request-framing';
import { MAX_ID, QueryInt } from './validation';
import { ValidationFailedError } from '../domain/domain-error';
import type { Page, PageEdges, PagePosition, PageRequest } from '../domain/page-request';

export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 100;
/** Far beyond any real list; keeps (page - 1) × per_page an offset both databases accept. */
export const MAX_PAGE = MAX_ID;
const MAX_CURSOR_LENGTH = 1000;

/** `page` and `per_page` query parameters shared by every list endpoint. */
export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page number' })
  @QueryInt(1, MAX_PAGE)
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE, description: 'Items per page' })
  @QueryInt(1, MAX_PER_PAGE)
  per_page?: number;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: MAX_CURSOR_LENGTH,
    description: 'Opaque position from a `links.next` / `links.prev` / `links.last` URL (keyset paging: the same cost at any depth); wins over `page`',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CURSOR_LENGTH)
  cursor?: string;
}

/**
 * The `cursor` of a link: base64url of `{"p": page, "a": keys}` (the page starting after the row with these
 * order keys), `{"p", "b": keys}` (ending before it) or `{"p", "e": 1}` (the last page). Opaque to clients; the
 * keys are checked against the list's columns when the page is read (a cursor of another list is a 422 too).
 */
interface CursorBody {
  p: number;
  a?: unknown[];
  b?: unknown[];
  e?: 1;
}

function badCursor(): ValidationFailedError {
  return ValidationFailedError.of('cursor', 'cursor is not a cursor of this list (use the links as given)');
}

function encodeCursor(body: CursorBody): string {
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

function decodeCursor(raw: string): { page: number; from: PagePosition } {
  let body: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw badCursor();
    body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badCursor();
  const { p, a, b, e } = body as Record<string, unknown>;
  if (typeof p !== 'number' || !Number.isInteger(p) || p < 1 || p > MAX_PAGE) throw badCursor();
  const keys = (value: unknown) => Array.isArray(value) && value.length > 0 && value.length <= 4;
  if (a !== undefined && b === undefined && e === undefined && keys(a)) return { page: p, from: { after: a as unknown[] } };
  if (b !== undefined && a === undefined && e === undefined && keys(b)) return { page: p, from: { before: b as unknown[] } };
  if (e === 1 && a === undefined && b === undefined) return { page: p, from: { end: true } };
  throw badCursor();
}

/** The page asked for: by `cursor` when a link gave one (its page number rides in it), else by `page`. */
export function pageRequest(query: PageQuery): PageRequest {
  const perPage = query.per_page ?? DEFAULT_PER_PAGE;
  if (query.cursor !== undefined) return { ...decodeCursor(query.cursor), perPage };
  return { page: query.page ?? 1, perPage };
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
export function envelope<T>(request: FastifyRequest, publicUrl: string | null, items: T[], total: number, page: PageRequest, edges?: PageEdges): Envelope<T> {
  const lastPage = Math.max(1, Math.ceil(total / page.perPage));
  const target = requestTarget(request.url);
  // With the page's edges, next / prev / last carry a cursor (keyset: reading them costs the same at any depth);
  // page 1 needs none. `page` stays in every link, for clients that read it.
  const link = (n: number, cursor?: CursorBody): string => {
    const params = new URLSearchParams(target.search);
    params.delete('cursor');
    params.set('page', String(n));
    if (cursor && n > 1) params.set('cursor', encodeCursor(cursor));
    return `${requestOrigin(request, publicUrl)}${target.pathname}?${params.toString()}`;
  };
  const prev = Math.min(page.page - 1, lastPage);
  return {
    data: items,
    meta: { current_page: page.page, last_page: lastPage, per_page: page.perPage, total },
    links: {
      first: link(1),
      last: link(lastPage, edges ? { p: lastPage, e: 1 } : undefined),
      prev: page.page > 1 ? link(prev, edges && prev === page.page - 1 ? { p: prev, b: edges.first } : undefined) : null,
      next: page.page < lastPage ? link(page.page + 1, edges ? { p: page.page + 1, a: edges.last } : undefined) : null,
    },
  };
}

/** A list endpoint in one call: page from the query, load that page, map each item to its view, wrap it. */
export async function paginate<T, V>(
  request: FastifyRequest,
  publicUrl: string | null,
  query: PageQuery,
  load: (page: PageRequest) => Promise<Page<T>>,
  view: (item: T) => V,
): Promise<Envelope<V>> {
  const page = pageRequest(query);
  const { items, total, edges } = await load(page);
  return envelope(request, publicUrl, items.map(view), total, page, edges);
}
