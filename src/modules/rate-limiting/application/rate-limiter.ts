import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { decide, Limits, QuotaDecision, RateLimitExceededError, windowAt } from '../domain/quota';
import { CounterStore } from './counter-store';

/** Per-account request quota (spec, Limits) and the per-IP limit on failed authentication. */
@Injectable()
export class RateLimiter {
  constructor(
    private readonly store: CounterStore,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async consume(accountId: number, limits: Limits): Promise<QuotaDecision> {
    const now = this.clock.now();
    const minute = windowAt('minute', now);
    const hour = windowAt('hour', now);
    const counts = await this.store.countRequest(
      { key: `rl:acct:${accountId}:m:${minute.start.getTime()}`, ttlMs: minute.end.getTime() - now.getTime() },
      { key: `rl:acct:${accountId}:h:${hour.start.getTime()}`, ttlMs: hour.end.getTime() - now.getTime() },
      limits.perMinute,
    );
    return decide(limits, counts, now);
  }

  private failureKey(ip: string): { key: string; window: ReturnType<typeof windowAt>; ttlMs: number } {
    const now = this.clock.now();
    const window = windowAt('minute', now);
    return { key: `rl:authfail:${ip}:${window.start.getTime()}`, window, ttlMs: window.end.getTime() - now.getTime() };
  }

  /**
   * Counts a failed authentication from `ip`; past the per-minute limit the address gets 429 instead of
   * 401. Only failures are counted, so a customer behind a shared address is never locked out by others.
   */
  async recordAuthFailure(ip: string): Promise<void> {
    const now = this.clock.now();
    const window = windowAt('minute', now);
    const failures = await this.store.increment({ key: `rl:authfail:${ip}:${window.start.getTime()}`, ttlMs: window.end.getTime() - now.getTime() });
    const limit = this.config.authFailureLimitPerMinute;
    if (failures > limit) throw new RateLimitExceededError(window, limit, failures, 'failed authentication attempts');
  }

  now(): Date {
    return this.clock.now();
  }
}
