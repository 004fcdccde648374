import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, DataSource, LessThanOrEqual, Repository } from 'typeorm';
import { DateUtils } from 'typeorm/util/DateUtils';
import { FailureStreakRows, STREAK_RESET } from '../../../shared/persistence/failure-streak-rows';
import { NotFoundError } from '../../../shared/domain/domain-error';
import type { PageRequest } from '../../../shared/domain/page-request';
import { findPage } from '../../../shared/persistence/hot-query';
import { insertWithinLimit } from '../../../shared/persistence/insert-within-limit';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { DeliveryProps, DeliveryStatus, WebhookEvent, WebhookProps } from '../domain/webhook';
import { AttemptOutcome, FinishedJob, NewWebhook, WebhookChanges, WebhookRepository, FoundChange } from '../application/ports';
import { WebhookDeliveryRow, WebhookRow } from './webhook.rows';

/** A raw timestamp as the driver returns it: a Date (PostgreSQL) or TypeORM's UTC text (SQLite). */
function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(`${String(value).replace(' ', 'T')}Z`);
}

function toDelivery(row: WebhookDeliveryRow): DeliveryProps {
  const { lockedUntil: _held, ...props } = row;
  return { ...props, status: row.status as DeliveryStatus };
}

@Injectable()
export class TypeOrmWebhookRepository extends WebhookRepository {
  private readonly streak: FailureStreakRows<WebhookRow>;

  constructor(
    @InjectRepository(WebhookRow) private readonly rows: Repository<WebhookRow>,
    @InjectRepository(WebhookDeliveryRow) private readonly deliveries: Repository<WebhookDeliveryRow>,
    private readonly dataSource: DataSource,
    private readonly secrets: SecretBox,
  ) {
    super();
    this.streak = new FailureStreakRows(rows);
  }

  /** The secret is sealed at rest (it must be readable to sign, so it cannot be hashed). */
  private toWebhook(row: WebhookRow): WebhookProps {
    const { secretSealed, events, ...rest } = row;
    return { ...rest, events: events.split(',').filter(Boolean) as WebhookEvent[], secret: this.secrets.open(secretSealed) };
  }

  /** The count and the insert under one write lock (shared/persistence/insert-within-limit.ts says how). */
  async createWithinLimit(webhook: NewWebhook, limit: number): Promise<WebhookProps | null> {
    const row = await insertWithinLimit(this.rows, {
      limit,
      row: {
        accountId: webhook.accountId,
        url: webhook.url,
        events: webhook.events.join(','),
        description: webhook.description,
        enabled: true,
        secretSealed: this.secrets.seal(webhook.secret),
        failingSince: null,
        disabledReason: null,
        disabledAt: null,
        createdAt: webhook.createdAt,
        updatedAt: webhook.createdAt,
      },
    });
    return row ? this.toWebhook(row) : null;
  }

  async findOwned(accountId: number, id: number): Promise<WebhookProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? this.toWebhook(row) : null;
  }

  async findById(id: number): Promise<WebhookProps | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? this.toWebhook(row) : null;
  }

  async list(accountId: number, page: PageRequest) {
    const { rows, total, edges } = await findPage(this.rows, { accountId }, [['id', 'ASC']], page);
    return { items: rows.map((row) => this.toWebhook(row)), total, edges };
  }

  async update(id: number, changes: WebhookChanges, now: Date): Promise<WebhookProps> {
    const set: Partial<WebhookRow> = { updatedAt: now };
    if (changes.url !== undefined) set.url = changes.url;
    if (changes.events !== undefined) set.events = changes.events.join(',');
    if (changes.description !== undefined) set.description = changes.description;
    if (changes.enabled !== undefined) {
      set.enabled = changes.enabled;
      // Re-enabled by hand: a fresh start, not three more days' worth of the old failures.
      if (changes.enabled) Object.assign(set, STREAK_RESET);
    }
    await this.rows.update({ id }, set);
    const row = await this.rows.findOneBy({ id });
    if (!row) throw new NotFoundError('Webhook');
    return this.toWebhook(row);
  }

  async delete(id: number): Promise<void> {
    await this.deliveries.delete({ webhookId: id });
    await this.rows.delete({ id });
  }

  async subscribers(accountId: number, event: string, happenedAt: Date): Promise<WebhookProps[]> {
    const rows = await this.rows.findBy({ accountId, enabled: true, createdAt: LessThanOrEqual(happenedAt) });
    return rows.map((row) => this.toWebhook(row)).filter((w) => (w.events as string[]).includes(event));
  }

  async jobsToEmit(since: Date, limit: number, types: string[], alsoAccounts: number[] = []): Promise<FinishedJob[]> {
    if (types.length === 0) return [];
    // Accounts with an enabled webhook first (a small table): jobs of every other account are never read, so a
    // busy service without webhooks pays one tiny query per pass, not a scan of the day's jobs.
    const accounts: Array<{ account_id: number | string; since: unknown }> = await this.rows
      .createQueryBuilder('w')
      .select('w.account_id', 'account_id')
      .addSelect('MIN(w.created_at)', 'since')
      .where('w.enabled = :enabled', { enabled: true })
      .groupBy('w.account_id')
      .getRawMany();
    if (accounts.length === 0 && alsoAccounts.length === 0) return [];
    // Nothing that ended before the oldest of these webhooks existed is announced: no need to read it. (Channels
    // check their own creation time when they are handed the event.)
    if (alsoAccounts.length === 0) {
      const oldest = Math.min(...accounts.map((a) => toDate(a.since).getTime()));
      if (oldest > since.getTime()) since = new Date(oldest);
    }
    const raw: Array<Record<string, unknown>> = await this.dataSource
      .createQueryBuilder()
      .select([
        'j.id AS id',
        'j.type AS type',
        'j.status AS status',
        'j.account_id AS account_id',
        'j.website_id AS website_id',
        'j.finished_at AS finished_at',
      ])
      .from('jobs', 'j')
      .where('j.account_id IN (:...accounts)', { accounts: [...new Set([...accounts.map((a) => Number(a.account_id)), ...alsoAccounts])] })
      .andWhere('j.webhooks_emitted_at IS NULL')
      .andWhere('j.finished_at >= :since', { since })
      .andWhere("j.status IN ('succeeded', 'failed')")
      .andWhere('j.type IN (:...types)', { types })
      .andWhere(
        new Brackets((q) => {
          q.where('EXISTS (SELECT 1 FROM webhooks w WHERE w.account_id = j.account_id AND w.enabled = :enabled AND w.created_at <= j.finished_at)', {
            enabled: true,
          });
          if (alsoAccounts.length > 0) q.orWhere('j.account_id IN (:...also)', { also: alsoAccounts });
        }),
      )
      .orderBy('j.finished_at', 'ASC')
      .limit(limit)
      .getRawMany();
    return raw.map((r) => ({
      id: String(r.id),
      type: String(r.type),
      status: r.status as FinishedJob['status'],
      accountId: Number(r.account_id),
      websiteId: r.website_id === null || r.website_id === undefined ? null : Number(r.website_id),
      finishedAt: toDate(r.finished_at),
    }));
  }

  async changesToEmit(since: Date, limit: number, alsoAccounts: number[] = []): Promise<FoundChange[]> {
    // As jobsToEmit: only accounts with an enabled webhook are read at all.
    const accounts: Array<{ account_id: number | string }> = await this.rows
      .createQueryBuilder('w')
      .select('DISTINCT w.account_id', 'account_id')
      .where('w.enabled = :enabled', { enabled: true })
      .getRawMany();
    if (accounts.length === 0 && alsoAccounts.length === 0) return [];
    const raw: Array<Record<string, unknown>> = await this.dataSource
      .createQueryBuilder()
      .select(['s.id AS id', 's.account_id AS account_id', 's.website_id AS website_id', 's.compared_at AS compared_at'])
      .from('screenshots', 's')
      .where('s.account_id IN (:...accounts)', { accounts: [...new Set([...accounts.map((a) => Number(a.account_id)), ...alsoAccounts])] })
      .andWhere('s.changed = :changed', { changed: true })
      .andWhere('s.change_emitted_at IS NULL')
      .andWhere('s.compared_at >= :since', { since })
      .andWhere(
        new Brackets((q) => {
          q.where('EXISTS (SELECT 1 FROM webhooks w WHERE w.account_id = s.account_id AND w.enabled = :enabled AND w.created_at <= s.compared_at)', {
            enabled: true,
          });
          if (alsoAccounts.length > 0) q.orWhere('s.account_id IN (:...also)', { also: alsoAccounts });
        }),
      )
      .orderBy('s.compared_at', 'ASC')
      .limit(limit)
      .getRawMany();
    return raw.map((r) => ({
      screenshotId: Number(r.id),
      accountId: Number(r.account_id),
      websiteId: Number(r.website_id),
      comparedAt: toDate(r.compared_at),
    }));
  }

  async markChangeEmitted(screenshotId: number, now: Date): Promise<void> {
    // Raw, as markEmitted: the column belongs to webhooks alone.
    if (this.dataSource.options.type === 'postgres')
      await this.dataSource.query('UPDATE screenshots SET change_emitted_at = $1 WHERE id = $2', [now, screenshotId]);
    else await this.dataSource.query('UPDATE screenshots SET change_emitted_at = ? WHERE id = ?', [DateUtils.mixedDateToUtcDatetimeString(now), screenshotId]);
  }

  async markEmitted(jobId: string, now: Date): Promise<void> {
    // Raw: the jobs context's entity does not map this column, which belongs to webhooks alone.
    if (this.dataSource.options.type === 'postgres') await this.dataSource.query('UPDATE jobs SET webhooks_emitted_at = $1 WHERE id = $2', [now, jobId]);
    else await this.dataSource.query('UPDATE jobs SET webhooks_emitted_at = ? WHERE id = ?', [DateUtils.mixedDateToUtcDatetimeString(now), jobId]);
  }

  async insertDeliveries(deliveries: DeliveryProps[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.deliveries
      .createQueryBuilder()
      .insert()
      .values(deliveries.map((d) => ({ ...d, lockedUntil: null })))
      .orIgnore() // ON CONFLICT DO NOTHING: another instance emitted the same event first
      .execute();
  }

  async claimDue(now: Date, lockUntil: Date, limit: number): Promise<DeliveryProps[]> {
    const due = await this.deliveries
      .createQueryBuilder('d')
      .where('d.status = :pending', { pending: 'pending' })
      .andWhere('d.next_attempt_at <= :now', { now })
      .andWhere(new Brackets((q) => q.where('d.locked_until IS NULL').orWhere('d.locked_until <= :now', { now })))
      .orderBy('d.next_attempt_at', 'ASC')
      .limit(limit)
      .getMany();
    const claimed: DeliveryProps[] = [];
    for (const row of due) {
      // Compare-and-set on attempts: of several instances that saw the same row, one moves it on.
      const result = await this.deliveries
        .createQueryBuilder()
        .update()
        .set({ attempts: row.attempts + 1, lockedUntil: lockUntil })
        .where('id = :id AND attempts = :attempts AND status = :pending', { id: row.id, attempts: row.attempts, pending: 'pending' })
        .andWhere(new Brackets((q) => q.where('locked_until IS NULL').orWhere('locked_until <= :now', { now })))
        .execute();
      if (result.affected === 1) claimed.push(toDelivery({ ...row, attempts: row.attempts + 1, lockedUntil: lockUntil }));
    }
    return claimed;
  }

  async recordAttempt(delivery: DeliveryProps, outcome: AttemptOutcome): Promise<boolean> {
    const status: DeliveryStatus = outcome.delivered ? 'succeeded' : outcome.retryAt ? 'pending' : 'failed';
    const result = await this.deliveries
      .createQueryBuilder()
      .update()
      .set({
        status,
        lockedUntil: null,
        nextAttemptAt: outcome.retryAt ?? outcome.at,
        lastStatusCode: outcome.statusCode,
        lastError: outcome.error?.slice(0, 500) ?? null,
        lastDurationMs: outcome.durationMs,
        lastAttemptAt: outcome.at,
      })
      .where('id = :id AND attempts = :attempts', { id: delivery.id, attempts: delivery.attempts })
      .execute();
    return result.affected === 1;
  }

  async postpone(delivery: DeliveryProps, until: Date): Promise<void> {
    await this.deliveries
      .createQueryBuilder()
      .update()
      .set({ attempts: delivery.attempts - 1, lockedUntil: null, nextAttemptAt: until })
      .where('id = :id AND attempts = :attempts', { id: delivery.id, attempts: delivery.attempts })
      .execute();
  }

  async listDeliveries(of: { webhookId: number } | { channelId: number }, page: PageRequest) {
    const { rows, total, edges } = await findPage(this.deliveries, of, [['createdAt', 'DESC']], page);
    return { items: rows.map(toDelivery), total, edges };
  }

  // The 3-day rule's writes, shared with notification channels.
  markHealthy(webhookId: number): Promise<void> {
    return this.streak.markHealthy(webhookId);
  }

  markFailing(webhookId: number, now: Date): Promise<Date | null> {
    return this.streak.markFailing(webhookId, now);
  }

  disable(webhookId: number, reason: string, now: Date): Promise<boolean> {
    return this.streak.disable(webhookId, reason, now);
  }
}
