import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { Account } from '../domain/account';
import { ApiToken } from '../domain/api-token';
import { ApiTokenRepository, NewApiToken } from '../application/ports';
import { HotQuery, hydrate, selectColumns } from '../../../shared/persistence/hot-query';
import { AccountRow, ApiTokenRow, newTokenRow } from './orm-entities';
import { toAccount } from './typeorm-account.repository';

function toToken(row: ApiTokenRow): ApiToken {
  return new ApiToken({
    id: row.id,
    accountId: row.accountId,
    name: row.name,
    displayPrefix: row.displayPrefix,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  });
}

@Injectable()
export class TypeOrmApiTokenRepository extends ApiTokenRepository {
  constructor(@InjectRepository(ApiTokenRow) private readonly rows: Repository<ApiTokenRow>) {
    super();
  }

  async create(accountId: number, token: NewApiToken, now: Date): Promise<ApiToken> {
    const row = await this.rows.save(this.rows.create(newTokenRow(accountId, token, now)));
    return toToken(row);
  }

  /** The one query on every authenticated request: token and account in a single round trip. */
  private activeByHash?: HotQuery<{ hash: string }>;

  /**
   * Never cached: a revoked token must fail on its very next use. A HotQuery, not the query builder: this
   * runs once per API request, and building the query cost more than running it.
   */
  async findActiveByHash(hash: string): Promise<{ token: ApiToken; account: Account } | null> {
    this.activeByHash ??= new HotQuery(
      this.rows,
      `SELECT ${selectColumns(this.rows, ApiTokenRow, 't')}, ${selectColumns(this.rows, AccountRow, 'a')}
         FROM api_tokens t INNER JOIN accounts a ON a.id = t.account_id
        WHERE t.token_hash = :hash AND t.revoked_at IS NULL`,
    );
    const [raw] = await this.activeByHash.rows({ hash });
    if (!raw) return null;
    return { token: toToken(hydrate(this.rows, ApiTokenRow, raw, 't')), account: toAccount(hydrate(this.rows, AccountRow, raw, 'a')) };
  }

  async findById(id: number): Promise<ApiToken | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? toToken(row) : null;
  }

  async listByAccount(accountId: number): Promise<ApiToken[]> {
    return (await this.rows.find({ where: { accountId }, order: { id: 'DESC' } })).map(toToken);
  }

  async revoke(id: number, now: Date): Promise<void> {
    await this.rows.update({ id, revokedAt: IsNull() }, { revokedAt: now });
  }

  async touch(id: number, now: Date, resolutionMs: number): Promise<void> {
    const staleBefore = new Date(now.getTime() - resolutionMs);
    await this.rows
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: now })
      .where('id = :id', { id })
      .andWhere('(last_used_at IS NULL OR last_used_at < :staleBefore)', { staleBefore })
      .execute();
  }
}
