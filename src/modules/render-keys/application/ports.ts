import type { Page, PageRequest } from '../../../shared/domain/page-request';
import type { RenderKeyProps, SystemKeyPurpose } from '../domain/render-key';

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

/** A key the service signs its own links with (one per account and purpose): never listed, never signs /render. */
export interface SystemKey {
  accountId: number;
  purpose: SystemKeyPurpose;
  accessKey: string;
  secret: string;
}

export abstract class SystemKeyRepository {
  abstract find(accountId: number, purpose: SystemKeyPurpose): Promise<SystemKey | null>;
  /** Inserts the key unless the account has one for this purpose already; either way returns the one kept. */
  abstract insertOrKeep(key: SystemKey, now: Date): Promise<SystemKey>;
  /** The key a link names, only for that purpose; null when there is none. */
  abstract findByAccessKey(accessKey: string, purpose: SystemKeyPurpose): Promise<SystemKey | null>;
}
