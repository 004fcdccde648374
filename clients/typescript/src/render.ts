import type { Client } from 'openapi-fetch';
import type { ScreenshotClient } from './client';
import { ApiError } from './errors';
import type { QueryValue } from './signing';

/**
 * GET /render's query, typed by hand from API.md ("Render in one call", "Render cache") until the endpoint is in the
 * OpenAPI document this package is generated from; every Take Screenshot option applies, as query text.
 */
export type RenderParams = {
  url: string;
  format?: 'png' | 'jpeg' | 'webp' | 'pdf';
  full_page?: boolean;
  viewport_width?: number;
  viewport_height?: number;
  device?: string;
  /** Seconds the image may be served from the cache (0..2592000; 0 by default with a token). */
  cache_ttl?: number;
  /** Varies the cache key (≤ 64 characters). */
  cache_key?: string;
  /** Bypass the cache and refresh it. */
  fresh?: boolean;
} & Record<string, QueryValue | undefined>;

interface RenderPaths {
  '/render': {
    get: {
      parameters: { query: RenderParams };
      responses: { 200: { content: { 'image/png': ArrayBuffer } } };
    };
  };
}

export interface Rendered {
  bytes: Uint8Array;
  /** `image/png`, `image/jpeg`, `image/webp` or `application/pdf`. */
  contentType: string;
  /** `HIT` when served from the render cache. */
  cache: string | null;
  headers: Headers;
}

/** Renders a page in one call (GET /render with the client's token) and answers the image or PDF bytes. */
export async function render(client: ScreenshotClient, params: RenderParams): Promise<Rendered> {
  const untyped = client as unknown as Client<RenderPaths>;
  const { data, error, response } = await untyped.GET('/render', { params: { query: params }, parseAs: 'arrayBuffer' });
  if (data === undefined) throw ApiError.from(response, error);
  return {
    bytes: new Uint8Array(data),
    contentType: response.headers.get('content-type') ?? '',
    cache: response.headers.get('x-cache'),
    headers: response.headers,
  };
}
