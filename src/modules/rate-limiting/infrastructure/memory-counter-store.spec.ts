import { Clock } from '../../../shared/domain/clock';
import { MemoryCounterStore } from './memory-counter-store';

class FixedClock extends Clock {
  constructor(public at: number) {
    super();
  }
  now(): Date {
    return new Date(this.at);
  }
}

describe('MemoryCounterStore (embedded mode)', () => {
  const T0 = Date.parse('2030-01-01T10:00:30.000Z');
  const minute = { key: 'm', ttlMs: 30_000 };
  const hour = { key: 'h', ttlMs: 3_570_000 };

  it('counts within a window, and starts again at 1 once the window has expired', async () => {
    const clock = new FixedClock(T0);
    const store = new MemoryCounterStore(clock);
    expect(await store.increment(minute)).toBe(1);
    expect(await store.increment(minute)).toBe(2);
    clock.at = T0 + 29_999;
    expect(await store.increment(minute)).toBe(3);
    expect(await store.read(['m', 'unknown'])).toEqual([3, 0]);
    // The expiry is the first request's: counting again does not push it back.
    clock.at = T0 + 30_000;
    expect(await store.read(['m'])).toEqual([0]);
    expect(await store.increment(minute)).toBe(1);
  });

  it('counts the hour only while the minute is within its limit', async () => {
    const store = new MemoryCounterStore(new FixedClock(T0));
    expect(await store.countRequest(minute, hour, 2)).toEqual({ minute: 1, hour: 1 });
    expect(await store.countRequest(minute, hour, 2)).toEqual({ minute: 2, hour: 2 });
    expect(await store.countRequest(minute, hour, 2)).toEqual({ minute: 3, hour: 2 });
    expect(await store.read(['m', 'h'])).toEqual([3, 2]);
  });

  it('drops expired windows (memory bounded by the accounts active this hour)', async () => {
    const clock = new FixedClock(T0);
    const store = new MemoryCounterStore(clock);
    for (let i = 0; i < 50; i++) await store.increment({ key: `old-${i}`, ttlMs: 1_000 });
    clock.at = T0 + 61_000;
    await store.increment({ key: 'new', ttlMs: 1_000 });
    expect((store as unknown as { counters: Map<string, unknown> }).counters.size).toBe(1);
  });
});
