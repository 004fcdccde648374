interface Waiter {
  grant: () => void;
  reject: (error: Error) => void;
}

/**
 * Counting semaphore with FIFO hand-off: a released permit goes straight to the oldest waiter,
 * so a steady stream of new arrivals cannot starve a job that has been waiting longer.
 */
export class Semaphore {
  private available: number;
  private readonly waiters: Waiter[] = [];
  private closedWith: Error | null = null;

  constructor(readonly permits: number) {
    if (!Number.isInteger(permits) || permits < 1) {
      throw new Error(`Semaphore needs a positive number of permits, got ${permits}`);
    }
    this.available = permits;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  get inUse(): number {
    return this.permits - this.available;
  }

  /** Resolves with a release function; calling it more than once is harmless. */
  acquire(): Promise<() => void> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (this.available > 0) {
      this.available--;
      return Promise.resolve(this.releaser());
    }
    return new Promise<() => void>((resolve, reject) => {
      this.waiters.push({ grant: () => resolve(this.releaser()), reject });
    });
  }

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
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next.grant();
      else this.available++;
    };
  }
}
