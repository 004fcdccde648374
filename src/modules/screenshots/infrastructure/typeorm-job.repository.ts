import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, LessThan, Repository } from 'typeorm';
import { PageRequest } from '../../../shared/http/pagination';
import { CaptureOptions, JobProps, JobSource, JobStatus, JobType } from '../domain/job';
import { JobFilter, JobRepository, NewJob } from '../application/ports';
import { JobRow } from './rows';
import { isUniqueViolation } from './unique-violation';

function toJob(row: JobRow): JobProps {
  return {
    id: row.id,
    type: row.type as JobType,
    accountId: row.accountId,
    websiteId: row.websiteId,
    status: row.status as JobStatus,
    source: row.source as JobSource,
    options: (row.options ?? {}) as CaptureOptions,
    idempotencyKey: row.idempotencyKey,
    attempts: row.attempts,
    error: row.error,
    screenshotId: row.screenshotId,
    scenarioId: row.scenarioId,
    scheduleId: row.scheduleId,
    result: row.result ?? null,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

@Injectable()
export class TypeOrmJobRepository extends JobRepository {
  constructor(@InjectRepository(JobRow) private readonly rows: Repository<JobRow>) {
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
        screenshotId: null,
        startedAt: null,
        finishedAt: null,
      });
      await this.rows.save(row);
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

  async findById(id: string): Promise<JobProps | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? toJob(row) : null;
  }

  async findOwned(accountId: number, id: string): Promise<JobProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? toJob(row) : null;
  }

  async list(accountId: number, page: PageRequest, filter: JobFilter) {
    const [rows, total] = await this.rows.findAndCount({
      where: {
        accountId,
        ...(filter.type ? { type: filter.type } : {}),
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.websiteId ? { websiteId: filter.websiteId } : {}),
        ...(filter.scenarioId ? { scenarioId: filter.scenarioId } : {}),
      },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (page.page - 1) * page.perPage,
      take: page.perPage,
    });
    return { items: rows.map(toJob), total };
  }

  async claim(id: string, now: Date): Promise<JobProps | null> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ status: 'running', attempts: () => 'attempts + 1', startedAt: now, error: null })
      .where('id = :id', { id })
      .andWhere('status IN (:...open)', { open: ['queued', 'running'] })
      .execute();
    if (!result.affected) return null;
    return this.findById(id);
  }

  async requeue(id: string): Promise<void> {
    await this.rows.update({ id, status: 'running' }, { status: 'queued' });
  }

  async fail(id: string, error: string, now: Date): Promise<void> {
    await this.rows.update({ id, status: In(['queued', 'running']) }, { status: 'failed', error, finishedAt: now });
  }

  async succeed(id: string, screenshotId: number | null, now: Date): Promise<void> {
    await this.rows.update({ id }, { status: 'succeeded', screenshotId, error: null, finishedAt: now });
  }

  async saveResult(id: string, result: unknown): Promise<void> {
    await this.rows.update({ id }, { result: result as never });
  }

  async delete(id: string): Promise<void> {
    await this.rows.delete({ id });
  }

  async cancelQueuedForWebsite(websiteId: number, reason: string, now: Date): Promise<void> {
    await this.rows.update({ websiteId, status: 'queued' }, { status: 'failed', error: reason, finishedAt: now });
  }

  async findUnfinished(createdBefore: Date, limit: number): Promise<JobProps[]> {
    const rows = await this.rows.find({
      where: { status: In(['queued', 'running']), createdAt: LessThan(createdBefore) },
      order: { createdAt: 'ASC' },
      take: limit,
    });
    return rows.map(toJob);
  }
}
