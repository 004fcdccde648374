import { createHmac } from 'node:crypto';
import type { components } from './schema';

/** A query value: strings as they are, numbers and booleans as their text, a list as the key repeated. */
export type QueryValue = string | number | boolean | readonly (string | number | boolean)[];

type RenderRequest = components['schemas']['RenderRequest'];

/**
 * What a signed link may carry: the fields of the OpenAPI document's RenderRequest whose values a query holds as they
 * are (text, numbers, booleans and lists of them; not the objects `clip`, `headers`, `cookies`, `http_auth`). A name
 * the document does not have (a typo such as `viewport_widht`) does not compile.
 */
export type SignedRenderParams = { [K in keyof RenderRequest as NonNullable<RenderRequest[K]> extends QueryValue ? K : never]: RenderRequest[K] };

export interface SignRenderUrlOptions {
  /** Where the service answers, e.g. `https://shots.example.com`. */
  baseUrl: string;
  /** A render key's `access_key` (POST /render-keys). */
  accessKey: string;
  /** That key's `secret`, shown once when the key was made. Keep it on a server: anyone holding it can sign. */
  secret: string;
  /** `url` and any capture or cache option of GET /render, in the order they should appear. Undefined ones are left out. */
  params: SignedRenderParams;
  /** When the link stops working: a Date or unix seconds. No expiry when absent. */
  expires?: Date | number;
}

const encode = (key: string, value: string | number | boolean): string => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`;

/**
 * A signed GET /render link (API.md, "Signed links"): `<baseUrl>/render?<query>&signature=<hex>`, where the query
 * ends with `access_key` (and `expires` when given) and `signature` is the lowercase hex HMAC-SHA256 of the query
 * exactly as written before `&signature=`, keyed with the secret. No token is needed to open it.
 */
export function signRenderUrl({ baseUrl, accessKey, secret, params, expires }: SignRenderUrlOptions): string {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    // Not in the type; a caller in plain JavaScript could still pass them.
    if (key === 'access_key' || key === 'expires' || key === 'signature') {
      throw new Error(`"${key}" is set by signRenderUrl, not a render parameter`);
    }
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) pairs.push(encode(key, item));
  }
  pairs.push(encode('access_key', accessKey));
  if (expires !== undefined) pairs.push(encode('expires', unixSeconds(expires)));
  const query = pairs.join('&');
  const signature = createHmac('sha256', secret).update(query).digest('hex');
  return `${baseUrl.replace(/\/+$/, '')}/render?${query}&signature=${signature}`;
}

function unixSeconds(expires: Date | number): number {
  const seconds = expires instanceof Date ? Math.floor(expires.getTime() / 1000) : expires;
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new Error(`expires must be unix seconds (a whole number ≥ 0), got ${String(expires)}`);
  return seconds;
}
