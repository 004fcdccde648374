import { JobEvents } from '../../jobs/application/job-events';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, LessThan, Repository } from 'typeorm';
import { DateUtils } from 'typeorm/util/DateUtils';
import { PageRequest } from '../../../shared/domain/page-request';
import { ScreenshotProps } from '../domain/screenshot';
import { JobAttemptScope } from '../../jobs/application/job-attempt-scope';
import { CapturedScreenshot, DuplicateScreenshotError, ScreenshotFilter, ScreenshotRepository } from '../application/ports';
import { SupersededAttemptError } from '../../jobs/application/ports';
import { ScreenshotRow } from './screenshot.row';
import { findPage } from '../../../shared/persistence/hot-query';
import { isUniqueViolation } from '../../../shared/persistence/constraint-violations';

function toScreenshot(row: ScreenshotRow): ScreenshotProps {
  return { ...row, status: 'success' };
}

/** The row as inserted: what insert returns without reading it back after the commit. */
function inserted(shot: CapturedScreenshot, id: number, filePath: string): ScreenshotProps {
  return {
    id,
    accountId: shot.accountId,
    websiteId: shot.websiteId,
    jobId: shot.jobId,
    scenarioId: shot.scenarioId ?? null,
    executionId: shot.executionId ?? null,
    filePath,
    format: shot.format,
    fileSize: shot.fileSize,
    width: shot.width,
    height: shot.height,
    status: 'success',
    takenAt: shot.takenAt,
  };
}

/**
 * The job-row statement that ends the insert transaction, and fences it: it must change exactly one row or
 * the transaction rolls back (SupersededAttemptError). For a capture job it marks the job succeeded, but only
 * while the attempt storing it (JobAttemptScope) still holds the job — or, outside any attempt, while the job
 * is unfinished. For a scenario screenshot it checks that the execution's attempt still holds it; the no-op
 * UPDATE also locks the row on PostgreSQL, so a concurrent claim waits for this commit, and the new attempt's
 * clean-up then sees (and removes) what this one stored.
 */
function jobStatement(shot: CapturedScreenshot, id: number, finishedAt: unknown): { sql: string; params: unknown[]; jobId: string } | null {
  if (shot.jobId) {
    const attempt = JobAttemptScope.attemptOf(shot.jobId);
    const set = `UPDATE jobs SET status = 'succeeded', screenshot_id = ?, error = NULL, finished_at = ? WHERE id = ?`;
    return attempt === null
      ? { sql: `${set} AND status IN ('queued', 'running')`, params: [id, finishedAt, shot.jobId], jobId: shot.jobId }
      : { sql: `${set} AND status = 'running' AND attempts = ?`, params: [id, finishedAt, shot.jobId, attempt], jobId: shot.jobId };
  }
  const attempt = JobAttemptScope.attemptOf(shot.executionId);
  if (!shot.executionId || attempt === null) return null;
  return {
    sql: `UPDATE jobs SET attempts = attempts WHERE id = ? AND status = 'running' AND attempts = ?`,
    params: [shot.executionId, attempt],
    jobId: shot.executionId,
  };
}

/** `?` placeholders → PostgreSQL's `$1, $2, …`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** The columns between id and status, in the INSERT's order. */
function values(shot: CapturedScreenshot, filePath: string): unknown[] {
  return [
    shot.accountId,
    shot.websiteId,
    shot.jobId,
    shot.scenarioId ?? null,
    shot.executionId ?? null,
    filePath,
    shot.format,
    shot.fileSize,
    shot.width,
    shot.height,
  ];
}

interface SqliteHandle {
  prepare(sql: string): { run(...params: unknown[]): { lastInsertRowid: number | bigint; changes: number }; get(...params: unknown[]): unknown };
  transaction<T>(fn: () => T): () => T;
}

@Injectable()
export class TypeOrmScreenshotRepository extends ScreenshotRepository {
  constructor(
    @InjectRepository(ScreenshotRow) private readonly rows: Repository<ScreenshotRow>,
    private readonly dataSource: DataSource,
    private readonly events: JobEvents,
  ) {
    super();
  }

  async reserveId(): Promise<number> {
    if (this.dataSource.options.type === 'postgres') {
      const [{ id }]: Array<{ id: string | number }> = await this.dataSource.query(`SELECT nextval(pg_get_serial_sequence('screenshots', 'id')) AS id`);
      return Number(id);
    }
    // SQLite's AUTOINCREMENT keeps its high-water mark in sqlite_sequence, which may be written like any table
    // (sqlite.org/autoinc.html): moving it on takes the next id for us, and later inserts continue after it.
    const db = this.sqlite();
    return db.transaction(() => {
      const row = db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'screenshots'`).get() as { seq: number } | undefined;
      const next = Number(row?.seq ?? 0) + 1;
      if (row) db.prepare(`UPDATE sqlite_sequence SET seq = ? WHERE name = 'screenshots'`).run(next);
      else db.prepare(`INSERT INTO sqlite_sequence (name, seq) VALUES ('screenshots', ?)`).run(next);
      return next;
    })();
  }

  async insert(shot: CapturedScreenshot, id: number, filePath: string, finishedAt: Date): Promise<ScreenshotProps> {
    try {
      if (this.dataSource.options.type === 'postgres') await this.insertPostgres(shot, id, filePath, finishedAt);
      else this.insertSqlite(shot, id, filePath, finishedAt);
      // Built from what was inserted, not read back: once committed, nothing may fail this call (the caller
      // would remove the files of a row that exists).
      if (shot.jobId) this.events.ended(shot.jobId); // the capture job was marked succeeded in the same commit
      return inserted(shot, id, filePath);
    } catch (err) {
      if (isUniqueViolation(err)) throw new DuplicateScreenshotError(`job ${shot.jobId} already has a screenshot`);
      throw err;
    }
  }

  private sqlite(): SqliteHandle {
    return (this.dataSource.driver as unknown as { databaseConnection: SqliteHandle }).databaseConnection;
  }

  /**
   * SQLite: TypeORM shares one connection between all concurrent callers, so an async transaction would
   * swallow unrelated statements. better-sqlite3's synchronous transaction cannot interleave with anything.
   */
  private insertSqlite(shot: CapturedScreenshot, id: number, filePath: string, finishedAt: Date): void {
    const db = this.sqlite();
    const ts = (d: Date): string => DateUtils.mixedDateToUtcDatetimeString(d) as string;
    db.transaction(() => {
      db.prepare(
        `INSERT INTO screenshots (id, account_id, website_id, job_id, scenario_id, execution_id, file_path, format, file_size, width, height, status, taken_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'success', ?)`,
      ).run(id, ...values(shot, filePath), ts(shot.takenAt));
      const job = jobStatement(shot, id, ts(finishedAt));
      if (job && db.prepare(job.sql).run(...job.params).changes !== 1) throw new SupersededAttemptError(job.jobId);
    })();
  }

  private async insertPostgres(shot: CapturedScreenshot, id: number, filePath: string, finishedAt: Date): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO screenshots (id, account_id, website_id, job_id, scenario_id, execution_id, file_path, format, file_size, width, height, status, taken_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'success', $12)`,
        [id, ...values(shot, filePath), shot.takenAt],
      );
      const job = jobStatement(shot, id, finishedAt);
      if (job) {
        // manager.query answers an UPDATE with [rows, affected count].
        const [, changed]: [unknown, number] = await manager.query(numbered(job.sql), job.params);
        if (changed !== 1) throw new SupersededAttemptError(job.jobId);
      }
    });
  }

  async findOwned(accountId: number, id: number): Promise<ScreenshotProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? toScreenshot(row) : null;
  }

  async findOwnedMany(accountId: number, ids: number[]): Promise<ScreenshotProps[]> {
    if (ids.length === 0) return [];
    return (await this.rows.findBy({ accountId, id: In(ids) })).map(toScreenshot);
  }

  async findByJob(jobId: string): Promise<ScreenshotProps | null> {
    const row = await this.rows.findOneBy({ jobId });
    return row ? toScreenshot(row) : null;
  }

  async list(accountId: number, page: PageRequest, filter: ScreenshotFilter) {
    const where = { accountId, websiteId: filter.websiteId || undefined, status: filter.status || undefined, scenarioId: filter.scenarioId || undefined };
    const { rows, total } = await findPage(this.rows, where, [['id', 'DESC']], page);
    return { items: rows.map(toScreenshot), total };
  }

  async listForExecution(executionId: string): Promise<ScreenshotProps[]> {
    return (await this.rows.find({ where: { executionId }, order: { id: 'ASC' } })).map(toScreenshot);
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }

  async existingIds(ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.rows.find({ select: { id: true }, where: { id: In(ids) } });
    return new Set(rows.map((r) => r.id));
  }

  async takenBefore(cutoff: Date, limit: number): Promise<ScreenshotProps[]> {
    return (await this.rows.find({ where: { takenAt: LessThan(cutoff) }, order: { takenAt: 'ASC' }, take: limit })).map(toScreenshot);
  }
}
