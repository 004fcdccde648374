import type { Page, PageRequest } from '../../../shared/domain/page-request';
import type { RenderKeyProps } from '../domain/render-key';

export interface NewRenderKey {
  accountId: number;
  name: string | null;
  accessKey: string;
  secret: string;
  createdAt: Date;
}

export abstract class RenderKeyRepository {
  /** Creates the key unless the account already has `limit` keys (null then): atomic, whatever runs concurrently. */
  abstract createWithinLimit(key: NewRenderKey, limit: number): Promise<RenderKeyProps | null>;
  abstract findOwned(accountId: number, id: number): Promise<RenderKeyProps | null>;
  /** The key a link names; null when there is none (never was, or deleted). */
  abstract findByAccessKey(accessKey: string): Promise<RenderKeyProps | null>;
  abstract list(accountId: number, page: PageRequest): Promise<Page<RenderKeyProps>>;
  abstract delete(id: number): Promise<void>;
}
