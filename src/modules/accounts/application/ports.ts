import { Account, LimitOverrides } from '../domain/account';
import { ApiToken } from '../domain/api-token';
import { PlanName, SubscriptionStatus } from '../domain/plan';

export interface NewAccount {
  name: string;
  email: string;
  plan: PlanName;
  subscriptionStatus: SubscriptionStatus;
  expiresAt: Date | null;
}

export interface AccountChanges {
  plan?: PlanName;
  subscriptionStatus?: SubscriptionStatus;
  expiresAt?: Date | null;
  limitOverrides?: Partial<LimitOverrides>;
}

export abstract class AccountRepository {
  abstract findById(id: number): Promise<Account | null>;
  abstract findByEmail(email: string): Promise<Account | null>;
  /** Creates the account and its first token in one transaction: never an account without its token. */
  abstract createWithToken(account: NewAccount, token: NewApiToken, now: Date): Promise<{ account: Account; tokenId: number }>;
  abstract update(id: number, changes: AccountChanges, now: Date): Promise<Account>;
}

export interface NewApiToken {
  name: string;
  displayPrefix: string;
  hash: string;
}

export abstract class ApiTokenRepository {
  abstract create(accountId: number, token: NewApiToken, now: Date): Promise<ApiToken>;
  /** The active (unrevoked) token with this hash and its account, read fresh on every call: no cache may outlive a revoke. */
  abstract findActiveByHash(hash: string): Promise<{ token: ApiToken; account: Account } | null>;
  abstract findById(id: number): Promise<ApiToken | null>;
  abstract listByAccount(accountId: number): Promise<ApiToken[]>;
  abstract revoke(id: number, now: Date): Promise<void>;
  /** Records use, at most once per `resolutionMs` per token, so auth does not write on every request. */
  abstract touch(id: number, now: Date, resolutionMs: number): Promise<void>;
}
