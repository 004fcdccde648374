import { DomainError } from '../../../shared/domain/domain-error';
import type { RateLimitHeaderValues } from '../../../shared/domain/rate-limit-values';

/**
 * Calendar-aligned windows (spec, Limits 1): a request at 1:00:05 belongs to the minute that resets at
 * 1:01:00, and to the hour that resets at 2:00:00 — not 60 s / 3600 s after the first request.
 */
export type WindowKind = 'minute' | 'hour';

const WINDOW_MS: Record<WindowKind, number> = { minute: 60_000, hour: 3_600_000 };

export interface Window {
  kind: WindowKind;
  start: Date;
  end: Date;
}

export function windowAt(kind: WindowKind, now: Date): Window {
  const size = WINDOW_MS[kind];
  const start = Math.floor(now.getTime() / size) * size;
  return { kind, start: new Date(start), end: new Date(start + size) };
}

export interface Limits {
  perMinute: number;
  perHour: number;
}

export interface Counts {
  minute: number;
  hour: number;
}

export const unixSeconds = (d: Date): number => Math.floor(d.getTime() / 1000);

export interface QuotaDecision {
  allowed: boolean;
  /** The three X-RateLimit-* values (per-minute window). */
  limit: number;
  remaining: number;
  /** Unix seconds when requests are accepted again: the minute's end, or on a 429 the end of the window that was hit. */
  reset: number;
  exceeded: { window: Window; limit: number; current: number } | null;
}

/**
 * Decides a request given the counts *including* it. The minute counter counts every request (rejected
 * ones too, so `current` shows how hard a client pushes); the hour counter only those that passed the
 * minute check (see CounterStore), so a burst of 429s does not also burn the hour's quota.
 */
export function decide(limits: Limits, counts: Counts, now: Date): QuotaDecision {
  const minute = windowAt('minute', now);
  const hour = windowAt('hour', now);
  let exceeded: QuotaDecision['exceeded'] = null;
  if (counts.minute > limits.perMinute) exceeded = { window: minute, limit: limits.perMinute, current: counts.minute };
  else if (counts.hour > limits.perHour) exceeded = { window: hour, limit: limits.perHour, current: counts.hour };
  return {
    allowed: exceeded === null,
    limit: limits.perMinute,
    remaining: exceeded ? 0 : Math.max(0, limits.perMinute - counts.minute),
    reset: unixSeconds(exceeded ? exceeded.window.end : minute.end),
    exceeded,
  };
}

export class RateLimitExceededError extends DomainError {
  constructor(
    readonly window: Window,
    readonly limit: number,
    current: number,
    subject = 'requests',
  ) {
    // Body exactly as the spec: error, message naming the limit, limit, current, reset_at.
    super('rate_limited', 'Rate limit exceeded', {
      message: `Rate limit of ${limit} ${subject} per ${window.kind} exceeded`,
      limit,
      current,
      reset_at: window.end.toISOString(),
    });
  }

  /** The X-RateLimit-* values of this 429: nothing left until the window that was hit resets. */
  headerValues(): RateLimitHeaderValues {
    return { limit: this.limit, remaining: 0, reset: unixSeconds(this.window.end) };
  }

  retryAfterSeconds(now: Date): number {
    return Math.max(1, Math.ceil((this.window.end.getTime() - now.getTime()) / 1000));
  }
}
