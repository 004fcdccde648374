import { JobEvents } from '../../jobs/application/job-events';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, DataSource, In, LessThan, Repository } from 'typeorm';
import { DateUtils } from 'typeorm/util/DateUtils';
import { PageRequest } from '../../../shared/domain/page-request';
import { ScreenshotProps } from '../domain/screenshot';
import { parseBoxes } from '../domain/change';
import { parseCaptureReport, serializeCaptureReport } from '../domain/capture-report';
import { JobAttemptScope } from '../../jobs/application/job-attempt-scope';
import { CapturedScreenshot, ComparisonOutcome, DuplicateScreenshotError, ScreenshotFilter, ScreenshotRepository } from '../application/ports';
import { SupersededAttemptError } from '../../jobs/application/ports';
import { ScreenshotRow } from './screenshot.row';
import { counterName, findOne, findPage } from '../../../shared/persistence/hot-query';
import { isUniqueViolation } from '../../../shared/persistence/constraint-violations';
import { preparedOnce, SqliteConnection, sqliteConnection } from '../../../shared/persistence/sqlite-connection';

function toScreenshot(row: ScreenshotRow): ScreenshotProps {
  const {
    ignoreBoxes,
    previousId,
    changeStatus,
    changedRatio,
    changed,
    comparedAt,
    compareClaimedUntil: _claim,
    contentHash: _hash,
    captureReport,
    textAdded,
    textRemoved,
    ...plain
  } = row;
  return {
    ...plain,
    status: 'success',
    ignoreBoxes: parseBoxes(ignoreBoxes),
    capture: parseCaptureReport(captureReport),
    change:
      previousId !== null && changeStatus !== null
        ? {
            previousId,
            status: changeStatus,
            changedRatio,
            changed,
            comparedAt,
            textDiff: textAdded !== null && textRemoved !== null ? { added: textAdded, removed: textRemoved } : null,
          }
        : null,
  };
}

/**
 * What the inserting transaction knows of the comparison: the previous comparable capture, and — when its file's
 * bytes are the same as the new one's and so is its visible text — that nothing changed (equal files are equal
 * images, whatever the masks). `withText`: both kept their text, so the text diff (0 lines) is known too.
 */
interface KnownChange {
  previousId: number;
  unchanged: boolean;
  withText: boolean;
}

interface PreviousRow {
  id: number | string;
  content_hash: string | null;
  text_hash: string | null;
}

function knownChange(shot: CapturedScreenshot, previous: PreviousRow | undefined): KnownChange | null {
  if (!previous) return null;
  const withText = Boolean(shot.textHash) && Boolean(previous.text_hash);
  // A text only one of them kept (a capture from before text changes) is not compared: it cannot make a change.
  const sameText = !withText || previous.text_hash === shot.textHash;
  return { previousId: Number(previous.id), unchanged: Boolean(shot.contentHash) && previous.content_hash === shot.contentHash && sameText, withText };
}

/** The row as inserted: what insert returns without reading it back after the commit. */
function inserted(shot: CapturedScreenshot, id: number, filePath: string, known: KnownChange | null): ScreenshotProps {
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
    fullPage: shot.fullPage ?? false,
    compareKey: shot.compareKey ?? null,
    ignoreBoxes: shot.ignoreBoxes ?? [],
    // As stored (and read back): the report's own fields only.
    capture: parseCaptureReport(serializeCaptureReport(shot.capture)),
    change: !known
      ? null
      : known.unchanged
        ? {
            previousId: known.previousId,
            status: 'done',
            changedRatio: 0,
            changed: false,
            comparedAt: shot.takenAt,
            textDiff: known.withText ? { added: 0, removed: 0 } : null,
          }
        : { previousId: known.previousId, status: 'pending', changedRatio: null, changed: null, comparedAt: null, textDiff: null },
    textHash: shot.textHash ?? null,
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

const INSERT_COLUMNS =
  'id, account_id, website_id, job_id, scenario_id, execution_id, file_path, format, file_size, width, height, full_page, compare_key, content_hash, ' +
  'ignore_boxes, previous_id, change_status, changed_ratio, changed, compared_at, capture_report, text_hash, text_added, text_removed, status, taken_at';
/** Placeholders before status (id and what values() gives); then status and taken_at. */
const INSERT_VALUES = 24;

/**
 * The previous capture of the same website with the same comparable settings (the newest with a lower id), read
 * in the inserting transaction. Ids are reserved before the files are written, so of two captures stored at the
 * same moment the one with the higher id is compared with the other only if that one committed first.
 */
const PREVIOUS_SQL = 'SELECT id, content_hash, text_hash FROM screenshots WHERE website_id = ? AND compare_key = ? AND id < ? ORDER BY id DESC LIMIT 1';

/** The columns between id and status, in the INSERT's order (booleans and dates as the driver stores them). */
function values(shot: CapturedScreenshot, filePath: string, known: KnownChange | null, bool: (b: boolean) => unknown, date: (d: Date) => unknown): unknown[] {
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
    bool(shot.fullPage ?? false),
    shot.compareKey ?? null,
    shot.contentHash ?? null,
    shot.ignoreBoxes && shot.ignoreBoxes.length > 0 ? JSON.stringify(shot.ignoreBoxes) : null,
    known?.previousId ?? null,
    !known ? null : known.unchanged ? 'done' : 'pending',
    known?.unchanged ? 0 : null,
    known?.unchanged ? bool(false) : null,
    known?.unchanged ? date(shot.takenAt) : null,
    serializeCaptureReport(shot.capture),
    shot.textHash ?? null,
    known?.unchanged && known.withText ? 0 : null,
    known?.unchanged && known.withText ? 0 : null,
  ];
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
      const row = preparedOnce(db, `SELECT seq FROM sqlite_sequence WHERE name = 'screenshots'`).get() as { seq: number } | undefined;
      const next = Number(row?.seq ?? 0) + 1;
      if (row) preparedOnce(db, `UPDATE sqlite_sequence SET seq = ? WHERE name = 'screenshots'`).run(next);
      else preparedOnce(db, `INSERT INTO sqlite_sequence (name, seq) VALUES ('screenshots', ?)`).run(next);
      return next;
    })();
  }

  async insert(shot: CapturedScreenshot, id: number, filePath: string, finishedAt: Date): Promise<ScreenshotProps> {
    try {
      const known =
        this.dataSource.options.type === 'postgres'
          ? await this.insertPostgres(shot, id, filePath, finishedAt)
          : this.insertSqlite(shot, id, filePath, finishedAt);
      // Built from what was inserted, not read back: once committed, nothing may fail this call (the caller
      // would remove the files of a row that exists).
      if (shot.jobId) this.events.ended(shot.jobId); // the capture job was marked succeeded in the same commit
      return inserted(shot, id, filePath, known);
    } catch (err) {
      if (isUniqueViolation(err)) throw new DuplicateScreenshotError(`job ${shot.jobId} already has a screenshot`);
      throw err;
    }
  }

  private sqlite(): SqliteConnection {
    return sqliteConnection(this.dataSource);
  }

  /**
   * SQLite: TypeORM shares one connection between all concurrent callers, so an async transaction would
   * swallow unrelated statements. better-sqlite3's synchronous transaction cannot interleave with anything.
   * Returns what it recorded of the comparison (null: nothing to compare with).
   */
  private insertSqlite(shot: CapturedScreenshot, id: number, filePath: string, finishedAt: Date): KnownChange | null {
    const db = this.sqlite();
    const ts = (d: Date): string => DateUtils.mixedDateToUtcDatetimeString(d) as string;
    return db.transaction(() => {
      const previous = shot.compareKey ? (preparedOnce(db, PREVIOUS_SQL).get(shot.websiteId, shot.compareKey, id) as PreviousRow | undefined) : undefined;
      const known = knownChange(shot, previous);
      preparedOnce(db, `INSERT INTO screenshots (${INSERT_COLUMNS}) VALUES (${Array(INSERT_VALUES).fill('?').join(', ')}, 'success', ?)`).run(
        id,
        ...values(shot, filePath, known, (b) => (b ? 1 : 0), ts),
        ts(shot.takenAt),
      );
      const job = jobStatement(shot, id, ts(finishedAt));
      if (job && preparedOnce(db, job.sql).run(...job.params).changes !== 1) throw new SupersededAttemptError(job.jobId);
      return known;
    })();
  }

  private async insertPostgres(shot: CapturedScreenshot, id: number, filePath: string, finishedAt: Date): Promise<KnownChange | null> {
    return this.dataSource.transaction(async (manager) => {
      const previous: PreviousRow[] = shot.compareKey ? await manager.query(numbered(PREVIOUS_SQL), [shot.websiteId, shot.compareKey, id]) : [];
      const known = knownChange(shot, previous[0]);
      const placeholders = numbered(Array(INSERT_VALUES).fill('?').join(', '));
      await manager.query(`INSERT INTO screenshots (${INSERT_COLUMNS}) VALUES (${placeholders}, 'success', $${INSERT_VALUES + 1})`, [
        id,
        ...values(
          shot,
          filePath,
          known,
          (b) => b,
          (d) => d,
        ),
        shot.takenAt,
      ]);
      const job = jobStatement(shot, id, finishedAt);
      if (job) {
        // manager.query answers an UPDATE with [rows, affected count].
        const [, changed]: [unknown, number] = await manager.query(numbered(job.sql), job.params);
        if (changed !== 1) throw new SupersededAttemptError(job.jobId);
      }
      return known;
    });
  }

  // This and the single reads below use findOne (a prepared statement), not findOneBy, which builds the query anew
  // each call: they run on every download, thumbnail (24 a gallery page) and capture (docs/benchmark.md "Per-request cost").
  async findOwned(accountId: number, id: number): Promise<ScreenshotProps | null> {
    const row = await findOne(this.rows, { id, accountId });
    return row ? toScreenshot(row) : null;
  }

  async findOwnedMany(accountId: number, ids: number[]): Promise<ScreenshotProps[]> {
    if (ids.length === 0) return [];
    return (await this.rows.findBy({ accountId, id: In(ids) })).map(toScreenshot);
  }

  async findByJob(jobId: string): Promise<ScreenshotProps | null> {
    const row = await findOne(this.rows, { jobId });
    return row ? toScreenshot(row) : null;
  }

  async list(accountId: number, page: PageRequest, filter: ScreenshotFilter) {
    const where = { accountId, websiteId: filter.websiteId || undefined, status: filter.status || undefined, scenarioId: filter.scenarioId || undefined };
    // Kept totals: the whole list, or one website's, or one scenario's (every row is `success`); other
    // combinations are counted through their index.
    const single = !filter.status || filter.status === 'success';
    const counter =
      single && !filter.websiteId && !filter.scenarioId
        ? counterName('screenshots')
        : single && !filter.scenarioId
          ? counterName('screenshots', { website: filter.websiteId! })
          : single && !filter.websiteId
            ? counterName('screenshots', { scenario: filter.scenarioId! })
            : null;
    const { rows, total, edges } = await findPage(this.rows, where, [['id', 'DESC']], page, counter ? { accountId, list: counter } : undefined);
    return { items: rows.map(toScreenshot), total, edges };
  }

  async listForExecution(executionId: string): Promise<ScreenshotProps[]> {
    return (await this.rows.find({ where: { executionId }, order: { id: 'ASC' } })).map(toScreenshot);
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }

  async deleteMany(ids: number[]): Promise<number> {
    if (ids.length === 0) return 0;
    return (await this.rows.delete({ id: In(ids) })).affected ?? 0;
  }

  async existingIds(ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.rows.find({ select: { id: true }, where: { id: In(ids) } });
    return new Set(rows.map((r) => r.id));
  }

  async takenBefore(cutoff: Date, limit: number): Promise<ScreenshotProps[]> {
    return (await this.rows.find({ where: { takenAt: LessThan(cutoff) }, order: { takenAt: 'ASC' }, take: limit })).map(toScreenshot);
  }

  async findById(id: number): Promise<ScreenshotProps | null> {
    const row = await findOne(this.rows, { id });
    return row ? toScreenshot(row) : null;
  }

  async previousComparable(shot: ScreenshotProps): Promise<ScreenshotProps | null> {
    if (!shot.compareKey) return null;
    const row = await this.rows.findOne({ where: { websiteId: shot.websiteId, compareKey: shot.compareKey, id: LessThan(shot.id) }, order: { id: 'DESC' } });
    return row ? toScreenshot(row) : null;
  }

  async pendingComparisons(now: Date, limit: number): Promise<number[]> {
    const rows = await this.rows
      .createQueryBuilder('s')
      .select('s.id', 'id')
      .where('s.change_status = :pending', { pending: 'pending' })
      .andWhere(new Brackets((q) => q.where('s.compare_claimed_until IS NULL').orWhere('s.compare_claimed_until < :now', { now })))
      .orderBy('s.id', 'ASC')
      .limit(limit)
      .getRawMany<{ id: number | string }>();
    return rows.map((r) => Number(r.id));
  }

  async claimComparison(id: number, now: Date, until: Date): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ compareClaimedUntil: until })
      .where('id = :id AND change_status = :pending', { id, pending: 'pending' })
      .andWhere(new Brackets((q) => q.where('compare_claimed_until IS NULL').orWhere('compare_claimed_until < :now', { now })))
      .execute();
    return result.affected === 1;
  }

  async recordComparison(id: number, outcome: ComparisonOutcome): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({
        changeStatus: 'done',
        previousId: outcome.previousId,
        changedRatio: outcome.changedRatio,
        changed: outcome.changed,
        comparedAt: outcome.comparedAt,
        textAdded: outcome.textDiff?.added ?? null,
        textRemoved: outcome.textDiff?.removed ?? null,
        compareClaimedUntil: null,
      })
      .where('id = :id AND change_status = :pending', { id, pending: 'pending' })
      .execute();
    return result.affected === 1;
  }

  async dropComparison(id: number): Promise<void> {
    await this.rows.update({ id, changeStatus: 'pending' }, { changeStatus: null, previousId: null, compareClaimedUntil: null });
  }

  async listChanges(accountId: number, websiteId: number, page: PageRequest) {
    const counter = { accountId, list: counterName('changes', { website: websiteId }) };
    const { rows, total, edges } = await findPage(this.rows, { accountId, websiteId, changed: true }, [['id', 'DESC']], page, counter);
    return { items: rows.map(toScreenshot), total, edges };
  }
}
