import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, LessThanOrEqual, QueryDeepPartialEntity, Repository } from 'typeorm';
import { PageRequest } from '../../../shared/domain/page-request';
import { Schedule } from '../domain/schedule';
import { Frequency } from '../domain/schedule-rules';
import { ClaimOutcome, ScheduleColumnChanges, ScheduleRepository } from '../application/ports';
import { findPage } from '../../../shared/persistence/hot-query';
import { ScheduleRow } from './schedule.row';

const toSchedule = (row: ScheduleRow): Schedule => Schedule.restore({ ...row, frequency: row.frequency as Frequency, enabled: Boolean(row.enabled) });

@Injectable()
export class TypeOrmScheduleRepository extends ScheduleRepository {
  constructor(@InjectRepository(ScheduleRow) private readonly rows: Repository<ScheduleRow>) {
    super();
  }

  async create(schedule: Schedule): Promise<Schedule> {
    return toSchedule(await this.rows.save(this.rows.create({ ...schedule.props })));
  }

  async findOwned(accountId: number, id: number): Promise<Schedule | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? toSchedule(row) : null;
  }

  async list(accountId: number, page: PageRequest) {
    const { rows, total, edges } = await findPage(this.rows, { accountId }, [['id', 'DESC']], page);
    return { items: rows.map(toSchedule), total, edges };
  }

  async update(accountId: number, id: number, changes: ScheduleColumnChanges): Promise<Schedule | null> {
    // Not save(): it writes every column from the entity read earlier (undoing a concurrent tick's last_run_at /
    // next_run_at) and inserts the row again if it was deleted meanwhile.
    const result = await this.rows.update({ id, accountId }, changes);
    if (!result.affected) return null;
    return this.findOwned(accountId, id);
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }

  async usingSession(accountId: number, sessionId: number, websiteIds: readonly number[], limit: number) {
    const select = { id: true, name: true, sessionId: true } as const;
    // A schedule with a session of its own does not use its website's. Two lookups, each on its own index (ix_schedules_session, ix_schedules_website), never a scan of the account's schedules.
    const direct = await this.rows.find({ select, where: { accountId, sessionId }, order: { id: 'ASC' }, take: limit });
    const viaWebsite = websiteIds.length
      ? await this.rows.find({ select, where: { accountId, websiteId: In([...websiteIds]), sessionId: IsNull() }, order: { id: 'ASC' }, take: limit })
      : [];
    const byId = new Map<number, { id: number; name: string; direct: boolean }>();
    for (const row of direct) byId.set(row.id, { id: row.id, name: row.name, direct: true });
    for (const row of viaWebsite) if (!byId.has(row.id)) byId.set(row.id, { id: row.id, name: row.name, direct: false });
    return [...byId.values()].sort((a, b) => a.id - b.id).slice(0, limit);
  }

  async findDue(now: Date, limit: number): Promise<Schedule[]> {
    const rows = await this.rows.find({ where: { enabled: true, nextRunAt: LessThanOrEqual(now) }, order: { nextRunAt: 'ASC' }, take: limit });
    return rows.map(toSchedule);
  }

  async claim(id: number, due: Date, outcome: ClaimOutcome): Promise<boolean> {
    const set: QueryDeepPartialEntity<ScheduleRow> = { nextRunAt: outcome.next, updatedAt: outcome.now };
    if (outcome.next === null) set.enabled = false;
    // Recorded in the same UPDATE as the claim: whoever wins the occurrence records its job, nobody else does.
    if (outcome.jobId !== null) {
      set.lastJobId = outcome.jobId;
      set.lastRunAt = outcome.now;
    }
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set(set)
      .where('id = :id AND next_run_at = :due AND enabled = :enabled', { id, due, enabled: true })
      .execute();
    return result.affected === 1;
  }

  async recordRun(id: number, jobId: string, now: Date): Promise<boolean> {
    const result = await this.rows.update({ id }, { lastJobId: jobId, lastRunAt: now, updatedAt: now });
    return Boolean(result.affected);
  }
}
