import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThanOrEqual, MoreThan, Repository } from 'typeorm';
import { Account } from '../domain/account';
import { SessionProps } from '../domain/session';
import { NewSession, SessionRepository } from '../application/ports';
import { AccountRow, DashboardSessionRow } from './orm-entities';
import { toAccount } from './typeorm-account.repository';

@Injectable()
export class TypeOrmSessionRepository extends SessionRepository {
  constructor(
    @InjectRepository(DashboardSessionRow) private readonly rows: Repository<DashboardSessionRow>,
    @InjectRepository(AccountRow) private readonly accounts: Repository<AccountRow>,
  ) {
    super();
  }

  async create(session: NewSession): Promise<void> {
    await this.rows.insert({
      sessionHash: session.hash,
      accountId: session.accountId,
      csrfToken: session.csrfToken,
      createdAt: session.createdAt,
      expiresAt: session.expiresAt,
    });
  }

  async findActive(hash: string, now: Date): Promise<{ session: SessionProps; account: Account } | null> {
    const row = await this.rows.findOneBy({ sessionHash: hash, expiresAt: MoreThan(now) });
    if (!row) return null;
    const account = await this.accounts.findOneBy({ id: row.accountId });
    if (!account) return null;
    return { session: { accountId: row.accountId, csrfToken: row.csrfToken, createdAt: row.createdAt, expiresAt: row.expiresAt }, account: toAccount(account) };
  }

  async delete(hash: string): Promise<void> {
    await this.rows.delete({ sessionHash: hash });
  }

  async deleteForAccount(accountId: number): Promise<void> {
    await this.rows.delete({ accountId });
  }

  async deleteExpired(now: Date): Promise<void> {
    await this.rows.delete({ expiresAt: LessThanOrEqual(now) });
  }
}
