import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { UnauthorizedError } from '../../../shared/domain/domain-error';
import { AccountRepository } from '../../accounts/application/ports';
import type { Account } from '../../accounts/domain/account';
import { RenderKeysService } from '../../render-keys/application/render-keys.service';

/** Who a signed /render link speaks for: its render key's account (403 from render-keys when the link is bad). */
@Injectable()
export class SignedRenders {
  constructor(
    private readonly renderKeys: RenderKeysService,
    private readonly accounts: AccountRepository,
    private readonly clock: Clock,
  ) {}

  async accountOf(rawQuery: string): Promise<Account> {
    const { accountId } = await this.renderKeys.authenticateLink(rawQuery, this.clock.now());
    const account = await this.accounts.findById(accountId);
    if (!account) throw new UnauthorizedError();
    return account;
  }
}
