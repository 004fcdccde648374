import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThanOrEqual, Repository } from 'typeorm';
import { PageRequest } from '../../../shared/http/pagination';
import { NewSchedule, ScheduleProps } from '../domain/schedule';
import { Frequency } from '../domain/schedule-rules';
import { ScheduleRepository } from '../application/ports';
import { ScheduleRow } from './schedule.row';

const toSchedule = (row: ScheduleRow): ScheduleProps => ({ ...row, frequency: row.frequency as Frequency, enabled: Boolean(row.enabled) });

@Injectable()
export class TypeOrmScheduleRepository extends ScheduleRepository {
  constructor(@InjectRepository(ScheduleRow) private readonly rows: Repository<ScheduleRow>) {
    super();
  }

  async create(schedule: NewSchedule): Promise<ScheduleProps> {
    return toSchedule(await this.rows.save(this.rows.create(schedule)));
  }

  async findOwned(accountId: number, id: number): Promise<ScheduleProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? toSchedule(row) : null;
  }

  async list(accountId: number, page: PageRequest) {
    const [rows, total] = await this.rows.findAndCount({ where: { accountId }, order: { id: 'DESC' }, skip: (page.page - 1) * page.perPage, take: page.perPage });
    return { items: rows.map(toSchedule), total };
  }

  async save(schedule: ScheduleProps): Promise<ScheduleProps> {
    return toSchedule(await this.rows.save(this.rows.create(schedule)));
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }

  async findDue(now: Date, limit: number): Promise<ScheduleProps[]> {
    const rows = await this.rows.find({ where: { enabled: true, nextRunAt: LessThanOrEqual(now) }, order: { nextRunAt: 'ASC' }, take: limit });
    return rows.map(toSchedule);
  }

  async claim(id: number, due: Date, next: Date, now: Date): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ nextRunAt: next, updatedAt: now })
      .where('id = :id AND next_run_at = :due AND enabled = :enabled', { id, due, enabled: true })
      .execute();
    return result.affected === 1;
  }

  async release(id: number, due: Date, next: Date): Promise<void> {
    await this.rows.createQueryBuilder().update().set({ nextRunAt: due }).where('id = :id AND next_run_at = :next', { id, next }).execute();
  }

  async recordRun(id: number, jobId: string, at: Date): Promise<void> {
    await this.rows.update({ id }, { lastJobId: jobId, lastRunAt: at });
  }
}
