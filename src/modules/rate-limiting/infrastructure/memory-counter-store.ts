import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { CountedKey, CounterStore } from '../application/counter-store';

/** Embedded mode: counters in this process. Node runs each call to completion, so it is atomic. */
@Injectable()
export class MemoryCounterStore extends CounterStore {
  private readonly counters = new Map<string, { count: number; expiresAt: number }>();
  private lastSweep = 0;

  constructor(private readonly clock: Clock) {
    super();
  }

  async countRequest(minute: CountedKey, hour: CountedKey, minuteLimit: number): Promise<{ minute: number; hour: number }> {
    const now = this.clock.now().getTime();
    const m = this.bump(minute, now);
    const h = m <= minuteLimit ? this.bump(hour, now) : this.current(hour.key, now);
    return { minute: m, hour: h };
  }

  async increment(counter: CountedKey): Promise<number> {
    return this.bump(counter, this.clock.now().getTime());
  }

  async read(keys: string[]): Promise<number[]> {
    const now = this.clock.now().getTime();
    return keys.map((key) => this.current(key, now));
  }

  private current(key: string, now: number): number {
    const entry = this.counters.get(key);
    return entry && entry.expiresAt > now ? entry.count : 0;
  }

  /** The clock is read once per call and a live window's entry counted in place: this runs on every API request. */
  private bump({ key, ttlMs }: CountedKey, now: number): number {
    this.sweep(now);
    const entry = this.counters.get(key);
    if (entry && entry.expiresAt > now) return ++entry.count;
    this.counters.set(key, { count: 1, expiresAt: now + ttlMs });
    return 1;
  }

  /** Drops expired windows once a minute so memory stays bounded by the active accounts. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, entry] of this.counters) if (entry.expiresAt <= now) this.counters.delete(key);
  }
}
