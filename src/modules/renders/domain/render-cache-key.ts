import { createHash } from 'node:crypto';

/**
 * The render cache's key (API.md "Render cache"): account + normalized URL + every option that changes the image
 * (the picture's like-for-like key, screenshots' comparisonKey, read from the capture-option table's
 * `changesPicture`) + the output (format, quality, PDF paper: they change the bytes) + a keyed digest of the
 * request's secrets (a page seen logged in is not the page seen logged out) + fail_on_status (a request that fails on
 * a 404 must not be answered with a cached picture of that 404) + the client's cache_key. Timing options (wait_until,
 * delay_ms, timeout_ms) are not in it: they say when the picture is taken, not what it shows.
 */
export interface RenderKeyParts {
  accountId: number;
  url: string;
  picture: string;
  output: unknown;
  secretsDigest: string | null;
  failOnStatus: unknown;
  cacheKey: string | null;
}

export function renderCacheKey(parts: RenderKeyParts): string {
  const canonical = JSON.stringify([
    parts.accountId,
    parts.url,
    parts.picture,
    parts.output ?? null,
    parts.secretsDigest,
    parts.failOnStatus ?? null,
    parts.cacheKey,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
