import type { CaptureReport } from '../../../shared/domain/capture-report';
import type { RenderProps } from '../domain/render';

export type NewRender = Pick<RenderProps, 'id' | 'accountId' | 'cacheKey' | 'url' | 'format' | 'createdAt' | 'keepUntil'>;

export interface StoredRender {
  fileKey: string;
  fileSize: number;
  width: number;
  height: number;
  capture: CaptureReport | null;
  finishedAt: Date;
  expiresAt: Date;
  keepUntil: Date;
}

/** The renders table: cache entries, one live per (account, cache key) — the database keeps that unique. */
export abstract class RenderRepository {
  /** Inserts a pending live entry; false when the account already has a live entry for the key (another request won). */
  abstract insertLive(render: NewRender): Promise<boolean>;
  abstract findLive(accountId: number, cacheKey: string): Promise<RenderProps | null>;
  abstract findById(id: string): Promise<RenderProps | null>;
  /**
   * The entry stops being live (replaced, failed, abandoned): compare-and-set on its id, so only that entry is
   * retired. Only liveKey changes: a ready entry stays readable by id until its keepUntil (domain/render.ts).
   */
  abstract retire(id: string): Promise<void>;
  /**
   * Records the stored object: a pending row becomes ready with `stored.keepUntil`; a ready one (a second attempt
   * of its job wrote the object again) takes the new facts but keeps the later keepUntil. Nothing happens to a row
   * that is gone, failed, swept (claimForSweep), or past its keepUntil at `stored.finishedAt` (the sweep's): false
   * then, and the caller removes the object it wrote.
   */
  abstract markReady(id: string, stored: StoredRender): Promise<boolean>;
  /** A pending render that failed is retired at once; its row is swept at keepUntil. A ready one is left as it is. */
  abstract markFailed(id: string, finishedAt: Date, keepUntil: Date): Promise<void>;
  /** Pushes keepUntil to at least `until` (a json answer's link must outlive the answer); never on a swept row. */
  abstract keepAtLeast(id: string, until: Date): Promise<void>;
  /** Entries whose keepUntil has passed, oldest first, at most `limit`. */
  abstract keptUntilBefore(now: Date, limit: number): Promise<RenderProps[]>;
  /**
   * The sweep's first step on an entry it read as expired, one atomic compare-and-set: the row becomes 'swept' (and
   * not live) only if its keepUntil is still before `cutoff` — a row made ready or kept longer since it was read is
   * left alone (false). True too when another sweeper claimed it already. A swept row is never revived (markReady,
   * markFailed and keepAtLeast leave it as it is) and keeps its keepUntil, so a sweep that fails after claiming it
   * finds it again.
   */
  abstract claimForSweep(id: string, cutoff: Date): Promise<boolean>;
  abstract delete(id: string): Promise<void>;
}
