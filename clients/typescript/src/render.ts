import type { ScreenshotClient } from './client';
import { ApiError } from './errors';
import type { components } from './schema';

/**
 * What a render takes: the page's `url`, every Take Screenshot option and the cache's fields (`cache_ttl`,
 * `cache_key`, `fresh`), exactly as the OpenAPI document's RenderRequest has them: a field it does not have (a typo
 * such as `viewport_widht`) does not compile. `response_type` is left out: render() answers the bytes.
 */
export type RenderParams = Omit<components['schemas']['RenderRequest'], 'response_type'>;

export interface Rendered {
  bytes: Uint8Array;
  /** `image/png`, `image/jpeg`, `image/webp`, `application/pdf`, `video/webm`, `image/gif`, or the text formats' types. */
  contentType: string;
  /** `HIT` when served from the render cache. */
  cache: string | null;
  headers: Headers;
}

/**
 * Renders a page in one call (POST /render with the client's token, the options as its JSON body: objects such as
 * `clip` or `cookies` go as they are) and answers the image or PDF bytes.
 */
export async function render(client: ScreenshotClient, params: RenderParams): Promise<Rendered> {
  const { data, error, response } = await client.POST('/render', { body: params, parseAs: 'arrayBuffer' });
  if (data === undefined) throw ApiError.from(response, error);
  return {
    bytes: new Uint8Array(data),
    contentType: response.headers.get('content-type') ?? '',
    cache: response.headers.get('x-cache'),
    headers: response.headers,
  };
}
