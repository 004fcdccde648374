import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { ConflictError, NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import type { PageRequest } from '../../../shared/domain/page-request';
import { isMaskOf } from '../../../shared/domain/proxy-url';
import { PROXY_POOL_LIMITS, type ProxyPoolProps } from '../domain/proxy-pool';
import { ProxyPoolFields, ProxyPoolRepository } from './ports';

/** The /proxy-pools routes: an account's pools, their proxies sealed at rest and shown masked. */
@Injectable()
export class ProxyPoolsService {
  constructor(
    private readonly pools: ProxyPoolRepository,
    private readonly clock: Clock,
  ) {}

  async create(accountId: number, fields: ProxyPoolFields): Promise<ProxyPoolProps> {
    await this.assertNameFree(accountId, fields.name, null);
    const pool = await this.pools.createWithinLimit(accountId, fields, this.clock.now(), PROXY_POOL_LIMITS.perAccount);
    if (!pool) throw ValidationFailedError.of('name', `an account can have at most ${PROXY_POOL_LIMITS.perAccount} proxy pools`);
    return pool;
  }

  list(accountId: number, page: PageRequest) {
    return this.pools.list(accountId, page);
  }

  async get(accountId: number, id: number): Promise<ProxyPoolProps> {
    const pool = await this.pools.findOwned(accountId, id);
    if (!pool) throw new NotFoundError('Proxy pool');
    return pool;
  }

  /** Changes the fields given (the others kept); a proxy sent back masked (as GET shows it) keeps the stored URL it masks. */
  async update(accountId: number, id: number, fields: Partial<ProxyPoolFields>): Promise<ProxyPoolProps> {
    const pool = await this.get(accountId, id);
    const name = fields.name ?? pool.name;
    await this.assertNameFree(accountId, name, id);
    const proxies = (fields.proxies ?? pool.proxies).map((proxy) => pool.proxies.find((stored) => isMaskOf(proxy, stored)) ?? proxy);
    return this.pools.update(id, { name, proxies, rotation: fields.rotation ?? pool.rotation }, this.clock.now());
  }

  async delete(accountId: number, id: number): Promise<void> {
    await this.get(accountId, id);
    await this.pools.delete(id);
  }

  /** The pool a capture names by `proxy_pool`, or null. */
  findByName(accountId: number, name: string): Promise<ProxyPoolProps | null> {
    return this.pools.findByName(accountId, name);
  }

  private async assertNameFree(accountId: number, name: string, self: number | null): Promise<void> {
    const other = await this.pools.findByName(accountId, name);
    if (other && other.id !== self) throw new ConflictError(`A proxy pool named '${name}' already exists`);
  }
}
