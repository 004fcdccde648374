import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { PageRequest } from '../../../shared/domain/page-request';
import { WebsiteRepository } from '../../websites/application/ports';
import { CreateScheduleInput, Schedule, ScheduleChanges } from '../domain/schedule';
import { ScheduleColumnChanges, ScheduleRepository } from './ports';

const sameInstant = (a: Date | null, b: Date | null): boolean => (a === null || b === null ? a === b : a.getTime() === b.getTime());

/** The columns `after` changes relative to `before`, plus updated_at: all an update writes. */
function changedColumns(before: Schedule, after: Schedule): ScheduleColumnChanges {
  const changes: ScheduleColumnChanges = { updatedAt: after.updatedAt };
  if (after.name !== before.name) changes.name = after.name;
  if (after.websiteId !== before.websiteId) changes.websiteId = after.websiteId;
  if (after.frequency !== before.frequency) changes.frequency = after.frequency;
  if (after.time !== before.time) changes.time = after.time;
  if (after.timezone !== before.timezone) changes.timezone = after.timezone;
  if (after.dayOfWeek !== before.dayOfWeek) changes.dayOfWeek = after.dayOfWeek;
  if (after.enabled !== before.enabled) changes.enabled = after.enabled;
  if (!sameInstant(after.nextRunAt, before.nextRunAt)) changes.nextRunAt = after.nextRunAt;
  return changes;
}

@Injectable()
export class SchedulesService {
  constructor(
    private readonly schedules: ScheduleRepository,
    private readonly websites: WebsiteRepository,
    private readonly clock: Clock,
  ) {}

  private async checkWebsite(accountId: number, websiteId: number): Promise<void> {
    if (!(await this.websites.findOwned(accountId, websiteId))) {
      throw ValidationFailedError.of('website_id', 'website_id must be the id of one of your websites');
    }
  }

  async create(input: CreateScheduleInput): Promise<Schedule> {
    const draft = Schedule.create(input, this.clock.now());
    await this.checkWebsite(input.accountId, input.websiteId);
    return this.schedules.create(draft);
  }

  async get(accountId: number, id: number): Promise<Schedule> {
    const schedule = await this.schedules.findOwned(accountId, id);
    if (!schedule) throw new NotFoundError('Schedule');
    return schedule;
  }

  list(accountId: number, page: PageRequest) {
    return this.schedules.list(accountId, page);
  }

  /**
   * Partial update (also the dashboard's enable / disable); `enabled` toggles as sent, next_run_at follows
   * Schedule.update's rule. Only the changed columns are written, and only while the schedule still exists: one
   * deleted meanwhile is 404, never written back.
   */
  async update(accountId: number, id: number, changes: ScheduleChanges): Promise<Schedule> {
    const schedule = await this.get(accountId, id);
    const updated = schedule.update(changes, this.clock.now());
    if (changes.websiteId !== undefined) await this.checkWebsite(accountId, changes.websiteId);
    const saved = await this.schedules.update(accountId, id, changedColumns(schedule, updated));
    if (!saved) throw new NotFoundError('Schedule');
    return saved;
  }

  async delete(accountId: number, id: number): Promise<void> {
    await this.get(accountId, id);
    await this.schedules.delete(id);
  }
}
