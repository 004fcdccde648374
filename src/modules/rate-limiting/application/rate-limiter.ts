import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { decide, Limits, QuotaDecision, RateLimitExceededError, unixSeconds, windowAt } from '../domain/quota';
import type { RateLimitHeaderValues } from '../../../shared/domain/rate-limit-values';
import { CounterStore } from './counter-store';
import { Metrics } from '../../../shared/metrics/metrics';

/** Per-account request quota (spec, Limits) and the per-IP limit on failed authentication. */
@Injectable()
export class RateLimiter {
  constructor(
    private readonly store: CounterStore,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** The account's counter keys of the windows containing `now` (one definition for counting and reading). */
  private accountKeys(accountId: number, now: Date) {
    const minute = windowAt('minute', now);
    const hour = windowAt('hour', now);
    return {
      minute: { key: `rl:acct:${accountId}:m:${minute.start.getTime()}`, ttlMs: minute.end.getTime() - now.getTime(), window: minute },
      hour: { key: `rl:acct:${accountId}:h:${hour.start.getTime()}`, ttlMs: hour.end.getTime() - now.getTime(), window: hour },
    };
  }

  async consume(accountId: number, limits: Limits): Promise<QuotaDecision> {
    const now = this.clock.now();
    const keys = this.accountKeys(accountId, now);
    const counts = await this.store.countRequest(keys.minute, keys.hour, limits.perMinute);
    const decision = decide(limits, counts, now);
    // Counted here, where every 429 is decided, rather than where each caller turns it into an answer.
    if (decision.exceeded) this.metrics.rateLimitRejected('api');
    return decision;
  }

  /** This minute's and hour's API usage of an account, read without counting (the dashboard's overview). */
  async usage(accountId: number, limits: Limits): Promise<Record<'minute' | 'hour', { used: number; limit: number; resetsAt: Date }>> {
    const keys = this.accountKeys(accountId, this.clock.now());
    const [minute, hour] = await this.store.read([keys.minute.key, keys.hour.key]);
    return {
      minute: { used: minute, limit: limits.perMinute, resetsAt: keys.minute.window.end },
      hour: { used: hour, limit: limits.perHour, resetsAt: keys.hour.window.end },
    };
  }

  /**
   * The account's minute window as the X-RateLimit-* headers show it, without counting a request: for
   * answers that are not counted (403 for a plan without API access), which still say where the account stands.
   */
  async peek(accountId: number, limits: Limits): Promise<RateLimitHeaderValues> {
    const { minute } = await this.usage(accountId, limits);
    return { limit: minute.limit, remaining: Math.max(0, minute.limit - minute.used), reset: unixSeconds(minute.resetsAt) };
  }

  /**
   * Counts one request of `ip` under `scope` (e.g. the dashboard's own per-address limit) and throws the
   * spec's 429 error past `limit` per minute; otherwise returns where the address stands.
   */
  async hitPerAddress(scope: string, ip: string, limit: number, subject: string): Promise<RateLimitHeaderValues> {
    const now = this.clock.now();
    const window = windowAt('minute', now);
    const count = await this.store.increment({ key: `rl:${scope}:${ip}:${window.start.getTime()}`, ttlMs: window.end.getTime() - now.getTime() });
    if (count > limit) {
      this.metrics.rateLimitRejected(scope);
      throw new RateLimitExceededError(window, limit, count, subject);
    }
    return { limit, remaining: limit - count, reset: unixSeconds(window.end) };
  }

  /**
   * Counts a failed authentication from `ip`; past the per-minute limit the address gets 429 instead of
   * 401. Only failures are counted, so a customer behind a shared address is never locked out by others.
   */
  recordAuthFailure(ip: string): Promise<RateLimitHeaderValues> {
    return this.hitPerAddress('authfail', ip, this.config.authFailureLimitPerMinute, 'failed authentication attempts');
  }

  now(): Date {
    return this.clock.now();
  }
}
