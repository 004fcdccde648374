import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { Page, PageRequest } from '../../../shared/domain/page-request';
import type { CaptureOptions } from '../../../shared/domain/capture-option-table';
import { WebsiteChanges, WebsiteDraft, WebsiteProps, WebsiteStatus } from '../domain/website';
import { CaptureSecrets, hasSecrets } from '../../../shared/domain/capture-secrets';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { WebsiteRepository } from '../application/ports';
import { counterName, findOne, findPage } from '../../../shared/persistence/hot-query';
import { WebsiteRow } from './website.row';

/** capture_options as stored: the secrets sealed into one string, never in plain text (API.md, Capture options). */
type StoredCaptureOptions = Omit<CaptureOptions, 'secrets'> & { sealedSecrets?: string };

@Injectable()
export class TypeOrmWebsiteRepository extends WebsiteRepository {
  constructor(
    @InjectRepository(WebsiteRow) private readonly rows: Repository<WebsiteRow>,
    private readonly secretBox: SecretBox,
  ) {
    super();
  }

  private readonly toWebsite = (row: WebsiteRow): WebsiteProps => {
    const { sealedSecrets, ...options } = (row.captureOptions ?? {}) as StoredCaptureOptions;
    return {
      ...row,
      status: row.status as WebsiteStatus,
      fullPage: Boolean(row.fullPage),
      changeThreshold: Number(row.changeThreshold),
      changeIgnoreSelectors: row.changeIgnoreSelectors ?? [],
      alertWhen: row.alertWhen ?? {},
      ignoreText: row.ignoreText ?? [],
      captureOptions: sealedSecrets ? { ...options, secrets: JSON.parse(this.secretBox.open(sealedSecrets)) as CaptureSecrets } : options,
    };
  };

  private stored(options: CaptureOptions | undefined): StoredCaptureOptions | undefined {
    if (!options) return options;
    const { secrets, ...rest } = options;
    return hasSecrets(secrets) ? { ...rest, sealedSecrets: this.secretBox.seal(JSON.stringify(secrets)) } : rest;
  }

  async create(draft: WebsiteDraft, now: Date): Promise<WebsiteProps> {
    const row = this.rows.create({
      ...draft,
      captureOptions: this.stored(draft.captureOptions) as CaptureOptions,
      lastScreenshotAt: null,
      createdAt: now,
      updatedAt: now,
    });
    return this.toWebsite(await this.rows.save(row));
  }

  async findOwned(accountId: number, id: number): Promise<WebsiteProps | null> {
    const row = await findOne(this.rows, { id, accountId });
    return row ? this.toWebsite(row) : null;
  }

  async findById(id: number): Promise<WebsiteProps | null> {
    const row = await findOne(this.rows, { id });
    return row ? this.toWebsite(row) : null;
  }

  async list(accountId: number, page: PageRequest): Promise<Page<WebsiteProps>> {
    const { rows, total, edges } = await findPage(this.rows, { accountId }, [['id', 'DESC']], page, { accountId, list: counterName('websites') });
    return { items: rows.map(this.toWebsite), total, edges };
  }

  async update(id: number, changes: WebsiteChanges, now: Date): Promise<WebsiteProps> {
    const { captureOptions, ...rest } = changes;
    await this.rows.update({ id }, { ...rest, ...(captureOptions !== undefined ? { captureOptions: this.stored(captureOptions) } : {}), updatedAt: now });
    // Deleted between the caller's ownership check and here: the answer a moment later would be 404 too.
    const row = await this.rows.findOneBy({ id });
    if (!row) throw new NotFoundError('Website');
    return this.toWebsite(row);
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

  async usingSession(accountId: number, sessionId: number): Promise<Array<{ id: number; name: string }>> {
    // capture_options is JSON text on both databases: the session's id as its key's whole value, before a , or }.
    const rows = await this.rows
      .createQueryBuilder('w')
      .select(['w.id', 'w.name'])
      .where('w.account_id = :accountId', { accountId })
      .andWhere('(w.capture_options LIKE :middle OR w.capture_options LIKE :last)', {
        middle: `%"sessionId":${sessionId},%`,
        last: `%"sessionId":${sessionId}}%`,
      })
      .orderBy('w.id', 'ASC')
      .getMany();
    return rows.map((row) => ({ id: row.id, name: row.name }));
  }
}
