import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';

/** A typed client of the screenshot API: every path, parameter, body and answer as the OpenAPI document says. */
export type ScreenshotClient = Client<paths>;

export interface ClientOptions {
  /** Where the service answers, e.g. `https://shots.example.com` (no trailing path). */
  baseUrl: string;
  /** An API token (`sst_…`), made in the dashboard under Settings → API Keys. */
  token: string;
  /** Another fetch (a proxy agent, a test double); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

export function createClient({ baseUrl, token, fetch }: ClientOptions): ScreenshotClient {
  return createFetchClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${token}` },
    ...(fetch ? { fetch } : {}),
  });
}
