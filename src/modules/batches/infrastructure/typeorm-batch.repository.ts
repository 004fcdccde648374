import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, IsNull, MoreThanOrEqual, Repository } from 'typeorm';
import { DateUtils } from 'typeorm/util/DateUtils';
import type { PageRequest } from '../../../shared/domain/page-request';
import { findPage } from '../../../shared/persistence/hot-query';
import { sqliteConnection } from '../../../shared/persistence/sqlite-connection';
import { BatchRepository, ItemResult, NewBatch } from '../application/ports';
import type { BatchItemProps, BatchProps, ItemOutcome, StoredItemStatus } from '../domain/batch';
import { BatchItemRow, BatchRow } from './batch.rows';

function toBatch(row: BatchRow): BatchProps {
  const { emittedAt: _emitted, ...rest } = row;
  return rest;
}

function toItem(row: BatchItemRow): BatchItemProps {
  const { fileKey, format, fileSize, width, height, ...rest } = row;
  return {
    ...rest,
    file: fileKey && format ? { key: fileKey, format, size: fileSize ?? 0, width: width ?? 0, height: height ?? 0 } : null,
  };
}

/** The counter column an outcome moves (a fixed set: never text from outside in the SQL). */
const COUNTER: Record<ItemOutcome, string> = { succeeded: 'succeeded', failed: 'failed', cancelled: 'cancelled' };
/** At most this many ids in one IN list (well within SQLite's and PostgreSQL's limits of bound parameters). */
const CHUNK = 500;

/** `?` placeholders → PostgreSQL's `$1, $2, …`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function endSql(count: number): string {
  return (
    `UPDATE batch_items SET status = ?, error = ?, file_key = ?, format = ?, file_size = ?, width = ?, height = ?, finished_at = ? ` +
    `WHERE batch_id = ? AND status = 'queued' AND job_id IN (${Array(count).fill('?').join(', ')})`
  );
}

/** Moves the batch out of `running` once every item has ended: the one conditional update that finds it so. */
const COMPLETE_SQL =
  `UPDATE batches SET status = CASE WHEN cancelled > 0 THEN 'cancelled' ELSE 'completed' END, completed_at = ? ` +
  `WHERE id = ? AND status = 'running' AND succeeded + failed + cancelled >= total`;

@Injectable()
export class TypeOrmBatchRepository extends BatchRepository {
  constructor(
    @InjectRepository(BatchRow) private readonly batches: Repository<BatchRow>,
    @InjectRepository(BatchItemRow) private readonly itemRows: Repository<BatchItemRow>,
    private readonly dataSource: DataSource,
  ) {
    super();
  }

  private get postgres(): boolean {
    return this.dataSource.options.type === 'postgres';
  }

  async create(batch: NewBatch): Promise<BatchProps> {
    const row: BatchRow = {
      id: batch.id,
      accountId: batch.accountId,
      name: batch.name,
      status: 'running',
      total: batch.items.length,
      succeeded: 0,
      failed: 0,
      cancelled: 0,
      createdAt: batch.createdAt,
      cancelRequestedAt: null,
      completedAt: null,
      emittedAt: null,
    };
    if (this.postgres) {
      await this.dataSource.transaction(async (manager) => {
        await manager.insert(BatchRow, row);
        for (let i = 0; i < batch.items.length; i += CHUNK) {
          await manager.insert(
            BatchItemRow,
            batch.items.slice(i, i + CHUNK).map((item) => ({ batchId: batch.id, ...item, status: 'queued' as const })),
          );
        }
      });
    } else {
      // better-sqlite3's synchronous transaction: TypeORM's async one would share its connection with other statements.
      const db = sqliteConnection(this.dataSource);
      const created = DateUtils.mixedDateToUtcDatetimeString(batch.createdAt) as string;
      db.transaction(() => {
        db.prepare(
          `INSERT INTO batches (id, account_id, name, status, total, succeeded, failed, cancelled, created_at) VALUES (?, ?, ?, 'running', ?, 0, 0, 0, ?)`,
        ).run(batch.id, batch.accountId, batch.name, batch.items.length, created);
        const insert = db.prepare(`INSERT INTO batch_items (batch_id, position, url, job_id, status) VALUES (?, ?, ?, ?, 'queued')`);
        for (const item of batch.items) insert.run(batch.id, item.position, item.url, item.jobId);
      })();
    }
    return toBatch(row);
  }

  async findOwned(accountId: number, id: string): Promise<BatchProps | null> {
    const row = await this.batches.findOneBy({ id, accountId });
    return row ? toBatch(row) : null;
  }

  async findById(id: string): Promise<BatchProps | null> {
    const row = await this.batches.findOneBy({ id });
    return row ? toBatch(row) : null;
  }

  async list(accountId: number, page: PageRequest) {
    const { rows, total, edges } = await findPage(
      this.batches,
      { accountId },
      [
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
      page,
    );
    return { items: rows.map(toBatch), total, edges };
  }

  async items(batchId: string, page: PageRequest, status?: StoredItemStatus) {
    const { rows, total, edges } = await findPage(this.itemRows, { batchId, status }, [['position', 'ASC']], page);
    return { items: rows.map(toItem), total, edges };
  }

  async allItems(batchId: string, status?: StoredItemStatus): Promise<BatchItemProps[]> {
    const rows = await this.itemRows.find({ where: { batchId, ...(status ? { status } : {}) }, order: { position: 'ASC' } });
    return rows.map(toItem);
  }

  async itemByJob(jobId: string): Promise<BatchItemProps | null> {
    const row = await this.itemRows.findOneBy({ jobId });
    return row ? toItem(row) : null;
  }

  async endItems(batchId: string, jobIds: string[], result: ItemResult): Promise<{ ended: number; completed: boolean }> {
    let ended = 0;
    let completed = false;
    for (let i = 0; i < jobIds.length; i += CHUNK) {
      const chunk = jobIds.slice(i, i + CHUNK);
      const outcome = this.postgres ? await this.endPostgres(batchId, chunk, result) : this.endSqlite(batchId, chunk, result);
      ended += outcome.ended;
      completed ||= outcome.completed;
    }
    return { ended, completed };
  }

  private params(batchId: string, jobIds: string[], r: ItemResult, date: (d: Date) => unknown): unknown[] {
    const f = r.file;
    return [
      r.outcome,
      r.error,
      f?.key ?? null,
      f?.format ?? null,
      f?.size ?? null,
      f?.width ?? null,
      f?.height ?? null,
      date(r.finishedAt),
      batchId,
      ...jobIds,
    ];
  }

  private endSqlite(batchId: string, jobIds: string[], result: ItemResult): { ended: number; completed: boolean } {
    const db = sqliteConnection(this.dataSource);
    const ts = (d: Date): string => DateUtils.mixedDateToUtcDatetimeString(d) as string;
    return db.transaction(() => {
      const ended = db.prepare(endSql(jobIds.length)).run(...this.params(batchId, jobIds, result, ts)).changes;
      if (ended === 0) return { ended, completed: false };
      const counter = COUNTER[result.outcome];
      db.prepare(`UPDATE batches SET ${counter} = ${counter} + ? WHERE id = ?`).run(ended, batchId);
      const completed = db.prepare(COMPLETE_SQL).run(ts(result.finishedAt), batchId).changes === 1;
      return { ended, completed };
    })();
  }

  private async endPostgres(batchId: string, jobIds: string[], result: ItemResult): Promise<{ ended: number; completed: boolean }> {
    return this.dataSource.transaction(async (manager) => {
      // manager.query answers an UPDATE with [rows, affected count].
      const [, ended]: [unknown, number] = await manager.query(
        numbered(endSql(jobIds.length)),
        this.params(batchId, jobIds, result, (d) => d),
      );
      if (ended === 0) return { ended, completed: false };
      const counter = COUNTER[result.outcome];
      // The row lock this takes holds every other item's transaction of the batch until this one commits, so the
      // completion check below sees every count before it: exactly one transaction finds the batch done.
      await manager.query(`UPDATE batches SET ${counter} = ${counter} + $1 WHERE id = $2`, [ended, batchId]);
      const [, changed]: [unknown, number] = await manager.query(numbered(COMPLETE_SQL), [result.finishedAt, batchId]);
      return { ended, completed: changed === 1 };
    });
  }

  async requestCancel(id: string, now: Date): Promise<boolean> {
    await this.batches.update({ id, status: 'running', cancelRequestedAt: IsNull() }, { cancelRequestedAt: now });
    const row = await this.batches.findOneBy({ id });
    return row?.status === 'running';
  }

  async completedToEmit(since: Date, limit: number): Promise<BatchProps[]> {
    const rows = await this.batches.find({
      where: { completedAt: MoreThanOrEqual(since), emittedAt: IsNull() },
      order: { completedAt: 'ASC' },
      take: limit,
    });
    return rows.map(toBatch);
  }

  async markEmitted(id: string, now: Date): Promise<void> {
    await this.batches.update({ id }, { emittedAt: now });
  }

  async running(limit: number): Promise<BatchProps[]> {
    const rows = await this.batches.find({ where: { status: 'running' }, order: { createdAt: 'ASC' }, take: limit });
    return rows.map(toBatch);
  }

  async delete(id: string): Promise<void> {
    await this.itemRows.delete({ batchId: id });
    await this.batches.delete({ id });
  }
}
