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
  /** The entry stops being live (replaced, failed): compare-and-set on its id, so only that entry is retired. */
  abstract retire(id: string): Promise<void>;
  abstract markReady(id: string, stored: StoredRender): Promise<void>;
  /** A failed render is retired at once; its row is swept at keepUntil. */
  abstract markFailed(id: string, finishedAt: Date, keepUntil: Date): Promise<void>;
  /** Pushes keepUntil to at least `until` (a json answer's link must outlive the answer). */
  abstract keepAtLeast(id: string, until: Date): Promise<void>;
  /** Entries whose keepUntil has passed, oldest first, at most `limit`. */
  abstract keptUntilBefore(now: Date, limit: number): Promise<RenderProps[]>;
  abstract delete(id: string): Promise<void>;
}
