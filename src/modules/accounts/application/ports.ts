import { Account, LimitOverrides } from '../domain/account';
import { ApiToken } from '../domain/api-token';
import { PlanName, SubscriptionStatus } from '../domain/plan';
import { SessionProps } from '../domain/session';
import { SignInThrottleState } from '../domain/sign-in-throttle';

export interface NewAccount {
  name: string;
  email: string;
  plan: PlanName;
  subscriptionStatus: SubscriptionStatus;
  expiresAt: Date | null;
  passwordHash: string | null;
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
  /** The active (unrevoked) token with this hash and its account; an answer may be reused only while no account or token row changed (no cache may outlive a revoke). */
  abstract findActiveByHash(hash: string): Promise<{ token: ApiToken; account: Account } | null>;
  abstract findById(id: number): Promise<ApiToken | null>;
  abstract listByAccount(accountId: number): Promise<ApiToken[]>;
  abstract revoke(id: number, now: Date): Promise<void>;
  /** Records use, at most once per `resolutionMs` per token, so auth does not write on every request. */
  abstract touch(id: number, now: Date, resolutionMs: number): Promise<void>;
}

/** Slow, salted password hashing (the KDF lives in infrastructure; the format is the adapter's business). */
export abstract class PasswordHasher {
  abstract hash(password: string): Promise<string>;
  abstract verify(password: string, stored: string): Promise<boolean>;
}

export interface AccountCredentials {
  account: Account;
  passwordHash: string | null;
}

export abstract class CredentialRepository {
  abstract findByEmail(email: string): Promise<AccountCredentials | null>;
  abstract setPasswordHash(accountId: number, hash: string, now: Date): Promise<void>;
}

export interface NewSession {
  hash: string;
  accountId: number;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

export abstract class SessionRepository {
  abstract create(session: NewSession): Promise<void>;
  /** The unexpired session with this hash and its account, read fresh each time (sign-out is immediate). */
  abstract findActive(hash: string, now: Date): Promise<{ session: SessionProps; account: Account } | null>;
  abstract delete(hash: string): Promise<void>;
  abstract deleteForAccount(accountId: number): Promise<void>;
  abstract deleteExpired(now: Date): Promise<void>;
}

export abstract class SignInThrottleRepository {
  abstract find(key: string): Promise<SignInThrottleState | null>;
  /**
   * Takes one attempt, atomically: unless `key` is locked at `now`, counts the attempt as a failure in
   * advance and, if that count earns a lock (sign-in-throttle.ts), sets the lock in the same statement — so
   * parallel guesses cannot all slip through before the first one's failure is recorded. False when locked.
   * A correct password then clears the key.
   */
  abstract beginAttempt(key: string, now: Date): Promise<boolean>;
  abstract clear(key: string): Promise<void>;
}
