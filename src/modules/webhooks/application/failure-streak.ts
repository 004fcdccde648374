import { FAILING_DISABLED_REASON, shouldDisable } from '../domain/webhook';

/**
 * An endpoint's failure streak, which the 3-day rule reads and writes: kept alike for a webhook
 * (WebhookRepository) and a notification channel (ChannelSubscribers), by id.
 */
export interface FailureStreak {
  /** Delivered: the endpoint is healthy again (its streak ends). */
  markHealthy(id: number): Promise<void>;
  /** Failed attempt: failing since then (if not already); returns when it started failing. */
  markFailing(id: number, now: Date): Promise<Date | null>;
  /**
   * Disabled by the service (an enabled endpoint only): `enabled` false, with the reason and the time. Returns
   * whether this call disabled it (false: it was disabled already, e.g. by a concurrent attempt, or is gone).
   */
  disable(id: number, reason: string, now: Date): Promise<boolean>;
}

/**
 * The one rule for webhooks and notification channels, after each attempt that was tried: a delivered attempt
 * ends the endpoint's failure streak (written only when `wasFailing`: the endpoint's `failing_since` as read for
 * this attempt, so a healthy endpoint's delivery writes nothing); a failed one starts it if not started, and once
 * every attempt has failed for 3 days (domain `shouldDisable`) the endpoint is disabled with the reason and the
 * time. Returns whether this attempt disabled the endpoint: true for one attempt only when several cross the line
 * at once (the conditional `disable` tells), so the warning is logged once.
 */
export async function keepFailureStreak(streak: FailureStreak, id: number, attempt: { delivered: boolean; at: Date; wasFailing: boolean }): Promise<boolean> {
  if (attempt.delivered) {
    if (attempt.wasFailing) await streak.markHealthy(id);
    return false;
  }
  const failingSince = await streak.markFailing(id, attempt.at);
  if (!shouldDisable(failingSince, attempt.at)) return false;
  return streak.disable(id, FAILING_DISABLED_REASON, attempt.at);
}
