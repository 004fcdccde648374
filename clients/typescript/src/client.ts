import createFetchClient, { type Client, type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from './schema';

/** `paths` as a type alias: an interface has no implicit index signature, which openapi-fetch's helpers ask for. */
type Paths = { [P in keyof paths]: paths[P] };
type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type Media = `${string}/${string}`;

/** The keys of every member of a union (`keyof` of a union has only the keys they share). */
type KeysOf<T> = T extends unknown ? keyof T : never;
/** The type of `K` in whichever members of `Shape` have it. */
type ShapeAt<Shape, K> = Shape extends unknown ? (K extends keyof Shape ? NonNullable<Shape[K]> : never) : never;

/**
 * `T` where every field its `Shape` lacks is `never`, down through nested objects (4 levels: init → body → field →
 * its fields): `T & Strict<T, Shape>` refuses a misspelled field (`viewport_widht`) that plain assignability lets
 * through. Lists are left as they are.
 */
type Strict<T, Shape, Depth extends unknown[] = []> = Depth['length'] extends 4
  ? T
  : T extends readonly unknown[]
    ? T
    : T extends object
      ? { [K in keyof T]: K extends KeysOf<Shape> ? Strict<T[K], ShapeAt<Shape, K>, [...Depth, unknown]> : never }
      : T;

/**
 * openapi-fetch's method with its `init` checked field by field: openapi-fetch infers `init` as a type parameter
 * (and adds an index signature to it), so an unknown field in a body or a query would compile there.
 */
type ExactMethod<Paths extends Record<string, Record<string, unknown>>, M extends Method> = <
  Path extends ClientPathsWithMethod<Client<Paths>, M>,
  Init extends MaybeOptionalInit<Paths[Path], M>,
>(
  url: Path,
  ...init: Record<never, never> extends NonNullable<Init>
    ? [(Init & Strict<Init, NonNullable<MaybeOptionalInit<Paths[Path], M>>>)?]
    : [Init & Strict<Init, NonNullable<MaybeOptionalInit<Paths[Path], M>>>]
) => Promise<FetchResponse<Extract<Paths[Path][M], Record<string | number, unknown>>, Init, Media>>;

/**
 * A typed client of the screenshot API: every path, parameter, body and answer as the OpenAPI document says, and
 * nothing else (a field the document does not have is a compile error).
 */
export type ScreenshotClient = Omit<Client<paths>, 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH'> & {
  GET: ExactMethod<Paths, 'get'>;
  PUT: ExactMethod<Paths, 'put'>;
  POST: ExactMethod<Paths, 'post'>;
  DELETE: ExactMethod<Paths, 'delete'>;
  PATCH: ExactMethod<Paths, 'patch'>;
};

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
  }) as ScreenshotClient;
}
