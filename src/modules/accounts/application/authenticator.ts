import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { Account } from '../domain/account';
import { hashToken, isWellFormedToken } from '../domain/api-token';
import { ApiTokenRepository } from './ports';

const BEARER = /^Bearer ([^\s]+)$/;
const LAST_USED_RESOLUTION_MS = 60_000;

/** Resolves `Authorization: Bearer <token>` to an account, or null for every 401 case of the spec. */
@Injectable()
export class Authenticator {
  constructor(
    private readonly tokens: ApiTokenRepository,
    private readonly clock: Clock,
  ) {}

  async authenticate(header: string | undefined): Promise<Account | null> {
    if (typeof header !== 'string') return null;
    const match = BEARER.exec(header.trim());
    if (!match || !isWellFormedToken(match[1])) return null;
    const found = await this.tokens.findActiveByHash(hashToken(match[1]));
    if (!found) return null;
    // Bookkeeping must never fail or slow the request it describes, and is written at most once a minute: the
    // row just read says when it was last written, so most requests issue no UPDATE at all.
    const now = this.clock.now();
    if (found.token.lastUseNeedsRecording(now, LAST_USED_RESOLUTION_MS)) {
      this.tokens.touch(found.token.id, now, LAST_USED_RESOLUTION_MS).catch(() => undefined);
    }
    return found.account;
  }
}
