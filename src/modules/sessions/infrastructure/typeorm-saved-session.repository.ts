import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThan, Repository } from 'typeorm';
import type { PageRequest } from '../../../shared/domain/page-request';
import type { SessionState } from '../../../shared/domain/session-state';
import { findPage } from '../../../shared/persistence/hot-query';
import { insertWithinLimit } from '../../../shared/persistence/insert-within-limit';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { LoginOutcome, NewSavedSession, SavedSessionRepository } from '../application/ports';
import type { SavedSessionProps, SessionSource, SessionStatus } from '../domain/saved-session';
import { SavedSessionRow } from './saved-session.row';

@Injectable()
export class TypeOrmSavedSessionRepository extends SavedSessionRepository {
  constructor(
    @InjectRepository(SavedSessionRow) private readonly rows: Repository<SavedSessionRow>,
    private readonly secrets: SecretBox,
  ) {
    super();
  }

  private toSession(row: SavedSessionRow): SavedSessionProps {
    const { stateSealed, refreshClaimedUntil: _claim, source, status, ...rest } = row;
    return {
      ...rest,
      source: source as SessionSource,
      status: status as SessionStatus,
      state: stateSealed === null ? null : (JSON.parse(this.secrets.open(stateSealed)) as SessionState),
    };
  }

  async createWithinLimit(accountId: number, fields: NewSavedSession, now: Date, limit: number): Promise<SavedSessionProps | null> {
    const row = await insertWithinLimit(this.rows, {
      limit,
      row: {
        accountId,
        name: fields.name,
        loggedInSelector: fields.loggedInSelector,
        source: fields.source,
        scenarioId: fields.scenarioId,
        status: fields.status,
        stateSealed: fields.state === null ? null : this.secrets.seal(JSON.stringify(fields.state)),
        version: fields.state === null ? 0 : 1,
        refreshedAt: fields.state === null ? null : now,
        expiresAt: fields.expiresAt,
        error: null,
        refreshCount: 0,
        refreshClaimedUntil: null,
        createdAt: now,
        updatedAt: now,
      },
    });
    return row ? this.toSession(row) : null;
  }

  async findOwned(accountId: number, id: number): Promise<SavedSessionProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? this.toSession(row) : null;
  }

  async findById(id: number): Promise<SavedSessionProps | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? this.toSession(row) : null;
  }

  async findByName(accountId: number, name: string): Promise<SavedSessionProps | null> {
    const row = await this.rows.findOneBy({ accountId, name });
    return row ? this.toSession(row) : null;
  }

  async list(accountId: number, page: PageRequest) {
    const { rows, total } = await findPage(this.rows, { accountId }, [['id', 'DESC']], page);
    return { items: rows.map((row) => this.toSession(row)), total };
  }

  async listAll(accountId: number): Promise<SavedSessionProps[]> {
    return (await this.rows.find({ where: { accountId }, order: { name: 'ASC' } })).map((row) => this.toSession(row));
  }

  async markPending(id: number, now: Date): Promise<void> {
    await this.rows.update({ id }, { status: 'pending', error: null, updatedAt: now });
  }

  async recordLogin(id: number, outcome: LoginOutcome, now: Date, refreshed: boolean): Promise<void> {
    if ('error' in outcome) {
      await this.rows.update({ id }, { status: 'failed', error: outcome.error, refreshClaimedUntil: null, updatedAt: now });
      return;
    }
    await this.rows
      .createQueryBuilder()
      .update()
      .set({
        status: 'ready',
        error: null,
        stateSealed: this.secrets.seal(JSON.stringify(outcome.state)),
        version: () => 'version + 1',
        refreshCount: refreshed ? () => 'refresh_count + 1' : undefined,
        refreshedAt: now,
        expiresAt: outcome.expiresAt,
        refreshClaimedUntil: null,
        updatedAt: now,
      })
      .where('id = :id', { id })
      .execute();
  }

  async claimRefresh(id: number, version: number, now: Date, until: Date): Promise<boolean> {
    const free = await this.rows.update({ id, version, refreshClaimedUntil: IsNull() }, { refreshClaimedUntil: until });
    if ((free.affected ?? 0) > 0) return true;
    const lapsed = await this.rows.update({ id, version, refreshClaimedUntil: LessThan(now) }, { refreshClaimedUntil: until });
    return (lapsed.affected ?? 0) > 0;
  }

  async releaseClaim(id: number): Promise<void> {
    await this.rows.update({ id }, { refreshClaimedUntil: null });
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }
}
