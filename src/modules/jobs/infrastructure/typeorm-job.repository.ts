import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, FindOptionsWhere, In, Repository, WhereExpressionBuilder } from 'typeorm';
import { PageRequest } from '../../../shared/domain/page-request';
import { isFinished, JobProps, JobSource, JobStatus } from '../domain/job';
import { JobAttemptScope } from '../application/job-attempt-scope';
import { JobCursor, JobFilter, JobRepository, NewJob, RunningCutoffs, StaleCutoffs } from '../application/ports';
import { JobEvents } from '../application/job-events';
import { JobRow } from './job.row';
import { counterName, findOne, findPage, PageCounter } from '../../../shared/persistence/hot-query';
import { isUniqueViolation } from '../../../shared/persistence/constraint-violations';

function toJob(row: JobRow): JobProps {
  return {
    id: row.id,
    type: row.type,
    accountId: row.accountId,
    websiteId: row.websiteId,
    status: row.status as JobStatus,
    source: row.source as JobSource,
    options: row.options ?? {},
    idempotencyKey: row.idempotencyKey,
    attempts: row.attempts,
    error: row.error,
    resultId: row.resultId,
    scenarioId: row.scenarioId,
    scheduleId: row.scheduleId,
    result: row.result ?? null,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

/**
 * `(status = 'running' AND type = … AND started_at <= cutoff) OR …` for each job kind: running attempts whose
 * lease ran out. A running row without started_at cannot come from claim(); it counts as lapsed too.
 */
function orLapsedRunning(qb: WhereExpressionBuilder, cutoffs: RunningCutoffs, columns: { status: string; type: string; startedAt: string }): void {
  const { status, type, startedAt } = columns;
  Object.entries(cutoffs).forEach(([jobType, cutoff], i) => {
    qb.orWhere(`(${status} = 'running' AND ${type} = :lapsedType${i} AND (${startedAt} IS NULL OR ${startedAt} <= :lapsedBefore${i}))`, {
      [`lapsedType${i}`]: jobType,
      [`lapsedBefore${i}`]: cutoff,
    });
  });
}

/**
 * The kept total (list_counts) for a jobs list: all of the account's jobs, or those of one status, type or website,
 * or one scenario's runs (executions); other combinations are counted through their index.
 */
function jobsCounter(accountId: number, filter: JobFilter): PageCounter | undefined {
  const { type, status, websiteId, scenarioId } = filter;
  const given = [type, status, websiteId, scenarioId].filter(Boolean).length;
  if (given === 0) return { accountId, list: counterName('jobs') };
  if (type === 'scenario' && scenarioId && given === 2) return { accountId, list: counterName('executions', { scenario: scenarioId }) };
  if (given !== 1) return undefined;
  if (status) return { accountId, list: counterName('jobs', { status }) };
  if (type) return { accountId, list: counterName('jobs', { type }) };
  if (websiteId) return { accountId, list: counterName('jobs', { website: websiteId }) };
  return undefined;
}

const COLUMNS = { status: 'status', type: 'type', startedAt: 'started_at' };
const ALIASED = { status: 'job.status', type: 'job.type', startedAt: 'job.startedAt' };

@Injectable()
export class TypeOrmJobRepository extends JobRepository {
  constructor(
    @InjectRepository(JobRow) private readonly rows: Repository<JobRow>,
    private readonly events: JobEvents,
  ) {
    super();
  }

  async createOrGetIdempotent(job: NewJob): Promise<{ job: JobProps; created: boolean }> {
    if (job.idempotencyKey) {
      const existing = await this.rows.findOneBy({ accountId: job.accountId, idempotencyKey: job.idempotencyKey });
      if (existing) return { job: toJob(existing), created: false };
    }
    try {
      const row = this.rows.create({
        ...job,
        scenarioId: job.scenarioId ?? null,
        scheduleId: job.scheduleId ?? null,
        result: job.result ?? null,
        options: job.options as Record<string, unknown>,
        status: 'queued',
        attempts: 0,
        error: null,
        resultId: null,
        startedAt: null,
        finishedAt: null,
      });
      // insert, not save: save() would first read the row back by its (new) id to choose between INSERT and
      // UPDATE, inside a transaction of its own — three statements more on every job submitted.
      await this.rows.insert({ ...row, options: row.options as never, result: row.result as never });
      return { job: toJob(row), created: true };
    } catch (err) {
      // Two concurrent requests with one key: the loser answers with the winner's job.
      if (job.idempotencyKey && isUniqueViolation(err)) {
        const existing = await this.rows.findOneByOrFail({ accountId: job.accountId, idempotencyKey: job.idempotencyKey });
        return { job: toJob(existing), created: false };
      }
      throw err;
    }
  }

  async createMany(jobs: NewJob[]): Promise<void> {
    const rows = jobs.map((job) => ({
      ...job,
      idempotencyKey: null,
      scenarioId: job.scenarioId ?? null,
      scheduleId: job.scheduleId ?? null,
      result: null as never,
      options: job.options as never,
      status: 'queued' as const,
      attempts: 0,
      error: null,
      resultId: null,
      startedAt: null,
      finishedAt: null,
    }));
    await this.rows.manager.transaction(async (manager) => {
      // Multi-row inserts, a few hundred rows each: far within either database's limit of bound parameters.
      for (let i = 0; i < rows.length; i += 200) await manager.insert(JobRow, rows.slice(i, i + 200));
    });
  }

  async findById(id: string): Promise<JobProps | null> {
    const row = await findOne(this.rows, { id });
    return row ? toJob(row) : null;
  }

  async findOwned(accountId: number, id: string): Promise<JobProps | null> {
    const row = await findOne(this.rows, { id, accountId });
    return row ? toJob(row) : null;
  }

  async findMany(ids: string[]): Promise<JobProps[]> {
    const found: JobProps[] = [];
    // Chunks keep the IN list within every driver's limit of bound parameters.
    for (let i = 0; i < ids.length; i += 500) found.push(...(await this.rows.findBy({ id: In(ids.slice(i, i + 500)) })).map(toJob));
    return found;
  }

  async list(accountId: number, page: PageRequest, filter: JobFilter) {
    const where = {
      accountId,
      type: filter.type || undefined,
      status: filter.status || undefined,
      websiteId: filter.websiteId || undefined,
      scenarioId: filter.scenarioId || undefined,
    };
    const { rows, total, edges } = await findPage(
      this.rows,
      where,
      [
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
      page,
      jobsCounter(accountId, filter),
    );
    return { items: rows.map(toJob), total, edges };
  }

  async claim(id: string, now: Date, runningStartedBefore: RunningCutoffs): Promise<JobProps | null> {
    const current = await findOne(this.rows, { id });
    if (!current || isFinished(current.status as JobStatus)) return null;
    // Compare-and-set on attempts: of several workers claiming at once exactly one wins, and the attempts
    // number it sets is its own fencing token (no second read that another claim could overtake).
    const attempts = current.attempts + 1;
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ status: 'running', attempts, startedAt: now, error: null })
      .where('id = :id AND attempts = :seen', { id, seen: current.attempts })
      .andWhere(
        new Brackets((qb) => {
          qb.where(`status = 'queued'`);
          orLapsedRunning(qb, runningStartedBefore, COLUMNS);
        }),
      )
      .execute();
    if (!result.affected) return null;
    return toJob({ ...current, status: 'running', attempts, startedAt: now, error: null });
  }

  /**
   * Which row a write of job `id` may touch: inside the scope of one of its attempts, only the row that
   * attempt still holds; elsewhere, only a row in one of `statuses`.
   */
  private fenced(id: string, statuses: JobStatus[]): FindOptionsWhere<JobRow> {
    const attempt = JobAttemptScope.attemptOf(id);
    if (attempt !== null) return { id, status: 'running', attempts: attempt };
    return { id, status: statuses.length === 1 ? statuses[0] : In(statuses) };
  }

  async requeue(id: string): Promise<boolean> {
    const result = await this.rows.update(this.fenced(id, ['running']), { status: 'queued' });
    return Boolean(result.affected);
  }

  async fail(id: string, error: string, now: Date): Promise<boolean> {
    const result = await this.rows.update(this.fenced(id, ['queued', 'running']), { status: 'failed', error, finishedAt: now });
    if (result.affected) this.events.ended(id);
    return Boolean(result.affected);
  }

  async succeed(id: string, resultId: number | null, now: Date): Promise<boolean> {
    // Never from failed (or succeeded) back to succeeded: a late run cannot rewrite a finished job.
    const result = await this.rows.update(this.fenced(id, ['running']), { status: 'succeeded', resultId, error: null, finishedAt: now });
    if (result.affected) this.events.ended(id);
    return Boolean(result.affected);
  }

  async saveResult(id: string, result: unknown): Promise<boolean> {
    const updated = await this.rows.update(this.fenced(id, ['running']), { result: result as never });
    return Boolean(updated.affected);
  }

  async replaceOptions(id: string, options: JobProps['options']): Promise<void> {
    await this.rows.update({ id }, { options });
  }

  async delete(id: string): Promise<void> {
    await this.rows.delete({ id });
  }

  async cancelQueued(id: string, reason: string, now: Date): Promise<boolean> {
    const result = await this.rows.update({ id, status: 'queued' }, { status: 'failed', error: reason, finishedAt: now });
    if (result.affected) this.events.ended(id);
    return Boolean(result.affected);
  }

  async cancelQueuedForWebsite(websiteId: number, reason: string, now: Date): Promise<void> {
    await this.rows.update({ websiteId, status: 'queued' }, { status: 'failed', error: reason, finishedAt: now });
  }

  async findStale(cutoffs: StaleCutoffs, after: JobCursor | null, limit: number): Promise<JobProps[]> {
    const qb = this.rows.createQueryBuilder('job').where(
      new Brackets((stale) => {
        // Queued since before the cutoff: created then, and (a requeued retry) last started then too.
        stale.where(`(job.status = 'queued' AND job.createdAt < :queuedBefore AND (job.startedAt IS NULL OR job.startedAt < :queuedBefore))`, {
          queuedBefore: cutoffs.queuedBefore,
        });
        orLapsedRunning(stale, cutoffs.runningStartedBefore, ALIASED);
      }),
    );
    if (after) {
      qb.andWhere('(job.createdAt > :afterAt OR (job.createdAt = :afterAt AND job.id > :afterId))', { afterAt: after.createdAt, afterId: after.id });
    }
    const rows = await qb.orderBy('job.createdAt', 'ASC').addOrderBy('job.id', 'ASC').take(limit).getMany();
    return rows.map(toJob);
  }

  async requeueAllRunning(): Promise<number> {
    const result = await this.rows.update({ status: 'running' }, { status: 'queued' });
    return result.affected ?? 0;
  }

  async countUnfinished(): Promise<Record<'queued' | 'running', number>> {
    const rows = await this.rows
      .createQueryBuilder('job')
      .select('job.status', 'status')
      .addSelect('COUNT(*)', 'count')
      .where('job.status IN (:...statuses)', { statuses: ['queued', 'running'] })
      .groupBy('job.status')
      .getRawMany<{ status: string; count: string | number }>();
    const counts = { queued: 0, running: 0 };
    // PostgreSQL answers COUNT(*) as a bigint string, SQLite as a number.
    for (const row of rows) if (row.status === 'queued' || row.status === 'running') counts[row.status] = Number(row.count);
    return counts;
  }
}
