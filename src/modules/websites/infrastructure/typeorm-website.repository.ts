import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { PageRequest } from '../../../shared/domain/page-request';
import { WebsiteChanges, WebsiteDraft, WebsiteProps, WebsiteStatus } from '../domain/website';
import { WebsiteRepository } from '../application/ports';
import { findPage } from '../../../shared/persistence/hot-query';
import { WebsiteRow } from './website.row';

function toWebsite(row: WebsiteRow): WebsiteProps {
  return {
    ...row,
    status: row.status as WebsiteStatus,
    fullPage: Boolean(row.fullPage),
    captureOptions: row.captureOptions ?? {},
  };
}

@Injectable()
export class TypeOrmWebsiteRepository extends WebsiteRepository {
  constructor(@InjectRepository(WebsiteRow) private readonly rows: Repository<WebsiteRow>) {
    super();
  }

  async create(draft: WebsiteDraft, now: Date): Promise<WebsiteProps> {
    return toWebsite(await this.rows.save(this.rows.create({ ...draft, lastScreenshotAt: null, createdAt: now, updatedAt: now })));
  }

  async findOwned(accountId: number, id: number): Promise<WebsiteProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? toWebsite(row) : null;
  }

  async findById(id: number): Promise<WebsiteProps | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? toWebsite(row) : null;
  }

  async list(accountId: number, page: PageRequest): Promise<{ items: WebsiteProps[]; total: number }> {
    const { rows, total } = await findPage(this.rows, { accountId }, [['id', 'DESC']], page);
    return { items: rows.map(toWebsite), total };
  }

  async update(id: number, changes: WebsiteChanges, now: Date): Promise<WebsiteProps> {
    await this.rows.update({ id }, { ...changes, updatedAt: now });
    // Deleted between the caller's ownership check and here: the answer a moment later would be 404 too.
    const row = await this.rows.findOneBy({ id });
    if (!row) throw new NotFoundError('Website');
    return toWebsite(row);
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }

  async markCaptured(id: number, at: Date): Promise<void> {
    // Only forward: of two captures finishing out of order, the older must not overwrite the newer.
    await this.rows
      .createQueryBuilder()
      .update()
      .set({ lastScreenshotAt: at })
      .where('id = :id', { id })
      .andWhere('(last_screenshot_at IS NULL OR last_screenshot_at < :at)', { at })
      .execute();
  }
}
