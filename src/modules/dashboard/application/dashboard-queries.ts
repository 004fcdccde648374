import type { OutputFormat } from '../../../shared/domain/output-format';
import type { PageRequest } from '../../../shared/domain/page-request';
import type { JobSource } from '../../jobs/domain/job';

/**
 * Read-only questions only the dashboard asks, answered in a few set-based queries (one per page, not one per
 * tile): the gallery's filters and search, where each shown screenshot came from, and the usage charts. They
 * change nothing; every rule about screenshots, jobs and websites stays with their own services.
 */

/** Where a screenshot came from, as the gallery's badge says it. */
export type ShotSource = JobSource | 'scenario' | 'failure';

export interface GalleryFilter {
  websiteId?: number;
  /** Taken at or after this instant. */
  from?: Date;
  /** Taken before this instant. */
  until?: Date;
  /** Part of the website's name or URL, any case. */
  search?: string;
}

/** A gallery tile: what the page shows of a screenshot. */
export interface GalleryShot {
  id: number;
  websiteId: number;
  jobId: string | null;
  scenarioId: number | null;
  executionId: string | null;
  format: OutputFormat;
  fileSize: number;
  width: number;
  height: number;
  takenAt: Date;
  fullPage: boolean;
}

/** One bar of a usage chart: the bucket's start and what happened in it. */
export interface UsageBucket {
  start: Date;
  /** Jobs asked for (captures and scenario runs). */
  jobs: number;
  failures: number;
  /** Bytes of the screenshots taken in the bucket that are still stored. */
  storedBytes: number;
}

export interface UsageSeries {
  buckets: UsageBucket[];
  /** Seconds per bucket (3600 or 86400). */
  bucketSeconds: number;
}

/** What a website picker offers: the choices, and whether more websites match than are offered. */
export interface WebsiteChoices {
  websites: Array<{ id: number; name: string }>;
  more: boolean;
}

/** When a website was last checked (its newest capture job that ended) and last found changed. */
export interface WebsiteChecks {
  lastChecked: { at: Date; status: 'succeeded' | 'failed' } | null;
  lastChanged: { at: Date; screenshotId: number } | null;
}

export abstract class DashboardQueries {
  /**
   * A website's last check and last change: two index reads (jobs by account, website and time; screenshots by
   * account, website and `changed`), whatever the tables hold.
   */
  abstract websiteChecks(accountId: number, websiteId: number): Promise<WebsiteChecks>;
  /** The account's screenshots matching the filter, newest first. */
  abstract gallery(accountId: number, filter: GalleryFilter, page: PageRequest): Promise<{ items: GalleryShot[]; total: number }>;
  /** Where each of these screenshots (the account's own) came from, by id. */
  abstract sources(accountId: number, shots: readonly GalleryShot[]): Promise<Map<number, ShotSource>>;
  /** Those of these screenshots that are the account's, newest first. */
  abstract shotsByIds(accountId: number, ids: readonly number[]): Promise<GalleryShot[]>;
  /** `count` buckets of `bucketSeconds` each, the last one containing `now`, aligned on UTC hours or days. */
  abstract usage(accountId: number, now: Date, bucketSeconds: number, count: number): Promise<UsageSeries>;
  /**
   * A website picker's choices: at most `limit` of the account's websites, newest first, whose name or URL contains
   * `search` (any case; all when empty), and the selected one whatever the search — not 10,000 options a page.
   */
  abstract websiteChoices(accountId: number, search: string | undefined, selectedId: number | undefined, limit: number): Promise<WebsiteChoices>;
  /**
   * The names of these websites of the account (others, and unknown ids, are left out), in a few indexed reads
   * whatever the count: a channel's websites on the Alerts page, not one read per id.
   */
  abstract websiteNames(accountId: number, ids: readonly number[]): Promise<Map<number, string>>;
  /** Bytes of every screenshot the account has stored. */
  abstract storedBytes(accountId: number): Promise<number>;
}
