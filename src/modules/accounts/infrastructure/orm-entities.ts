import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { NewApiToken } from '../application/ports';

@Entity('accounts')
export class AccountRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'varchar' }) email!: string;
  @Column({ type: 'varchar' }) plan!: string;
  @Column({ name: 'subscription_status', type: 'varchar' }) subscriptionStatus!: string;
  @Column({ name: 'expires_at', type: Date, nullable: true }) expiresAt!: Date | null;
  @Column({ name: 'rate_limit_per_minute', type: 'integer', nullable: true }) rateLimitPerMinute!: number | null;
  @Column({ name: 'rate_limit_per_hour', type: 'integer', nullable: true }) rateLimitPerHour!: number | null;
  /** Dashboard sign-in (scrypt, see ScryptPasswordHasher); null until the operator sets one. Never mapped into Account. */
  @Column({ name: 'password_hash', type: 'varchar', nullable: true }) passwordHash!: string | null;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'updated_at', type: Date }) updatedAt!: Date;
}

@Entity('api_tokens')
export class ApiTokenRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ name: 'display_prefix', type: 'varchar' }) displayPrefix!: string;
  @Column({ name: 'token_hash', type: 'varchar' }) tokenHash!: string;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'last_used_at', type: Date, nullable: true }) lastUsedAt!: Date | null;
  @Column({ name: 'revoked_at', type: Date, nullable: true }) revokedAt!: Date | null;
}

/** The row of a token just issued (never used, not revoked): only its hash and display prefix are kept. */
export function newTokenRow(accountId: number, token: NewApiToken, now: Date): Partial<ApiTokenRow> {
  return { accountId, name: token.name, displayPrefix: token.displayPrefix, tokenHash: token.hash, createdAt: now, lastUsedAt: null, revokedAt: null };
}

@Entity('dashboard_sessions')
export class DashboardSessionRow {
  /** SHA-256 hex of the cookie's secret. */
  @PrimaryColumn({ name: 'session_hash', type: 'varchar' }) sessionHash!: string;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ name: 'csrf_token', type: 'varchar' }) csrfToken!: string;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'expires_at', type: Date }) expiresAt!: Date;
}

@Entity('sign_in_throttle')
export class SignInThrottleRow {
  @PrimaryColumn({ name: 'throttle_key', type: 'varchar' }) throttleKey!: string;
  @Column({ type: 'integer' }) failures!: number;
  @Column({ name: 'locked_until', type: Date, nullable: true }) lockedUntil!: Date | null;
  @Column({ name: 'updated_at', type: Date }) updatedAt!: Date;
}
