import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { Account } from '../domain/account';
import { InvalidCredentialsError, SignInLockedError } from '../domain/errors';
import { PASSWORD_MAX_LENGTH } from '../domain/password';
import { hashSessionSecret, isWellFormedSessionSecret, issueSession, SESSION_LIFETIME_MS, SessionProps } from '../domain/session';
import { isLocked, secondsUntilUnlocked, SignInThrottleState, throttleKey } from '../domain/sign-in-throttle';
import { CredentialRepository, PasswordHasher, SessionRepository, SignInThrottleRepository } from './ports';

export interface SignedIn {
  /** The cookie value; shown to nobody, stored only as its SHA-256. */
  secret: string;
  session: SessionProps;
  account: Account;
}

/** Dashboard sign-in: password check, lock-out after repeated failures, sessions. */
@Injectable()
export class SignInService {
  /** A real hash to verify against when the email is unknown, so both cases take the same time. */
  private decoy: Promise<string> | null = null;

  constructor(
    private readonly credentials: CredentialRepository,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionRepository,
    private readonly throttle: SignInThrottleRepository,
    private readonly clock: Clock,
  ) {}

  async signIn(email: string, password: string): Promise<SignedIn> {
    const key = throttleKey(email);
    // The attempt is counted (and a lock it earns is set) before the slow password check, in one atomic
    // step: twenty parallel guesses right after a lock lifts get one check, not twenty.
    if (!(await this.throttle.beginAttempt(key, this.clock.now()))) throw this.lockedError(await this.throttle.find(key));

    const found = await this.credentials.findByEmail(email.trim().toLowerCase());
    const ok = await this.passwordMatches(password, found?.passwordHash ?? null);
    if (!found || !ok) {
      // The lock this attempt earned (if any) was set when it began.
      const state = await this.throttle.find(key);
      if (isLocked(state, this.clock.now())) throw this.lockedError(state);
      throw new InvalidCredentialsError();
    }
    await this.throttle.clear(key);
    const now = this.clock.now();

    const issued = issueSession();
    const session: SessionProps = {
      accountId: found.account.id,
      csrfToken: issued.csrfToken,
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
    };
    await this.sessions.deleteExpired(now);
    await this.sessions.create({ hash: issued.hash, ...session });
    return { secret: issued.secret, session, account: found.account };
  }

  private lockedError(state: SignInThrottleState | null): SignInLockedError {
    return new SignInLockedError(state ? secondsUntilUnlocked(state, this.clock.now()) : 1);
  }

  /** The session behind a cookie value and its account, or null (unknown, expired or signed out). */
  async authenticate(secret: string | undefined): Promise<{ session: SessionProps; account: Account } | null> {
    if (!secret || !isWellFormedSessionSecret(secret)) return null;
    return this.sessions.findActive(hashSessionSecret(secret), this.clock.now());
  }

  async signOut(secret: string | undefined): Promise<void> {
    if (secret && isWellFormedSessionSecret(secret)) await this.sessions.delete(hashSessionSecret(secret));
  }

  private async passwordMatches(password: string, stored: string | null): Promise<boolean> {
    if (password.length === 0 || password.length > PASSWORD_MAX_LENGTH * 4) return false;
    if (stored) return this.hasher.verify(password, stored);
    this.decoy ??= this.hasher.hash('decoy password for unknown accounts');
    await this.hasher.verify(password, await this.decoy);
    return false;
  }
}
