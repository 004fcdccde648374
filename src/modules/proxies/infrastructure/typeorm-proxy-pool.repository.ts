import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { PageRequest } from '../../../shared/domain/page-request';
import { findPage } from '../../../shared/persistence/hot-query';
import { insertWithinLimit } from '../../../shared/persistence/insert-within-limit';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { ProxyPoolFields, ProxyPoolRepository } from '../application/ports';
import { ProxyPoolProps, Rotation } from '../domain/proxy-pool';
import { ProxyPoolRow } from './proxy-pool.row';

@Injectable()
export class TypeOrmProxyPoolRepository extends ProxyPoolRepository {
  constructor(
    @InjectRepository(ProxyPoolRow) private readonly rows: Repository<ProxyPoolRow>,
    private readonly secrets: SecretBox,
  ) {
    super();
  }

  private toPool(row: ProxyPoolRow): ProxyPoolProps {
    const { proxiesSealed, rotation, ...rest } = row;
    return { ...rest, rotation: rotation as Rotation, proxies: JSON.parse(this.secrets.open(proxiesSealed)) as string[] };
  }

  async createWithinLimit(accountId: number, fields: ProxyPoolFields, now: Date, limit: number): Promise<ProxyPoolProps | null> {
    const row = await insertWithinLimit(this.rows, {
      limit,
      row: {
        accountId,
        name: fields.name,
        rotation: fields.rotation,
        proxiesSealed: this.secrets.seal(JSON.stringify(fields.proxies)),
        createdAt: now,
        updatedAt: now,
      },
    });
    return row ? this.toPool(row) : null;
  }

  async findOwned(accountId: number, id: number): Promise<ProxyPoolProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? this.toPool(row) : null;
  }

  async findByName(accountId: number, name: string): Promise<ProxyPoolProps | null> {
    const row = await this.rows.findOneBy({ accountId, name });
    return row ? this.toPool(row) : null;
  }

  async list(accountId: number, page: PageRequest) {
    const { rows, total } = await findPage(this.rows, { accountId }, [['id', 'DESC']], page);
    return { items: rows.map((row) => this.toPool(row)), total };
  }

  async update(id: number, fields: ProxyPoolFields, now: Date): Promise<ProxyPoolProps> {
    await this.rows.update(
      { id },
      { name: fields.name, rotation: fields.rotation, proxiesSealed: this.secrets.seal(JSON.stringify(fields.proxies)), updatedAt: now },
    );
    return this.toPool(await this.rows.findOneByOrFail({ id }));
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }
}
