import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { FailureStreakRows, STREAK_RESET } from '../../../shared/persistence/failure-streak-rows';
import { NotFoundError } from '../../../shared/domain/domain-error';
import type { PageRequest } from '../../../shared/domain/page-request';
import { findPage } from '../../../shared/persistence/hot-query';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { ChannelChanges, ChannelRepository, NewChannel } from '../application/ports';
import { ChannelEvent, ChannelProps, ChannelType, LastDelivery } from '../domain/channel';
import { NotificationChannelRow } from './channel.row';
import { insertWithinLimit } from '../../../shared/persistence/insert-within-limit';

function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  return typeof value === 'string' ? new Date(`${value.replace(' ', 'T')}Z`) : null;
}

@Injectable()
export class TypeOrmChannelRepository extends ChannelRepository {
  private readonly streak: FailureStreakRows<NotificationChannelRow>;

  constructor(
    @InjectRepository(NotificationChannelRow) private readonly rows: Repository<NotificationChannelRow>,
    private readonly dataSource: DataSource,
    private readonly secrets: SecretBox,
  ) {
    super();
    this.streak = new FailureStreakRows(rows);
  }

  /** Every target is sealed at rest: Slack and Discord URLs are credentials (one column, one rule for all types). */
  private toChannel(row: NotificationChannelRow): ChannelProps {
    const { targetSealed, events, websiteIds, type, ...rest } = row;
    return {
      ...rest,
      type: type as ChannelType,
      target: this.secrets.open(targetSealed),
      events: events.split(',').filter(Boolean) as ChannelEvent[],
      websiteIds: websiteIds ? websiteIds.split(',').map(Number) : null,
    };
  }

  async createWithinLimit(c: NewChannel, limit: number): Promise<ChannelProps | null> {
    const row = await insertWithinLimit(this.rows, {
      limit,
      row: {
        accountId: c.accountId,
        name: c.name,
        type: c.type,
        targetSealed: this.secrets.seal(c.target),
        events: c.events.join(','),
        websiteIds: c.websiteIds?.join(',') ?? null,
        enabled: true,
        failingSince: null,
        disabledReason: null,
        disabledAt: null,
        createdAt: c.createdAt,
        updatedAt: c.createdAt,
      },
    });
    return row ? this.toChannel(row) : null;
  }

  async findOwned(accountId: number, id: number): Promise<ChannelProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? this.toChannel(row) : null;
  }

  async findById(id: number): Promise<ChannelProps | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? this.toChannel(row) : null;
  }

  async list(accountId: number, page: PageRequest) {
    const { rows, total, edges } = await findPage(this.rows, { accountId }, [['id', 'DESC']], page);
    return { items: rows.map((row) => this.toChannel(row)), total, edges };
  }

  async update(id: number, changes: ChannelChanges, now: Date): Promise<ChannelProps> {
    const set: Partial<NotificationChannelRow> = { updatedAt: now };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.type !== undefined) set.type = changes.type;
    if (changes.target !== undefined) set.targetSealed = this.secrets.seal(changes.target);
    if (changes.events !== undefined) set.events = changes.events.join(',');
    if (changes.websiteIds !== undefined) set.websiteIds = changes.websiteIds?.join(',') ?? null;
    if (changes.enabled !== undefined) {
      set.enabled = changes.enabled;
      // Re-enabled by hand: a fresh start, not three more days' worth of the old failures (as for webhooks).
      if (changes.enabled) Object.assign(set, STREAK_RESET);
    }
    await this.rows.update({ id }, set);
    const row = await this.rows.findOneBy({ id });
    if (!row) throw new NotFoundError('Notification channel');
    return this.toChannel(row);
  }

  async addWebsite(id: number, websiteId: number, max: number): Promise<boolean> {
    const postgres = this.dataSource.options.type === 'postgres';
    const [channel, website, limit] = postgres ? ['$1', '$2', '$3'] : ['?', '?', '?'];
    // Appended in place when absent and the list has room (entries = commas + 1); both dialects concatenate with ||.
    await this.dataSource.query(
      `UPDATE notification_channels SET website_ids = website_ids || ',' || ${website} WHERE id = ${channel} AND website_ids IS NOT NULL ` +
        `AND (',' || website_ids || ',') NOT LIKE ('%,' || ${website} || ',%') AND LENGTH(website_ids) - LENGTH(REPLACE(website_ids, ',', '')) + 1 < ${limit}`,
      postgres ? [id, String(websiteId), max] : [String(websiteId), id, String(websiteId), max],
    );
    const row = await this.rows.findOne({ select: { id: true, websiteIds: true }, where: { id } });
    if (!row) return false;
    return row.websiteIds === null || row.websiteIds.split(',').map(Number).includes(websiteId);
  }

  async removeWebsite(id: number, websiteId: number): Promise<void> {
    const row = await this.rows.findOne({ select: { id: true, websiteIds: true }, where: { id } });
    const ids = row?.websiteIds?.split(',').map(Number) ?? [];
    const kept = ids.filter((w) => w !== websiteId);
    if (kept.length === 0 || kept.length === ids.length) return;
    // Only while the list is still what was read: a concurrent change is left alone (a stale id harms nobody).
    await this.rows.update({ id, websiteIds: ids.join(',') }, { websiteIds: kept.join(',') });
  }

  async delete(id: number): Promise<void> {
    // Its deliveries (webhook_deliveries.channel_id) go with it: ON DELETE CASCADE, on both databases.
    await this.rows.delete({ id });
  }

  async enabledOf(accountId: number): Promise<ChannelProps[]> {
    return (await this.rows.findBy({ accountId, enabled: true })).map((row) => this.toChannel(row));
  }

  async accountsWithEnabled(): Promise<number[]> {
    const raw: Array<{ account_id: number | string }> = await this.rows
      .createQueryBuilder('c')
      .select('DISTINCT c.account_id', 'account_id')
      .where('c.enabled = :enabled', { enabled: true })
      .getRawMany();
    return raw.map((r) => Number(r.account_id));
  }

  // The 3-day rule's writes, shared with webhooks.
  markHealthy(id: number): Promise<void> {
    return this.streak.markHealthy(id);
  }

  markFailing(id: number, now: Date): Promise<Date | null> {
    return this.streak.markFailing(id, now);
  }

  disable(id: number, reason: string, now: Date): Promise<boolean> {
    return this.streak.disable(id, reason, now);
  }

  async lastDeliveries(channelIds: number[]): Promise<Map<number, LastDelivery>> {
    const found = new Map<number, LastDelivery>();
    if (channelIds.length === 0) return found;
    // Raw: the rows belong to the webhooks context's table (shared delivery machinery); read-only here.
    const raw: Array<Record<string, unknown>> = await this.dataSource
      .createQueryBuilder()
      .select([
        'd.channel_id AS channel_id',
        'd.event_type AS event_type',
        'd.status AS status',
        'd.last_error AS last_error',
        'd.last_attempt_at AS last_attempt_at',
      ])
      .from('webhook_deliveries', 'd')
      .where('d.channel_id IN (:...ids)', { ids: channelIds })
      .orderBy('d.created_at', 'DESC')
      .limit(500)
      .getRawMany();
    for (const r of raw) {
      const id = Number(r.channel_id);
      if (found.has(id)) continue;
      found.set(id, {
        eventType: String(r.event_type),
        status: r.status as LastDelivery['status'],
        error: (r.last_error as string | null) ?? null,
        at: toDate(r.last_attempt_at),
      });
    }
    return found;
  }
}
