import { E_CANCELED, Semaphore as AsyncSemaphore } from 'async-mutex';

/**
 * Counting semaphore with FIFO hand-off, on async-mutex: with one priority its queue is FIFO and a new
 * arrival never overtakes a queued waiter, so a steady stream of new arrivals cannot starve a job that has
 * been waiting longer.
 *
 * A thin wrapper remains because the browser pool needs three things async-mutex does not offer:
 * - `close(error)`: async-mutex's `cancel()` fails only the current waiters, with one error fixed at
 *   construction; the pool wants its own error (a CaptureFailure) for them and for every later acquire;
 * - `waiting`: async-mutex keeps its queue private, and the pool reports its length in stats();
 * - `acquire()` resolving with the release function alone (async-mutex resolves with [value, release]).
 */
export class Semaphore {
  private readonly inner: AsyncSemaphore;
  private queued = 0;
  private closedWith: Error | null = null;

  constructor(readonly permits: number) {
    if (!Number.isInteger(permits) || permits < 1) {
      throw new Error(`Semaphore needs a positive number of permits, got ${permits}`);
    }
    this.inner = new AsyncSemaphore(permits);
  }

  get waiting(): number {
    return this.queued;
  }

  get inUse(): number {
    return this.permits - this.inner.getValue();
  }

  /** Resolves with a release function; calling it more than once is harmless (async-mutex's releaser is idempotent). */
  async acquire(): Promise<() => void> {
    if (this.closedWith) throw this.closedWith;
    // Weight 1 only: a free permit means an empty queue, so this acquire is granted at once and never waits.
    const waits = this.inner.getValue() <= 0;
    if (waits) this.queued++;
    try {
      const [, release] = await this.inner.acquire();
      return release;
    } catch (error) {
      throw error === E_CANCELED && this.closedWith ? this.closedWith : error;
    } finally {
      if (waits) this.queued--;
    }
  }

  /** Not runExclusive(): through acquire() the wait is counted in `waiting` and fails with close()'s error. */
  async use<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Fails every current and future waiter; permits already held stay valid until released. */
  close(error: Error): void {
    this.closedWith = error;
    this.inner.cancel();
  }
}
