import type { PageRequest } from '../../../shared/domain/page-request';
import type { ProxyPoolProps, Rotation } from '../domain/proxy-pool';

export interface ProxyPoolFields {
  name: string;
  proxies: string[];
  rotation: Rotation;
}

export abstract class ProxyPoolRepository {
  /** Creates the pool unless the account already has `limit` pools (null then). */
  abstract createWithinLimit(accountId: number, fields: ProxyPoolFields, now: Date, limit: number): Promise<ProxyPoolProps | null>;
  abstract findOwned(accountId: number, id: number): Promise<ProxyPoolProps | null>;
  abstract findByName(accountId: number, name: string): Promise<ProxyPoolProps | null>;
  abstract list(accountId: number, page: PageRequest): Promise<{ items: ProxyPoolProps[]; total: number }>;
  abstract update(id: number, fields: ProxyPoolFields, now: Date): Promise<ProxyPoolProps>;
  abstract delete(id: number): Promise<void>;
}
