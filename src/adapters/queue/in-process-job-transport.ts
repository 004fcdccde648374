import { Logger } from '@nestjs/common';
import { EnqueueOptions, JobHandler, JobTransport } from '../../modules/jobs/application/job-transport';
import { errorMessage } from '../../shared/domain/error-message';

interface PendingDelivery {
  jobId: string;
  /** The job id, or `<job id>:<key>`: what de-duplicates it. */
  deliveryId: string;
}

/**
 * Embedded mode: jobs run in this process. Nothing is lost on a restart because the jobs table is the
 * queue of record: unfinished rows are handed back to the transport at start and by the periodic sweep
 * (see JobDispatcher). A delivery already pending (waiting or delayed) is not added twice, so the sweep can
 * enqueue every job it finds without piling up duplicates; one started already can be enqueued again.
 * At shutdown nothing here outlives the process: the dispatcher puts the jobs it cut off back to queued in the
 * jobs table, and the next start hands every queued job to the transport at once.
 */
export class InProcessJobTransport extends JobTransport {
  private readonly logger = new Logger('InProcessJobTransport');
  private readonly waiting: PendingDelivery[] = [];
  /** Delivery ids waiting or delayed; a Set so de-duplicating stays cheap with a large backlog. */
  private readonly pending = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private handler: JobHandler | null = null;
  private concurrency = 1;
  private running = 0;
  private closed = false;
  private taking = true;

  async enqueue(jobId: string, options: EnqueueOptions = {}): Promise<void> {
    const deliveryId = options.key ? `${jobId}:${options.key}` : jobId;
    if (this.closed || this.pending.has(deliveryId)) return;
    this.pending.add(deliveryId);
    const delivery = { jobId, deliveryId };
    if (options.delayMs) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.push(delivery);
      }, options.delayMs);
      timer.unref();
      this.timers.add(timer);
      return;
    }
    this.push(delivery);
  }

  consume(handler: JobHandler, concurrency: number): void {
    this.handler = handler;
    this.concurrency = Math.max(1, concurrency);
    this.pump();
  }

  async stopTaking(): Promise<void> {
    this.taking = false;
  }

  /** Nothing to hand to another process: the deliveries still running are queued again in the jobs table. */
  async handBack(): Promise<number> {
    return this.running;
  }

  /** This transport lives and dies with the process: it never loses a delivery the process survives. */
  onDeliveriesLost(): void {}

  async close(): Promise<void> {
    this.closed = true;
    this.taking = false;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.waiting.length = 0;
    this.pending.clear();
  }

  private push(delivery: PendingDelivery): void {
    if (this.closed) return;
    this.waiting.push(delivery);
    this.pump();
  }

  private pump(): void {
    while (this.handler && this.taking && this.running < this.concurrency && this.waiting.length > 0) {
      const { jobId, deliveryId } = this.waiting.shift() as PendingDelivery;
      this.pending.delete(deliveryId);
      this.running += 1;
      // This process never loses a delivery without dying with it, so none is ever a redelivery.
      this.handler(jobId, { redelivered: false })
        .catch((err: unknown) => this.logger.error(`job ${jobId} handler failed: ${errorMessage(err)}`))
        .finally(() => {
          this.running -= 1;
          this.pump();
        });
    }
  }
}
