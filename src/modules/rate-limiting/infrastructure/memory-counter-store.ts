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
    const m = this.bump(minute);
    const h = m <= minuteLimit ? this.bump(hour) : this.current(hour.key);
    return { minute: m, hour: h };
  }

  async increment(counter: CountedKey): Promise<number> {
    return this.bump(counter);
  }

  async read(keys: string[]): Promise<number[]> {
    return keys.map((key) => this.current(key));
  }

  private current(key: string): number {
    const entry = this.counters.get(key);
    return entry && entry.expiresAt > this.clock.now().getTime() ? entry.count : 0;
  }

  private bump({ key, ttlMs }: CountedKey): number {
    this.sweep();
    const count = this.current(key) + 1;
    const expiresAt = count === 1 ? this.clock.now().getTime() + ttlMs : (this.counters.get(key)?.expiresAt ?? 0);
    this.counters.set(key, { count, expiresAt });
    return count;
  }

  /** Drops expired windows once a minute so memory stays bounded by the active accounts. */
  private sweep(): void {
    const now = this.clock.now().getTime();
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, entry] of this.counters) if (entry.expiresAt <= now) this.counters.delete(key);
  }
}
