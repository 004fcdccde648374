import { FindOptionsWhere, IsNull, Not, ObjectLiteral, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

/** The columns of an endpoint that keeps the 3-day failure streak: a webhook's row, a notification channel's. */
interface StreakColumns {
  id: number;
  enabled: boolean;
  failingSince: Date | null;
  disabledReason: string | null;
  disabledAt: Date | null;
  updatedAt: Date;
}

/** What a PUT `enabled: true` also writes: re-enabled by hand is a fresh start, not three more days of the old failures. */
export const STREAK_RESET = { failingSince: null, disabledReason: null, disabledAt: null } as const;

/**
 * The streak's writes (webhooks/application/failure-streak.ts, FailureStreak) on one table, written once for the
 * webhooks' and the channels' repositories, each a single conditional UPDATE so concurrent attempts stay right.
 */
export class FailureStreakRows<T extends ObjectLiteral & StreakColumns> {
  constructor(private readonly rows: Repository<T>) {}

  /** Delivered: the streak ends (no write when it had none). */
  async markHealthy(id: number): Promise<void> {
    await this.rows.update(this.where({ id, failingSince: Not(IsNull()) }), this.set({ failingSince: null }));
  }

  /** Failed attempt: failing since `now` unless already; returns when it started failing. */
  async markFailing(id: number, now: Date): Promise<Date | null> {
    await this.rows.update(this.where({ id, failingSince: IsNull() }), this.set({ failingSince: now }));
    return (await this.rows.findOneBy(this.where({ id })))?.failingSince ?? null;
  }

  /**
   * Disabled by the service, an enabled endpoint only (one disabled by hand meanwhile keeps no reason it was not
   * disabled for). Of two attempts crossing the 3-day line at once, only the one whose UPDATE changed the row is
   * told it disabled it.
   */
  async disable(id: number, reason: string, now: Date): Promise<boolean> {
    const result = await this.rows.update(
      this.where({ id, enabled: true }),
      this.set({ enabled: false, disabledReason: reason, disabledAt: now, updatedAt: now }),
    );
    return result.affected === 1;
  }

  private where(where: FindOptionsWhere<StreakColumns>): FindOptionsWhere<T> {
    return where as FindOptionsWhere<T>;
  }

  private set(values: Partial<StreakColumns>): QueryDeepPartialEntity<T> {
    return values as QueryDeepPartialEntity<T>;
  }
}
