import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { Account } from '../domain/account';
import { ApiToken } from '../domain/api-token';
import { ApiTokenRepository, NewApiToken } from '../application/ports';
import { HotQuery, selectColumns } from '../../../shared/persistence/hot-query';
import { AccountRowsVersion } from './account-rows-version';
import { AccountRow, ApiTokenRow, newTokenRow } from './orm-entities';
import { toAccount } from './typeorm-account.repository';

/** Tokens kept at most (one entry per active token in use); past it the map starts again empty. */
const MAX_KEPT_TOKENS = 10_000;

/** The token lookup's row: the token (`t`) and its account (`a`). */
const TOKEN_AND_ACCOUNT = [
  [ApiTokenRow, 't'],
  [AccountRow, 'a'],
] as const;

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
  constructor(
    @InjectRepository(ApiTokenRow) private readonly rows: Repository<ApiTokenRow>,
    private readonly version: AccountRowsVersion,
  ) {
    super();
  }

  async create(accountId: number, token: NewApiToken, now: Date): Promise<ApiToken> {
    try {
      return toToken(await this.rows.save(this.rows.create(newTokenRow(accountId, token, now))));
    } finally {
      this.version.changed();
    }
  }

  /** The one query on every authenticated request: token and account in a single round trip. */
  private activeByHash?: HotQuery<{ hash: string }>;

  /** Found tokens by hash, each with the rows' version it was read at (AccountRowsVersion). */
  private readonly found = new Map<string, { version: string; result: { token: ApiToken; account: Account } }>();

  /**
   * A revoked token must fail on its very next use, so an answer is reused only while AccountRowsVersion says no
   * account or token row has been written since it was read — by this process or, on SQLite, by any other (the
   * CLI). On PostgreSQL every call reads the database. Unknown hashes are never kept (guessing fills nothing).
   * A HotQuery, not the query builder: this runs once per API request, and building the query cost more than
   * running it.
   */
  async findActiveByHash(hash: string): Promise<{ token: ApiToken; account: Account } | null> {
    const version = this.version.current();
    if (version !== null) {
      const kept = this.found.get(hash);
      if (kept?.version === version) return kept.result;
    }
    this.activeByHash ??= new HotQuery(
      this.rows,
      `SELECT ${selectColumns(this.rows, ApiTokenRow, 't')}, ${selectColumns(this.rows, AccountRow, 'a')}
         FROM api_tokens t INNER JOIN accounts a ON a.id = t.account_id
        WHERE t.token_hash = :hash AND t.revoked_at IS NULL`,
    );
    const [found] = await this.activeByHash.entities({ hash }, TOKEN_AND_ACCOUNT);
    if (!found) return null;
    const result = { token: toToken(found[0] as ApiTokenRow), account: toAccount(found[1] as AccountRow) };
    if (version !== null) {
      if (this.found.size >= MAX_KEPT_TOKENS) this.found.clear();
      this.found.set(hash, { version, result });
    }
    return result;
  }

  async findById(id: number): Promise<ApiToken | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? toToken(row) : null;
  }

  async listByAccount(accountId: number): Promise<ApiToken[]> {
    return (await this.rows.find({ where: { accountId }, order: { id: 'DESC' } })).map(toToken);
  }

  async revoke(id: number, now: Date): Promise<void> {
    try {
      await this.rows.update({ id, revokedAt: IsNull() }, { revokedAt: now });
    } finally {
      this.version.changed();
    }
  }

  async touch(id: number, now: Date, resolutionMs: number): Promise<void> {
    const staleBefore = new Date(now.getTime() - resolutionMs);
    try {
      await this.rows
        .createQueryBuilder()
        .update()
        .set({ lastUsedAt: now })
        .where('id = :id', { id })
        .andWhere('(last_used_at IS NULL OR last_used_at < :staleBefore)', { staleBefore })
        .execute();
    } finally {
      // The kept token still says when it was last used before this write: without this, every request would write.
      this.version.changed();
    }
  }
}
