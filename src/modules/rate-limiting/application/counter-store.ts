/**
 * Where request counters live: process memory (embedded) or Redis (shared by every API instance).
 * Each operation is atomic in the store itself — no read-modify-write race between instances.
 */
export interface CountedKey {
  key: string;
  /** How long the counter must live (relative, so a test clock far from real time still works with Redis). */
  ttlMs: number;
}

export abstract class CounterStore {
  /**
   * Counts one request: always increments `minute`; increments `hour` only when the new minute count is
   * within `minuteLimit`. Returns both counts after the operation.
   */
  abstract countRequest(minute: CountedKey, hour: CountedKey, minuteLimit: number): Promise<{ minute: number; hour: number }>;
  abstract increment(counter: CountedKey): Promise<number>;
  /** Current values without counting (0 for a key not seen in its window). */
  abstract read(keys: string[]): Promise<number[]>;
}
