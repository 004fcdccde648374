/**
 * A render (API.md "Render in one call", "Render cache"): one capture asked for by GET/POST /render, kept as a
 * cache entry of its account for its cache TTL — never a website's screenshot. One row per render; at most one row
 * per (account, cache key) is the live entry (`liveKey` set), which identical requests hit or wait on.
 *
 * Its life, two independent things:
 * - **live** (`liveKey`): whether requests for its key find it. Retiring (replaced by cache_ttl=0 or `fresh`,
 *   expired, failed, abandoned) only clears liveKey: it touches neither the row's status, nor keepUntil, nor the
 *   object.
 * - **kept** (`keepUntil`): until when the row and its object exist, readable by id (`isKept`: a json answer's
 *   signed link). Only the sweep ends it, past keepUntil (+ its grace), deleting the object — whatever the status —
 *   then the row. A ready render's keepUntil never moves earlier (a json answer pushes it, a late attempt of its job
 *   cannot pull it back), and a row past its keepUntil is never made ready again: it is the sweep's. The sweep first
 *   claims the row (status 'swept', only while it is still past its keepUntil, atomically), then deletes the object,
 *   then the row: an entry made ready or kept longer after the sweep read it is never deleted.
 */
import type { CaptureReport } from '../../../shared/domain/capture-report';
import type { OutputFormat } from '../../../shared/domain/output-format';
import { FORMAT_FILES } from '../../../shared/domain/output-format';

/** 'swept': claimed by the sweep, its object and row being deleted — nothing makes it anything else again. */
export type RenderStatus = 'pending' | 'ready' | 'failed' | 'swept';

export interface RenderProps {
  /** The id of its render job too. */
  id: string;
  accountId: number;
  /** renderCacheKey(): what identical requests share. */
  cacheKey: string;
  /** The cache key while this render is its account's live entry for it; null once retired (replaced, failed). */
  liveKey: string | null;
  url: string;
  status: RenderStatus;
  format: OutputFormat;
  fileKey: string | null;
  fileSize: number | null;
  width: number | null;
  height: number | null;
  capture: CaptureReport | null;
  createdAt: Date;
  finishedAt: Date | null;
  /** Until when a request may be answered from it (a HIT); null while pending. */
  expiresAt: Date | null;
  /** When the sweep deletes the row and its object: at least expiresAt, later when a json answer linked to it. */
  keepUntil: Date;
}

/** cache_ttl bounds (API.md): 0 (no caching) to 30 days. */
export const CACHE_TTL = { min: 0, max: 2_592_000 } as const;
/** cache_key: at most this many characters. */
export const CACHE_KEY_MAX = 64;

/**
 * A `response_type=json` answer links to the stored image: its object is kept at least this long after the answer
 * (whatever cache_ttl says, 0 included), so the link is still useful when the client follows it.
 */
export const JSON_LINK_MIN_SECONDS = 3600;

/**
 * A render answered with its bytes and cache_ttl 0 is kept this long after it ended: enough for requests that joined
 * the same capture to read it, then swept.
 */
export const UNCACHED_KEEP_SECONDS = 120;

/** A pending row whose job never ended (lost with its database write) is swept after this long. */
export const PENDING_KEEP_SECONDS = 3600;

/** The storage key of a render's object: its own area, beside (not under) the screenshots. */
export function renderFileKey(accountId: number, id: string, format: OutputFormat): string {
  return `renders/${accountId}/${id}.${FORMAT_FILES[format].extension}`;
}

/** Where a render's page content (`formats`) is kept: a JSON object of format → content, beside its file. */
export function renderContentsKey(fileKey: string): string {
  return `${fileKey}.contents.json`;
}

/**
 * Where a render's object is or may be: recorded once ready, else where its job writes it — a job that wrote its
 * object and died before marking the row ready leaves it there, and the sweep removes it with the row.
 */
export function objectKeyOf(render: RenderProps): string {
  return render.fileKey ?? renderFileKey(render.accountId, render.id, render.format);
}

/** Whether the render may be read by its id at `now` (a signed link's target): ready and not past its keepUntil. */
export function isKept(render: RenderProps, now: Date): boolean {
  return render.status === 'ready' && render.keepUntil.getTime() > now.getTime();
}

/**
 * Whether a request asking for `ttlSeconds` of freshness may be answered from this entry at `now`: it is ready, still
 * within its own expiry, and no older than the request accepts. A ttl of 0 never hits (nothing is read from the cache).
 */
export function isHit(render: RenderProps, ttlSeconds: number, now: Date): boolean {
  if (render.status !== 'ready' || ttlSeconds <= 0 || !render.expiresAt || !render.finishedAt) return false;
  return render.expiresAt.getTime() > now.getTime() && now.getTime() - render.finishedAt.getTime() <= ttlSeconds * 1000;
}

/** Seconds since the entry was made (the `Age` header of a hit). */
export function ageSeconds(render: RenderProps, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - (render.finishedAt ?? render.createdAt).getTime()) / 1000));
}

/** When a render that ended at `now` expires as a cache entry, and until when its object is kept. */
export function retention(now: Date, ttlSeconds: number): { expiresAt: Date; keepUntil: Date } {
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const keepUntil = new Date(Math.max(expiresAt.getTime(), now.getTime() + UNCACHED_KEEP_SECONDS * 1000));
  return { expiresAt, keepUntil };
}
