import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { ConflictError, NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { Account } from '../domain/account';
import { ApiToken, issueToken } from '../domain/api-token';
import { isPlanName, isSubscriptionStatus, PlanName, SubscriptionStatus } from '../domain/plan';
import { passwordProblem } from '../domain/password';
import { AccountChanges, AccountRepository, ApiTokenRepository, CredentialRepository, PasswordHasher, SessionRepository } from './ports';

export interface CreateAccountInput {
  email: string;
  name: string;
  plan: string;
  status?: string;
  expiresAt?: Date | null;
  /** Dashboard sign-in password; without one the account can use the API but not sign in. */
  password?: string;
}

export interface UpdateAccountInput {
  plan?: string;
  status?: string;
  expiresAt?: Date | null;
  limitPerMinute?: number | null;
  limitPerHour?: number | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function checkPlan(plan: string): PlanName {
  if (!isPlanName(plan)) throw ValidationFailedError.of('plan', 'plan must be one of free, starter, pro, business');
  return plan;
}

function checkStatus(status: string): SubscriptionStatus {
  if (!isSubscriptionStatus(status)) throw ValidationFailedError.of('status', 'status must be one of active, expired, inactive');
  return status;
}

function checkLimit(field: string, value: number | null | undefined): number | null | undefined {
  if (value === undefined || value === null) return value;
  if (!Number.isInteger(value) || value < 1 || value > 1_000_000) throw ValidationFailedError.of(field, `${field} must be an integer between 1 and 1000000`);
  return value;
}

/** Operator and dashboard use cases of the Accounts & Tokens context. */
@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly tokens: ApiTokenRepository,
    private readonly credentials: CredentialRepository,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionRepository,
    private readonly clock: Clock,
  ) {}

  async createAccount(input: CreateAccountInput): Promise<{ account: Account; token: string; tokenId: number }> {
    const email = input.email.trim().toLowerCase();
    if (!EMAIL.test(email) || email.length > 320) throw ValidationFailedError.of('email', 'email must be a valid email address');
    const name = input.name.trim();
    if (name.length < 1 || name.length > 255) throw ValidationFailedError.of('name', 'name must be 1..255 characters');
    const plan = checkPlan(input.plan);
    const status = checkStatus(input.status ?? 'active');
    const passwordHash = input.password === undefined ? null : await this.hashPassword(input.password);
    if (await this.accounts.findByEmail(email)) throw new ConflictError(`An account with email ${email} already exists`);
    const issued = issueToken();
    const { account, tokenId } = await this.accounts.createWithToken(
      { email, name, plan, subscriptionStatus: status, expiresAt: input.expiresAt ?? null, passwordHash },
      { name: 'default', displayPrefix: issued.displayPrefix, hash: issued.hash },
      this.clock.now(),
    );
    return { account, token: issued.secret, tokenId };
  }

  async updateAccount(email: string, input: UpdateAccountInput): Promise<Account> {
    const account = await this.requireByEmail(email);
    const changes: AccountChanges = {};
    if (input.plan !== undefined) changes.plan = checkPlan(input.plan);
    if (input.status !== undefined) changes.subscriptionStatus = checkStatus(input.status);
    if (input.expiresAt !== undefined) changes.expiresAt = input.expiresAt;
    const perMinute = checkLimit('limit_per_minute', input.limitPerMinute);
    const perHour = checkLimit('limit_per_hour', input.limitPerHour);
    if (perMinute !== undefined || perHour !== undefined) {
      changes.limitOverrides = {};
      if (perMinute !== undefined) changes.limitOverrides.perMinute = perMinute;
      if (perHour !== undefined) changes.limitOverrides.perHour = perHour;
    }
    return this.accounts.update(account.id, changes, this.clock.now());
  }

  /** Sets (or replaces) the dashboard password; every open dashboard session of the account ends. */
  async setPassword(email: string, password: string): Promise<Account> {
    const account = await this.requireByEmail(email);
    await this.credentials.setPasswordHash(account.id, await this.hashPassword(password), this.clock.now());
    await this.sessions.deleteForAccount(account.id);
    return account;
  }

  private async hashPassword(password: string): Promise<string> {
    const problem = passwordProblem(password);
    if (problem) throw ValidationFailedError.of('password', problem);
    return this.hasher.hash(password);
  }

  async createToken(email: string, name = 'default'): Promise<{ token: ApiToken; secret: string }> {
    const account = await this.requireByEmail(email);
    return this.issueTokenFor(account, name);
  }

  async issueTokenFor(account: Account, name: string): Promise<{ token: ApiToken; secret: string }> {
    const trimmed = name.trim();
    if (trimmed.length < 1 || trimmed.length > 255) throw ValidationFailedError.of('name', 'name must be 1..255 characters');
    const issued = issueToken();
    const token = await this.tokens.create(account.id, { name: trimmed, displayPrefix: issued.displayPrefix, hash: issued.hash }, this.clock.now());
    return { token, secret: issued.secret };
  }

  /** Revokes a token; with `accountId` only that account's token (dashboard), without it any (operator CLI). */
  async revokeToken(id: number, accountId?: number): Promise<ApiToken> {
    const token = await this.tokens.findById(id);
    if (!token || (accountId !== undefined && token.props.accountId !== accountId)) throw new NotFoundError('Token');
    if (!token.isRevoked) await this.tokens.revoke(id, this.clock.now());
    return (await this.tokens.findById(id)) as ApiToken;
  }

  async listTokens(email: string): Promise<ApiToken[]> {
    const account = await this.requireByEmail(email);
    return this.tokens.listByAccount(account.id);
  }

  listTokensOf(accountId: number): Promise<ApiToken[]> {
    return this.tokens.listByAccount(accountId);
  }

  async requireByEmail(email: string): Promise<Account> {
    const account = await this.accounts.findByEmail(email.trim().toLowerCase());
    if (!account) throw new NotFoundError('Account');
    return account;
  }
}
