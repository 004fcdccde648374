import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { findOne } from '../../../shared/persistence/hot-query';
import { DataSource, Repository } from 'typeorm';
import { Account } from '../domain/account';
import { PlanName, SubscriptionStatus } from '../domain/plan';
import { AccountChanges, AccountRepository, NewAccount, NewApiToken } from '../application/ports';
import { AccountRowsVersion } from './account-rows-version';
import { AccountRow, ApiTokenRow, newTokenRow } from './orm-entities';

export function toAccount(row: AccountRow): Account {
  return Account.restore({
    id: row.id,
    name: row.name,
    email: row.email,
    plan: row.plan as PlanName,
    subscriptionStatus: row.subscriptionStatus as SubscriptionStatus,
    expiresAt: row.expiresAt,
    limitOverrides: { perMinute: row.rateLimitPerMinute, perHour: row.rateLimitPerHour },
    createdAt: row.createdAt,
  });
}

@Injectable()
export class TypeOrmAccountRepository extends AccountRepository {
  constructor(
    @InjectRepository(AccountRow) private readonly rows: Repository<AccountRow>,
    private readonly dataSource: DataSource,
    private readonly version: AccountRowsVersion,
  ) {
    super();
  }

  /** Every signed /render link asks (its key's account): a prepared statement, not the query builder. */
  async findById(id: number): Promise<Account | null> {
    const row = await findOne(this.rows, { id });
    return row ? toAccount(row) : null;
  }

  async findByEmail(email: string): Promise<Account | null> {
    const row = await this.rows.findOneBy({ email });
    return row ? toAccount(row) : null;
  }

  async createWithToken(account: NewAccount, token: NewApiToken, now: Date): Promise<{ account: Account; tokenId: number }> {
    try {
      return await this.insertWithToken(account, token, now);
    } finally {
      this.version.changed();
    }
  }

  private insertWithToken(account: NewAccount, token: NewApiToken, now: Date): Promise<{ account: Account; tokenId: number }> {
    return this.dataSource.transaction(async (manager) => {
      const row = await manager.save(
        manager.create(AccountRow, {
          name: account.name,
          email: account.email,
          plan: account.plan,
          subscriptionStatus: account.subscriptionStatus,
          expiresAt: account.expiresAt,
          rateLimitPerMinute: null,
          rateLimitPerHour: null,
          passwordHash: account.passwordHash,
          createdAt: now,
          updatedAt: now,
        }),
      );
      const tokenRow = await manager.save(manager.create(ApiTokenRow, newTokenRow(row.id, token, now)));
      return { account: toAccount(row), tokenId: tokenRow.id };
    });
  }

  async update(id: number, changes: AccountChanges, now: Date): Promise<Account> {
    const patch: Partial<AccountRow> = { updatedAt: now };
    if (changes.plan !== undefined) patch.plan = changes.plan;
    if (changes.subscriptionStatus !== undefined) patch.subscriptionStatus = changes.subscriptionStatus;
    if (changes.expiresAt !== undefined) patch.expiresAt = changes.expiresAt;
    if (changes.limitOverrides?.perMinute !== undefined) patch.rateLimitPerMinute = changes.limitOverrides.perMinute;
    if (changes.limitOverrides?.perHour !== undefined) patch.rateLimitPerHour = changes.limitOverrides.perHour;
    try {
      await this.rows.update({ id }, patch);
    } finally {
      this.version.changed();
    }
    return toAccount(await this.rows.findOneByOrFail({ id }));
  }
}
