import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThanOrEqual, Repository } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { HotQuery, selectColumns } from '../../../shared/persistence/hot-query';
import { Account } from '../domain/account';
import { SessionProps } from '../domain/session';
import { NewSession, SessionRepository } from '../application/ports';
import { AccountRow, DashboardSessionRow } from './orm-entities';
import { toAccount } from './typeorm-account.repository';

/** The session lookup's row: the session (`s`) and its account (`a`). */
const SESSION_AND_ACCOUNT = [
  [DashboardSessionRow, 's'],
  [AccountRow, 'a'],
] as const;

@Injectable()
export class TypeOrmSessionRepository extends SessionRepository {
  /** The lookup's statement and the column its `now` is written for, made on first use. */
  private active?: { query: HotQuery<{ hash: string; now: unknown }>; expiresAt: ColumnMetadata };

  constructor(@InjectRepository(DashboardSessionRow) private readonly rows: Repository<DashboardSessionRow>) {
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

  /**
   * Run on every dashboard request (a gallery page asks for 24 thumbnails, each signed in by its cookie): one
   * prepared statement for the session and its account, not two queries the query builder makes anew each time.
   */
  async findActive(hash: string, now: Date): Promise<{ session: SessionProps; account: Account } | null> {
    this.active ??= {
      query: new HotQuery(
        this.rows,
        `SELECT ${selectColumns(this.rows, DashboardSessionRow, 's')}, ${selectColumns(this.rows, AccountRow, 'a')}
           FROM dashboard_sessions s INNER JOIN accounts a ON a.id = s.account_id
          WHERE s.session_hash = :hash AND s.expires_at > :now`,
      ),
      expiresAt: this.rows.metadata.findColumnWithPropertyName('expiresAt')!,
    };
    const { query, expiresAt } = this.active;
    const [found] = await query.entities({ hash, now: this.rows.manager.connection.driver.preparePersistentValue(now, expiresAt) }, SESSION_AND_ACCOUNT);
    if (!found) return null;
    const [row, account] = found as [DashboardSessionRow, AccountRow];
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
