import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { newAccessKey, newRenderSecret, parseSignedLink, signRenderQuery, SystemKeyPurpose, verifySignedLink } from '../domain/render-key';
import { SystemKey, SystemKeyRepository } from './ports';

/** What a system link speaks for, once its signature and expiry are checked. */
export interface SystemLinkPrincipal {
  accountId: number;
  /** The signed part of the query (before `&signature=`), decoded: the link's own parameters. */
  params: URLSearchParams;
}

/**
 * Links the service signs for itself (issue 46: the image, diff and compare links in notifications), with a
 * per-account system key and the render-key signer: the query names the key (`access_key`) and the expiry
 * (`expires`, unix seconds), and `signature` is the HMAC-SHA256 of the query as sent, exactly as a `/render` link.
 * A system key is made on first use, one per account and purpose, and is never one of the account's render keys:
 * it cannot sign a `/render` link, and a render key cannot sign a system link.
 */
@Injectable()
export class SystemLinks {
  constructor(
    private readonly keys: SystemKeyRepository,
    private readonly clock: Clock,
  ) {}

  private async keyOf(accountId: number, purpose: SystemKeyPurpose): Promise<SystemKey> {
    const found = await this.keys.find(accountId, purpose);
    if (found) return found;
    return this.keys.insertOrKeep({ accountId, purpose, accessKey: newAccessKey(), secret: newRenderSecret() }, this.clock.now());
  }

  /** `query` (already encoded) with the key, the expiry and the signature appended: what follows a link's `?`. */
  async sign(accountId: number, purpose: SystemKeyPurpose, query: string, expires: Date): Promise<string> {
    const key = await this.keyOf(accountId, purpose);
    const seconds = Math.floor(expires.getTime() / 1000);
    return signRenderQuery(`${query}&access_key=${key.accessKey}&expires=${seconds}`, key.secret);
  }

  /**
   * A link's raw query (as sent) → its account and parameters; else 403 `invalid_signature` (no signature, a
   * tampered query, an unknown key, a key of another purpose, no `expires`) or `link_expired`.
   */
  async authenticate(rawQuery: string, purpose: SystemKeyPurpose, now: Date = this.clock.now()): Promise<SystemLinkPrincipal> {
    const link = parseSignedLink(rawQuery);
    const key = await this.keys.findByAccessKey(link.accessKey, purpose);
    // A system link always expires: one without `expires` was not made here (verified as a wrong signature).
    verifySignedLink(link, key && link.expires ? key.secret : null, now);
    return { accountId: key!.accountId, params: new URLSearchParams(link.signed) };
  }
}
