import { timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { SecretBox } from '../../../shared/secrets/secret-box';
import type { RenderProps } from '../domain/render';
import { InvalidSignatureError, LinkExpiredError } from '../../render-keys/domain/render-key';

/**
 * The link of a `response_type=json` answer: `/renders/{id}?expires=<unix s>&signature=<hmac>`, usable without a
 * token (an `<img src>`) until the render's keepUntil. The signature is an HMAC-SHA256 keyed with the server's
 * secrets key (SecretBox.digest, domain-separated by its prefix), so only this deployment makes valid ones and
 * changing the id or the expiry breaks it.
 */
@Injectable()
export class RenderLinks {
  constructor(
    private readonly secretBox: SecretBox,
    private readonly clock: Clock,
  ) {}

  /** The path and query of a render's link, valid until its keepUntil (whole seconds). */
  linkOf(render: RenderProps): { path: string; expiresAt: Date } {
    const expires = Math.floor(render.keepUntil.getTime() / 1000);
    return { path: `/renders/${render.id}?expires=${expires}&signature=${this.signature(render.id, expires)}`, expiresAt: new Date(expires * 1000) };
  }

  /** Throws 403 `invalid_signature` (tampered, missing) or `link_expired` (past its expiry). */
  verify(id: string, expires: string | undefined, signature: string | undefined): void {
    const seconds = expires !== undefined && /^\d{1,12}$/.test(expires) ? Number(expires) : null;
    if (seconds === null || !signature) throw new InvalidSignatureError();
    const expected = Buffer.from(this.signature(id, seconds));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new InvalidSignatureError();
    if (seconds * 1000 <= this.clock.now().getTime()) throw new LinkExpiredError(new Date(seconds * 1000));
  }

  private signature(id: string, expires: number): string {
    return this.secretBox.digest(`render-link:${id}:${expires}`);
  }
}
