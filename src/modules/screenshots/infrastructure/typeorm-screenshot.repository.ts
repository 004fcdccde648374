import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';
import { DateUtils } from 'typeorm/util/DateUtils';
import { PageRequest } from '../../../shared/http/pagination';
import { ScreenshotProps } from '../domain/screenshot';
import { CapturedScreenshot, DuplicateScreenshotError, ScreenshotFilter, ScreenshotRepository } from '../application/ports';
import { ScreenshotRow } from './rows';
import { isUniqueViolation } from './unique-violation';

function toScreenshot(row: ScreenshotRow): ScreenshotProps {
  return { ...row, status: 'success' };
}

interface SqliteHandle {
  prepare(sql: string): { run(...params: unknown[]): { lastInsertRowid: number | bigint } };
  transaction<T>(fn: () => T): () => T;
}

@Injectable()
export class TypeOrmScreenshotRepository extends ScreenshotRepository {
  constructor(
    @InjectRepository(ScreenshotRow) private readonly rows: Repository<ScreenshotRow>,
    private readonly dataSource: DataSource,
  ) {
    super();
  }

  async insertWithFile(shot: CapturedScreenshot, placeFile: (id: number) => string, finishedAt: Date): Promise<ScreenshotProps> {
    try {
      const id = this.dataSource.options.type === 'postgres' ? await this.insertPostgres(shot, placeFile, finishedAt) : this.insertSqlite(shot, placeFile, finishedAt);
      return toScreenshot(await this.rows.findOneByOrFail({ id }));
    } catch (err) {
      if (isUniqueViolation(err)) throw new DuplicateScreenshotError(`job ${shot.jobId} already has a screenshot`);
      throw err;
    }
  }

  /**
   * SQLite: TypeORM shares one connection between all concurrent callers, so an async transaction would
   * swallow unrelated statements. better-sqlite3's synchronous transaction cannot interleave with anything.
   */
  private insertSqlite(shot: CapturedScreenshot, placeFile: (id: number) => string, finishedAt: Date): number {
    const db = (this.dataSource.driver as unknown as { databaseConnection: SqliteHandle }).databaseConnection;
    const ts = (d: Date) => DateUtils.mixedDateToUtcDatetimeString(d);
    return db.transaction(() => {
      const { lastInsertRowid } = db
        .prepare(
          `INSERT INTO screenshots (account_id, website_id, job_id, scenario_id, execution_id, file_path, file_size, width, height, status, taken_at) VALUES (?, ?, ?, ?, ?, '', ?, ?, ?, 'success', ?)`,
        )
        .run(shot.accountId, shot.websiteId, shot.jobId, shot.scenarioId ?? null, shot.executionId ?? null, shot.fileSize, shot.width, shot.height, ts(shot.takenAt));
      const id = Number(lastInsertRowid);
      db.prepare(`UPDATE screenshots SET file_path = ? WHERE id = ?`).run(placeFile(id), id);
      if (shot.jobId) db.prepare(`UPDATE jobs SET status = 'succeeded', screenshot_id = ?, error = NULL, finished_at = ? WHERE id = ?`).run(id, ts(finishedAt), shot.jobId);
      return id;
    })();
  }

  private insertPostgres(shot: CapturedScreenshot, placeFile: (id: number) => string, finishedAt: Date): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const [{ id }] = await manager.query(
        `INSERT INTO screenshots (account_id, website_id, job_id, scenario_id, execution_id, file_path, file_size, width, height, status, taken_at) VALUES ($1, $2, $3, $4, $5, '', $6, $7, $8, 'success', $9) RETURNING id`,
        [shot.accountId, shot.websiteId, shot.jobId, shot.scenarioId ?? null, shot.executionId ?? null, shot.fileSize, shot.width, shot.height, shot.takenAt],
      );
      await manager.query(`UPDATE screenshots SET file_path = $1 WHERE id = $2`, [placeFile(id), id]);
      if (shot.jobId) await manager.query(`UPDATE jobs SET status = 'succeeded', screenshot_id = $1, error = NULL, finished_at = $2 WHERE id = $3`, [id, finishedAt, shot.jobId]);
      return Number(id);
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
    const [rows, total] = await this.rows.findAndCount({
      where: {
        accountId,
        ...(filter.websiteId ? { websiteId: filter.websiteId } : {}),
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.scenarioId ? { scenarioId: filter.scenarioId } : {}),
      },
      order: { id: 'DESC' },
      skip: (page.page - 1) * page.perPage,
      take: page.perPage,
    });
    return { items: rows.map(toScreenshot), total };
  }

  async listForExecution(executionId: string): Promise<ScreenshotProps[]> {
    return (await this.rows.find({ where: { executionId }, order: { id: 'ASC' } })).map(toScreenshot);
  }

  async listForWebsite(websiteId: number): Promise<ScreenshotProps[]> {
    return (await this.rows.findBy({ websiteId })).map(toScreenshot);
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }
}
