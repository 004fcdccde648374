import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { DateUtils } from 'typeorm/util/DateUtils';
import type { PageRequest } from '../../../shared/domain/page-request';
import { findPage } from '../../../shared/persistence/hot-query';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { NewRenderKey, RenderKeyRepository } from '../application/ports';
import { RenderKeyProps } from '../domain/render-key';
import { RenderKeyRow } from './render-key.row';

interface SqliteHandle {
  prepare(sql: string): { run(...params: unknown[]): { lastInsertRowid: number | bigint }; get(...params: unknown[]): unknown };
  transaction<T>(fn: () => T): { immediate(): T };
}

@Injectable()
export class TypeOrmRenderKeyRepository extends RenderKeyRepository {
  constructor(
    @InjectRepository(RenderKeyRow) private readonly rows: Repository<RenderKeyRow>,
    private readonly secrets: SecretBox,
    private readonly dataSource: DataSource,
  ) {
    super();
  }

  /** The secret is sealed at rest (it must be read back to check a MAC, so it cannot be hashed like a token). */
  private toKey(row: RenderKeyRow): RenderKeyProps {
    const { secretSealed, ...rest } = row;
    return { ...rest, secret: this.secrets.open(secretSealed) };
  }

  /**
   * The count and the insert under one write lock, so concurrent creates of one account cannot both pass at
   * `limit - 1`. SQLite: better-sqlite3's synchronous transaction, BEGIN IMMEDIATE (the database's write lock, taken
   * before the count; TypeORM's async transaction would share its one connection with unrelated statements).
   * PostgreSQL: the account's row locked FOR UPDATE first, which serializes the account's creates on every instance.
   */
  async createWithinLimit(k: NewRenderKey, limit: number): Promise<RenderKeyProps | null> {
    const secretSealed = this.secrets.seal(k.secret);
    if (this.dataSource.options.type === 'postgres') {
      const row = await this.dataSource.transaction(async (manager) => {
        await manager.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [k.accountId]);
        if ((await manager.countBy(RenderKeyRow, { accountId: k.accountId })) >= limit) return null;
        return manager.save(
          manager.create(RenderKeyRow, { accountId: k.accountId, name: k.name, accessKey: k.accessKey, secretSealed, createdAt: k.createdAt }),
        );
      });
      return row ? this.toKey(row) : null;
    }
    const db = (this.dataSource.driver as unknown as { databaseConnection: SqliteHandle }).databaseConnection;
    const id = db
      .transaction(() => {
        const { n } = db.prepare('SELECT COUNT(*) AS n FROM render_keys WHERE account_id = ?').get(k.accountId) as { n: number };
        if (n >= limit) return null;
        const inserted = db
          .prepare('INSERT INTO render_keys (account_id, name, access_key, secret_sealed, created_at) VALUES (?, ?, ?, ?, ?)')
          .run(k.accountId, k.name, k.accessKey, secretSealed, DateUtils.mixedDateToUtcDatetimeString(k.createdAt));
        return Number(inserted.lastInsertRowid);
      })
      .immediate();
    return id === null ? null : this.toKey(await this.rows.findOneByOrFail({ id }));
  }

  async findOwned(accountId: number, id: number): Promise<RenderKeyProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? this.toKey(row) : null;
  }

  async findByAccessKey(accessKey: string): Promise<RenderKeyProps | null> {
    const row = await this.rows.findOneBy({ accessKey });
    return row ? this.toKey(row) : null;
  }

  async list(accountId: number, page: PageRequest) {
    const { rows, total } = await findPage(this.rows, { accountId }, [['id', 'DESC']], page);
    return { items: rows.map((row) => this.toKey(row)), total };
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }
}
