import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import type { PageRequest } from '../../../shared/domain/page-request';
import { newAccessKey, newRenderSecret, parseSignedLink, RENDER_KEY_LIMITS, RenderKeyProps, verifySignedLink } from '../domain/render-key';
import { RenderKeyRepository } from './ports';

/** Who a signed link speaks for. */
export interface LinkPrincipal {
  accountId: number;
  keyId: number;
}

/** Render keys (the API's /render-keys routes and the dashboard page) and the check of the links they sign. */
@Injectable()
export class RenderKeysService {
  constructor(
    private readonly keys: RenderKeyRepository,
    private readonly clock: Clock,
  ) {}

  /** The new key with its secret: the only time the secret leaves the service. */
  async create(accountId: number, name: string | null = null): Promise<RenderKeyProps> {
    const trimmed = name?.trim() || null;
    const key = await this.keys.createWithinLimit(
      { accountId, name: trimmed, accessKey: newAccessKey(), secret: newRenderSecret(), createdAt: this.clock.now() },
      RENDER_KEY_LIMITS.perAccount,
    );
    if (!key) throw ValidationFailedError.of('name', `an account can have at most ${RENDER_KEY_LIMITS.perAccount} render keys`);
    return key;
  }

  list(accountId: number, page: PageRequest) {
    return this.keys.list(accountId, page);
  }

  async get(accountId: number, id: number): Promise<RenderKeyProps> {
    const key = await this.keys.findOwned(accountId, id);
    if (!key) throw new NotFoundError('Render key');
    return key;
  }

  /** Links signed with it stop working at once (`invalid_signature`), on every instance: nothing caches a key. */
  async delete(accountId: number, id: number): Promise<void> {
    await this.get(accountId, id);
    await this.keys.delete(id);
  }

  /**
   * A signed `/render` link's raw query string (as sent: not decoded, not re-serialised) → the account and key it
   * speaks for; else InvalidSignatureError or LinkExpiredError (403 `invalid_signature` / `link_expired`).
   */
  async authenticateLink(rawQuery: string, now: Date = this.clock.now()): Promise<LinkPrincipal> {
    const link = parseSignedLink(rawQuery);
    const key = await this.keys.findByAccessKey(link.accessKey);
    verifySignedLink(link, key?.secret ?? null, now);
    // verifySignedLink refuses a null secret, so a key was found here.
    return { accountId: key!.accountId, keyId: key!.id };
  }
}
