import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { findOne } from '../../../shared/persistence/hot-query';
import { And, In, LessThan, MoreThan, MoreThanOrEqual, Repository } from 'typeorm';
import { isUniqueViolation } from '../../../shared/persistence/constraint-violations';
import { parseCaptureReport, serializeCaptureReport } from '../../screenshots/domain/capture-report';
import type { RenderProps, RenderStatus } from '../domain/render';
import { NewRender, RenderRepository, StoredRender } from '../application/ports';
import { RenderRow } from './render.row';

function toRender(row: RenderRow): RenderProps {
  const { captureReport, status, ...plain } = row;
  return { ...plain, status: status as RenderStatus, capture: parseCaptureReport(captureReport) };
}

/** Every status but 'swept': a row claimed by the sweep keeps its keepUntil (so a failed sweep finds it again). */
const KEPT_STATUSES: RenderStatus[] = ['pending', 'ready', 'failed'];

@Injectable()
export class TypeOrmRenderRepository extends RenderRepository {
  constructor(@InjectRepository(RenderRow) private readonly rows: Repository<RenderRow>) {
    super();
  }

  async insertLive(render: NewRender): Promise<boolean> {
    try {
      await this.rows.insert({ ...render, liveKey: render.cacheKey, status: 'pending', finishedAt: null, expiresAt: null });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async findLive(accountId: number, cacheKey: string): Promise<RenderProps | null> {
    // Every render asks, hits above all: one prepared statement, not the query builder (docs/benchmark.md "Per-request cost").
    const row = await findOne(this.rows, { accountId, liveKey: cacheKey });
    return row ? toRender(row) : null;
  }

  async findById(id: string): Promise<RenderProps | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? toRender(row) : null;
  }

  async retire(id: string): Promise<void> {
    await this.rows.update({ id }, { liveKey: null });
  }

  async markReady(id: string, stored: StoredRender): Promise<boolean> {
    const { capture, keepUntil, ...rest } = stored;
    const facts = { ...rest, status: 'ready', captureReport: serializeCaptureReport(capture) };
    const notSwept = MoreThan(stored.finishedAt);
    if ((await this.rows.update({ id, status: 'pending', keepUntil: notSwept }, { ...facts, keepUntil })).affected) return true;
    // A ready row: one statement each, so a sweep that claims the row in between finds it unchanged (its status is
    // no longer 'ready' for the next one) — false then, and the object is removed by its writer and the sweep alike.
    if ((await this.rows.update({ id, status: 'ready', keepUntil: And(notSwept, LessThan(keepUntil)) }, { ...facts, keepUntil })).affected) return true;
    return Boolean((await this.rows.update({ id, status: 'ready', keepUntil: And(notSwept, MoreThanOrEqual(keepUntil)) }, facts)).affected);
  }

  async markFailed(id: string, finishedAt: Date, keepUntil: Date): Promise<void> {
    await this.rows.update({ id, status: 'pending' }, { status: 'failed', liveKey: null, finishedAt, keepUntil });
  }

  async keepAtLeast(id: string, until: Date): Promise<void> {
    await this.rows.update({ id, status: In(KEPT_STATUSES), keepUntil: LessThan(until) }, { keepUntil: until });
  }

  async claimForSweep(id: string, cutoff: Date): Promise<boolean> {
    const swept: RenderStatus = 'swept';
    const claimed = await this.rows.update(
      [
        { id, keepUntil: LessThan(cutoff) },
        { id, status: swept },
      ],
      { status: swept, liveKey: null },
    );
    return Boolean(claimed.affected);
  }

  async keptUntilBefore(now: Date, limit: number): Promise<RenderProps[]> {
    const rows = await this.rows.find({ where: { keepUntil: LessThan(now) }, order: { keepUntil: 'ASC' }, take: limit });
    return rows.map(toRender);
  }

  async delete(id: string): Promise<void> {
    await this.rows.delete({ id });
  }
}
