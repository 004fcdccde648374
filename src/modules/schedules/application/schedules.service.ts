import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { PageRequest } from '../../../shared/http/pagination';
import { WebsiteRepository } from '../../websites/application/ports';
import { createSchedule, CreateScheduleInput, ScheduleChanges, ScheduleProps, updateSchedule } from '../domain/schedule';
import { ScheduleRepository } from './ports';

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

  async create(input: CreateScheduleInput): Promise<ScheduleProps> {
    const draft = createSchedule(input, this.clock.now());
    await this.checkWebsite(input.accountId, input.websiteId);
    return this.schedules.create(draft);
  }

  async get(accountId: number, id: number): Promise<ScheduleProps> {
    const schedule = await this.schedules.findOwned(accountId, id);
    if (!schedule) throw new NotFoundError('Schedule');
    return schedule;
  }

  list(accountId: number, page: PageRequest) {
    return this.schedules.list(accountId, page);
  }

  /** Partial update; `enabled` toggles as sent and next_run_at is recomputed from now. */
  async update(accountId: number, id: number, changes: ScheduleChanges): Promise<ScheduleProps> {
    const schedule = await this.get(accountId, id);
    const updated = updateSchedule(schedule, changes, this.clock.now());
    if (changes.websiteId !== undefined) await this.checkWebsite(accountId, changes.websiteId);
    return this.schedules.save(updated);
  }

  async delete(accountId: number, id: number): Promise<void> {
    await this.get(accountId, id);
    await this.schedules.delete(id);
  }
}
