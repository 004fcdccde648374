/**
 * Background work a process repeats (the screenshot sweeps): first a while after start, then at a fixed interval.
 * Never two runs at once — a run asked for while one is under way joins it — the timers never keep the process
 * alive, and stop() waits for the run in progress, so a shutdown does not cut it in half.
 */
export class PeriodicTask<T> {
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<T> | null = null;

  constructor(private readonly onError: (err: unknown) => void) {}

  start(firstAfterMs: number, everyMs: number, run: () => Promise<T>): void {
    const tick = () => void this.exclusive(run).catch(this.onError);
    this.timers = [setTimeout(tick, firstAfterMs), setInterval(tick, everyMs)];
    for (const timer of this.timers) timer.unref();
  }

  /** Runs `run` now, or joins the run under way. */
  exclusive(run: () => Promise<T>): Promise<T> {
    this.running ??= run().finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    await this.running?.catch(() => undefined);
  }
}
