/**
 * "This job has ended" signals, from whichever process ended it to every process where a client waits for it
 * (long-poll `GET /jobs/{id}?wait=N`). Only a wake-up call: waiters read the jobs table, the durable record,
 * and a lost signal costs latency (they re-read it every few seconds anyway), never correctness.
 */
export abstract class JobEvents {
  /** Tells every waiter of this job that it ended (or may have): fire and forget, never throws. */
  abstract ended(jobId: string): void;
  /**
   * Resolves when `ended(jobId)` is signalled anywhere, after `timeoutMs`, or when `signal` aborts —
   * whichever comes first — and leaves nothing behind (listener, timer) in any case.
   */
  abstract waitForEnd(jobId: string, timeoutMs: number, signal: AbortSignal): Promise<void>;
  abstract close(): Promise<void>;
}
