import { FakeClock } from '../../../../test/support/fake-clock';
import { FAILING_DISABLED_REASON } from '../domain/webhook';
import { FailureStreak, keepFailureStreak } from './failure-streak';

/** One endpoint's streak in memory, written as the repositories write it (markFailing keeps the first failure). */
class MemoryStreak implements FailureStreak {
  failingSince: Date | null = null;
  enabled = true;
  disabled: { reason: string; at: Date } | null = null;
  writes = 0;

  async markHealthy(): Promise<void> {
    this.writes++;
    this.failingSince = null;
  }

  async markFailing(_id: number, now: Date): Promise<Date | null> {
    this.writes++;
    this.failingSince ??= now;
    return this.failingSince;
  }

  async disable(_id: number, reason: string, now: Date): Promise<boolean> {
    this.writes++;
    if (!this.enabled) return false;
    this.enabled = false;
    this.disabled = { reason, at: now };
    return true;
  }
}

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

describe('the 3-day rule (webhooks and notification channels alike)', () => {
  let clock: FakeClock;
  let streak: MemoryStreak;
  const attempt = (delivered: boolean) => keepFailureStreak(streak, 7, { delivered, at: clock.now(), wasFailing: streak.failingSince !== null });

  beforeEach(() => {
    clock = new FakeClock();
    clock.set('2026-11-20T10:00:00Z');
    streak = new MemoryStreak();
  });

  it('failing attempts for just under 3 days leave it enabled; the first failure at 3 days disables it, with the reason and the time', async () => {
    expect(await attempt(false)).toBe(false);
    for (let h = 6; h < 72; h += 6) {
      clock.set(new Date(Date.parse('2026-11-20T10:00:00Z') + h * HOUR));
      expect(await attempt(false)).toBe(false);
    }
    clock.set(new Date(Date.parse('2026-11-20T10:00:00Z') + 3 * DAY - 1));
    expect(await attempt(false)).toBe(false);
    expect(streak).toMatchObject({ enabled: true, failingSince: new Date('2026-11-20T10:00:00Z'), disabled: null });

    clock.advance(1);
    expect(await attempt(false)).toBe(true);
    expect(streak).toMatchObject({ enabled: false, disabled: { reason: FAILING_DISABLED_REASON, at: new Date('2026-11-23T10:00:00Z') } });
    expect(FAILING_DISABLED_REASON).toBe('every delivery failed for 3 days');
  });

  it('one delivered attempt ends the streak: 3 more days of failures are needed from the next failure', async () => {
    await attempt(false);
    clock.advance(2 * DAY);
    await attempt(true);
    expect(streak.failingSince).toBeNull();
    clock.advance(HOUR);
    await attempt(false);
    clock.advance(2 * DAY);
    expect(await attempt(false)).toBe(false); // 5 days since the first failure, but only 2 since the success
    clock.advance(DAY - 1);
    expect(await attempt(false)).toBe(false);
    clock.advance(1);
    expect(await attempt(false)).toBe(true);
  });

  it('two attempts crossing the 3-day line at once: only the one that disabled it says so (the warning is logged once)', async () => {
    await attempt(false);
    clock.advance(3 * DAY);
    expect((await Promise.all([attempt(false), attempt(false)])).sort()).toEqual([false, true]);
    expect(streak).toMatchObject({ enabled: false, disabled: { reason: FAILING_DISABLED_REASON, at: clock.now() } });
  });

  it('a delivered attempt with no streak running writes nothing', async () => {
    await attempt(true);
    await attempt(true);
    expect(streak.writes).toBe(0);
  });
});
