import { Logger } from '@nestjs/common';
import { EnqueueOptions, JobHandler, JobTransport } from './job-transport.port';

/**
 * Embedded mode: jobs run in this process. Nothing is lost on a restart because the jobs table is the
 * queue of record: unfinished rows are handed back to the transport at start (see CaptureJobRunner).
 */
export class InProcessJobTransport extends JobTransport {
  private readonly logger = new Logger('InProcessJobTransport');
  private readonly waiting: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private handler: JobHandler | null = null;
  private concurrency = 1;
  private running = 0;
  private closed = false;
  private drained: (() => void) | null = null;

  async enqueue(jobId: string, options: EnqueueOptions = {}): Promise<void> {
    if (this.closed) return;
    if (options.delayMs) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.push(jobId);
      }, options.delayMs);
      timer.unref();
      this.timers.add(timer);
      return;
    }
    this.push(jobId);
  }

  consume(handler: JobHandler, concurrency: number): void {
    this.handler = handler;
    this.concurrency = Math.max(1, concurrency);
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.waiting.length = 0;
    if (this.running === 0) return;
    await Promise.race([new Promise<void>((resolve) => (this.drained = resolve)), new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
  }

  private push(jobId: string): void {
    if (this.closed || this.waiting.includes(jobId)) return;
    this.waiting.push(jobId);
    this.pump();
  }

  private pump(): void {
    while (this.handler && !this.closed && this.running < this.concurrency && this.waiting.length > 0) {
      const jobId = this.waiting.shift() as string;
      this.running += 1;
      this.handler(jobId)
        .catch((err: unknown) => this.logger.error(`job ${jobId} handler failed: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => {
          this.running -= 1;
          if (this.running === 0) this.drained?.();
          this.pump();
        });
    }
  }
}
