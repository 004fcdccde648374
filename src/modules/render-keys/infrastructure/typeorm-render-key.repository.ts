import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { PageRequest } from '../../../shared/domain/page-request';
import { findOne, findPage } from '../../../shared/persistence/hot-query';
import { insertWithinLimit } from '../../../shared/persistence/insert-within-limit';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { NewRenderKey, RenderKeyRepository } from '../application/ports';
import { RenderKeyProps } from '../domain/render-key';
import { RenderKeyRow } from './render-key.row';

@Injectable()
export class TypeOrmRenderKeyRepository extends RenderKeyRepository {
  constructor(
    @InjectRepository(RenderKeyRow) private readonly rows: Repository<RenderKeyRow>,
    private readonly secrets: SecretBox,
  ) {
    super();
  }

  /** The secret is sealed at rest (it must be read back to check a MAC, so it cannot be hashed like a token). */
  private toKey(row: RenderKeyRow): RenderKeyProps {
    const { secretSealed, ...rest } = row;
    return { ...rest, secret: this.secrets.open(secretSealed) };
  }

  /** The count and the insert under one write lock (shared/persistence/insert-within-limit.ts says how). */
  async createWithinLimit(k: NewRenderKey, limit: number): Promise<RenderKeyProps | null> {
    const row = await insertWithinLimit(this.rows, {
      limit,
      row: { accountId: k.accountId, name: k.name, accessKey: k.accessKey, secretSealed: this.secrets.seal(k.secret), createdAt: k.createdAt },
    });
    return row ? this.toKey(row) : null;
  }

  async findOwned(accountId: number, id: number): Promise<RenderKeyProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? this.toKey(row) : null;
  }

  async findByAccessKey(accessKey: string): Promise<RenderKeyProps | null> {
    // Every signed link asks: one prepared statement, not the query builder (docs/benchmark.md "Per-request cost").
    const row = await findOne(this.rows, { accessKey });
    return row ? this.toKey(row) : null;
  }

  async list(accountId: number, page: PageRequest) {
    const { rows, total, edges } = await findPage(this.rows, { accountId }, [['id', 'DESC']], page);
    return { items: rows.map((row) => this.toKey(row)), total, edges };
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }
}
