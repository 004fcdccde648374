import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import type { PageRequest } from '../../../shared/domain/page-request';
import type { JobSource } from '../../jobs/domain/job';
import { JobRow } from '../../jobs/infrastructure/job.row';
import type { StepRecord } from '../../scenarios/domain/execution';
import { ScreenshotRow } from '../../screenshots/infrastructure/screenshot.row';
import { counterName, findPage } from '../../../shared/persistence/hot-query';
import {
  DashboardQueries,
  GalleryFilter,
  GalleryShot,
  ShotSource,
  UsageBucket,
  UsageSeries,
  WebsiteChecks,
  WebsiteChoices,
} from '../application/dashboard-queries';

/** `%`, `_` and the escape character itself are literal in a search. */
function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function toTile(row: ScreenshotRow): GalleryShot {
  const { id, websiteId, jobId, scenarioId, executionId, format, fileSize, width, height, takenAt, fullPage } = row;
  return { id, websiteId, jobId, scenarioId, executionId, format, fileSize, width, height, takenAt, fullPage };
}

/**
 * A failed run's failure screenshot is the one taken after its steps: a run stores one screenshot per succeeded
 * `screenshot` step, in order, then the final one. When there are more screenshots than such steps, the newest is it.
 */
function failureShotOf(records: unknown, shotIds: number[]): number | null {
  const steps = Array.isArray(records) ? (records as StepRecord[]) : [];
  const stepShots = steps.filter((r) => r.type === 'screenshot' && r.status === 'succeeded').length;
  return shotIds.length > stepShots ? Math.max(...shotIds) : null;
}

@Injectable()
export class TypeOrmDashboardQueries extends DashboardQueries {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  private get shots() {
    return this.dataSource.getRepository(ScreenshotRow);
  }

  private get jobs() {
    return this.dataSource.getRepository(JobRow);
  }

  private get postgres(): boolean {
    return this.dataSource.options.type === 'postgres';
  }

  async gallery(accountId: number, filter: GalleryFilter, page: PageRequest): Promise<{ items: GalleryShot[]; total: number }> {
    if (!filter.from && !filter.until && !filter.search) {
      // The whole gallery or one website's: the API's list query, its total kept in list_counts (no COUNT).
      const list = filter.websiteId ? counterName('screenshots', { website: filter.websiteId }) : counterName('screenshots');
      const { rows, total } = await findPage(this.shots, { accountId, websiteId: filter.websiteId }, [['id', 'DESC']], page, { accountId, list });
      return { items: rows.map(toTile), total };
    }
    const query = this.shots.createQueryBuilder('s').where('s.account_id = :accountId', { accountId });
    if (filter.websiteId) query.andWhere('s.website_id = :websiteId', { websiteId: filter.websiteId });
    if (filter.from) query.andWhere('s.taken_at >= :from', { from: filter.from });
    if (filter.until) query.andWhere('s.taken_at < :until', { until: filter.until });
    if (filter.search) {
      // The account's websites whose name or URL contains the text: a handful of rows, read through its own index.
      query.andWhere(
        `s.website_id IN (SELECT w.id FROM websites w WHERE w.account_id = :accountId AND (LOWER(w.name) LIKE :pattern ESCAPE '\\' OR LOWER(w.url) LIKE :pattern ESCAPE '\\'))`,
        { pattern: likePattern(filter.search) },
      );
    }
    const [rows, total] = await query
      .orderBy('s.id', 'DESC')
      .skip((page.page - 1) * page.perPage)
      .take(page.perPage)
      .getManyAndCount();
    return { items: rows.map(toTile), total };
  }

  /**
   * Last checked: the newest capture job of the website that ended, read backwards through ix_jobs_account_website
   * (account_id, website_id, created_at, id), stepping over the few still queued or running. Last changed: the newest
   * screenshot with changed = true, one row of ix_screenshots_account_changes (account_id, website_id, changed, id).
   */
  async websiteChecks(accountId: number, websiteId: number): Promise<WebsiteChecks> {
    const job = await this.jobs
      .createQueryBuilder('j')
      .select(['j.id', 'j.status', 'j.finishedAt', 'j.createdAt'])
      .where('j.account_id = :accountId AND j.website_id = :websiteId', { accountId, websiteId })
      .andWhere("j.type = 'screenshot' AND j.status IN ('succeeded', 'failed')")
      .orderBy('j.created_at', 'DESC')
      .addOrderBy('j.id', 'DESC')
      .limit(1)
      .getOne();
    const shot = await this.shots
      .createQueryBuilder('s')
      .select(['s.id', 's.takenAt'])
      .where('s.account_id = :accountId AND s.website_id = :websiteId AND s.changed = :changed', { accountId, websiteId, changed: true })
      .orderBy('s.id', 'DESC')
      .limit(1)
      .getOne();
    return {
      lastChecked: job ? { at: job.finishedAt ?? job.createdAt, status: job.status as 'succeeded' | 'failed' } : null,
      lastChanged: shot ? { at: shot.takenAt, screenshotId: shot.id } : null,
    };
  }

  async sources(accountId: number, shots: readonly GalleryShot[]): Promise<Map<number, ShotSource>> {
    const out = new Map<number, ShotSource>();
    const jobIds = [...new Set(shots.flatMap((s) => (s.jobId ? [s.jobId] : [])))];
    const executionIds = [...new Set(shots.flatMap((s) => (s.executionId ? [s.executionId] : [])))];
    const ids = [...jobIds, ...executionIds];
    const jobs = ids.length
      ? await this.jobs.find({ select: { id: true, status: true, source: true, result: true, type: true }, where: { accountId, id: In(ids) } })
      : [];
    const byId = new Map(jobs.map((j) => [j.id, j]));
    // Every screenshot of the failed runs shown (not only those on this page), to tell their failure shot.
    const failed = executionIds.filter((id) => byId.get(id)?.status === 'failed');
    const runShots = failed.length ? await this.shots.find({ select: { id: true, executionId: true }, where: { accountId, executionId: In(failed) } }) : [];
    const failureShots = new Set<number>();
    for (const id of failed) {
      const shot = failureShotOf(
        byId.get(id)?.result,
        runShots.filter((s) => s.executionId === id).map((s) => s.id),
      );
      if (shot !== null) failureShots.add(shot);
    }
    for (const shot of shots) {
      if (failureShots.has(shot.id)) out.set(shot.id, 'failure');
      else if (shot.executionId || shot.scenarioId) out.set(shot.id, 'scenario');
      else if (shot.jobId && byId.has(shot.jobId)) out.set(shot.id, byId.get(shot.jobId)!.source as JobSource);
    }
    return out;
  }

  async shotsByIds(accountId: number, ids: readonly number[]): Promise<GalleryShot[]> {
    if (ids.length === 0) return [];
    return (await this.shots.find({ where: { accountId, id: In([...ids]) }, order: { id: 'DESC' } })).map(toTile);
  }

  async websiteNames(accountId: number, ids: readonly number[]): Promise<Map<number, string>> {
    const names = new Map<number, string>();
    const wanted = [...new Set(ids)];
    // A few hundred ids a read: well under either dialect's limit of bound parameters.
    for (let at = 0; at < wanted.length; at += 500) {
      const rows = await this.dataSource
        .createQueryBuilder()
        .select('w.id', 'id')
        .addSelect('w.name', 'name')
        .from('websites', 'w')
        .where('w.account_id = :accountId', { accountId })
        .andWhere('w.id IN (:...ids)', { ids: wanted.slice(at, at + 500) })
        .getRawMany<{ id: number | string; name: string }>();
      for (const r of rows) names.set(Number(r.id), r.name);
    }
    return names;
  }

  async websiteChoices(accountId: number, search: string | undefined, selectedId: number | undefined, limit: number): Promise<WebsiteChoices> {
    const query = this.dataSource
      .createQueryBuilder()
      .select('w.id', 'id')
      .addSelect('w.name', 'name')
      .from('websites', 'w')
      .where('w.account_id = :accountId', { accountId });
    if (search) {
      query.andWhere(`(LOWER(w.name) LIKE :pattern ESCAPE '\\' OR LOWER(w.url) LIKE :pattern ESCAPE '\\')`, { pattern: likePattern(search) });
    }
    // Through ix_websites_account (account_id, id): the newest `limit + 1`, read in order, stopping there.
    const rows = await query
      .orderBy('w.id', 'DESC')
      .limit(limit + 1)
      .getRawMany<{ id: number | string; name: string }>();
    const websites = rows.slice(0, limit).map((r) => ({ id: Number(r.id), name: r.name }));
    if (selectedId && !websites.some((w) => w.id === selectedId)) {
      const [selected] = await this.dataSource.query<Array<{ id: number | string; name: string }>>(
        this.postgres ? 'SELECT id, name FROM websites WHERE account_id = $1 AND id = $2' : 'SELECT id, name FROM websites WHERE account_id = ? AND id = ?',
        [accountId, selectedId],
      );
      if (selected) websites.unshift({ id: Number(selected.id), name: selected.name });
    }
    return { websites, more: rows.length > limit };
  }

  /**
   * From usage_hours (migrations/1763801100000-list-counts.ts: per account and UTC hour, kept by triggers in the
   * same transaction as the jobs and screenshots): at most 24 × 30 rows read, whatever the tables hold.
   */
  async usage(accountId: number, now: Date, bucketSeconds: number, count: number): Promise<UsageSeries> {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const origin = (Math.floor(nowSeconds / bucketSeconds) - (count - 1)) * bucketSeconds;
    const rows: Array<{ hour: number | string; jobs: number | string; failures: number | string; bytes: number | string }> = await this.dataSource.query(
      this.postgres
        ? 'SELECT hour, jobs, failures, bytes FROM usage_hours WHERE account_id = $1 AND hour >= $2'
        : 'SELECT hour, jobs, failures, bytes FROM usage_hours WHERE account_id = ? AND hour >= ?',
      [accountId, origin],
    );
    const buckets: UsageBucket[] = Array.from({ length: count }, (_, i) => ({
      start: new Date((origin + i * bucketSeconds) * 1000),
      jobs: 0,
      failures: 0,
      storedBytes: 0,
    }));
    for (const row of rows) {
      const b = buckets[Math.floor((Number(row.hour) - origin) / bucketSeconds)] as UsageBucket | undefined;
      if (!b) continue;
      b.jobs += Number(row.jobs);
      b.failures += Number(row.failures);
      b.storedBytes += Number(row.bytes);
    }
    return { buckets, bucketSeconds };
  }

  /** The running total list_counts keeps (`bytes`), not a sum over every screenshot. */
  async storedBytes(accountId: number): Promise<number> {
    const rows: Array<{ total: number | string }> = await this.dataSource.query(
      this.postgres
        ? `SELECT total FROM list_counts WHERE account_id = $1 AND list = 'bytes'`
        : `SELECT total FROM list_counts WHERE account_id = ? AND list = 'bytes'`,
      [accountId],
    );
    return Math.max(0, Number(rows[0]?.total ?? 0));
  }
}
