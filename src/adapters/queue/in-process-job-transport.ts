import { Logger } from '@nestjs/common';
import { EnqueueOptions, JobHandler, JobTransport, SlotCaps } from '../../modules/jobs/application/job-transport';
import { errorMessage } from '../../shared/domain/error-message';

interface PendingDelivery {
  jobId: string;
  /** The job id, or `<job id>:<key>`: what de-duplicates it. */
  deliveryId: string;
  interactive: boolean;
  /** The account, or '' for deliveries enqueued without one. */
  group: string;
  /** A batch delivery whose job a waiting client promoted: skipped at its turn (the interactive one runs the job). */
  promoted?: boolean;
}

/**
 * Embedded mode: jobs run in this process. Nothing is lost on a restart because the jobs table is the
 * queue of record: unfinished rows are handed back to the transport at start and by the periodic sweep
 * (see JobDispatcher). A delivery already pending (waiting or delayed) is not added twice, so the sweep can
 * enqueue every job it finds without piling up duplicates; one started already can be enqueued again.
 * At shutdown nothing here outlives the process: the dispatcher puts the jobs it cut off back to queued in the
 * jobs table, and the next start hands every queued job to the transport at once.
 *
 * Which delivery a free slot takes (docs/fair-slots.md): the oldest interactive one, then the batch ones
 * round-robin across accounts, one each in turn; an account already running its cap (SlotCaps) is passed over
 * until one of its jobs ends.
 */
export class InProcessJobTransport extends JobTransport {
  private readonly logger = new Logger('InProcessJobTransport');
  private readonly interactive: PendingDelivery[] = [];
  /** Batch deliveries per account, oldest first. */
  private readonly batches = new Map<string, PendingDelivery[]>();
  /** Accounts with batch deliveries waiting, the next to serve first (each served one goes to the back). */
  private ring: string[] = [];
  private readonly runningBy = new Map<string, number>();
  private readonly caps = new Map<string, number>();
  /** Delivery ids waiting or delayed; a Set so de-duplicating stays cheap with a large backlog. */
  private readonly pending = new Set<string>();
  /** The batch delivery waiting in `batches` for each job that has one (the latest), which a promotion supersedes. */
  private readonly waitingBatch = new Map<string, PendingDelivery>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private handler: JobHandler | null = null;
  private concurrency = 1;
  private running = 0;
  private closed = false;
  private taking = true;

  /** `slotCaps`: each account's cap on simultaneous deliveries; none = no cap (tests of other rules). */
  constructor(private readonly slotCaps: SlotCaps | null = null) {
    super();
  }

  async enqueue(jobId: string, options: EnqueueOptions = {}): Promise<void> {
    const deliveryId = options.key ? `${jobId}:${options.key}` : jobId;
    if (this.closed || this.pending.has(deliveryId)) return;
    this.pending.add(deliveryId);
    const group = options.accountId === undefined ? '' : String(options.accountId);
    const delivery: PendingDelivery = { jobId, deliveryId, interactive: options.priority === 'interactive', group };
    if (options.accountId !== undefined) await this.learnCap(group, options.accountId);
    if (delivery.interactive && !options.delayMs) this.supersedeBatch(jobId);
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
    this.interactive.length = 0;
    this.batches.clear();
    this.ring = [];
    this.pending.clear();
    this.waitingBatch.clear();
  }

  /**
   * A waiting client promoted this job (JobsService.promoteWhileWaited): its batch delivery still waiting is dropped
   * when its turn comes instead of being handed over, so the job is not claimed a second time for nothing (a read
   * of its row and a slot taken for the moment, on most captures of a batch whose client waits on each job).
   */
  private supersedeBatch(jobId: string): void {
    const batch = this.waitingBatch.get(jobId);
    if (!batch) return;
    batch.promoted = true;
    this.waitingBatch.delete(jobId);
    this.pending.delete(batch.deliveryId);
  }

  /** Read when the account's delivery is enqueued (the pump is synchronous); a failed read keeps the last one. */
  private async learnCap(group: string, accountId: number): Promise<void> {
    if (!this.slotCaps) return;
    try {
      this.caps.set(group, await this.slotCaps(accountId));
    } catch (err) {
      this.logger.warn(`reading account ${accountId}'s slot cap: ${errorMessage(err)}`);
    }
  }

  private push(delivery: PendingDelivery): void {
    if (this.closed) return;
    if (delivery.interactive) this.interactive.push(delivery);
    else {
      const queue = this.batches.get(delivery.group);
      if (queue) queue.push(delivery);
      else {
        this.batches.set(delivery.group, [delivery]);
        this.ring.push(delivery.group);
      }
      this.waitingBatch.set(delivery.jobId, delivery);
    }
    this.pump();
  }

  private underCap(group: string): boolean {
    return (this.runningBy.get(group) ?? 0) < (this.caps.get(group) ?? Infinity);
  }

  private next(): PendingDelivery | undefined {
    const i = this.interactive.findIndex((d) => this.underCap(d.group));
    if (i >= 0) return this.interactive.splice(i, 1)[0];
    for (;;) {
      const turn = this.ring.findIndex((group) => this.underCap(group));
      if (turn < 0) return undefined;
      const group = this.ring[turn];
      const queue = this.batches.get(group) as PendingDelivery[];
      const delivery = queue.shift() as PendingDelivery;
      if (queue.length === 0) {
        this.batches.delete(group);
        this.ring.splice(turn, 1);
      } else if (!delivery.promoted) {
        // Served: to the back of the ring. A promoted delivery skipped costs its account no turn.
        this.ring.splice(turn, 1);
        this.ring.push(group);
      }
      if (this.waitingBatch.get(delivery.jobId) === delivery) this.waitingBatch.delete(delivery.jobId);
      if (!delivery.promoted) return delivery;
    }
  }

  private pump(): void {
    while (this.handler && this.taking && this.running < this.concurrency) {
      const delivery = this.next();
      if (!delivery) return;
      const { jobId, deliveryId, group } = delivery;
      this.pending.delete(deliveryId);
      this.running += 1;
      this.runningBy.set(group, (this.runningBy.get(group) ?? 0) + 1);
      // This process never loses a delivery without dying with it, so none is ever a redelivery.
      this.handler(jobId, { redelivered: false, priority: delivery.interactive ? 'interactive' : 'batch' })
        .catch((err: unknown) => this.logger.error(`job ${jobId} handler failed: ${errorMessage(err)}`))
        .finally(() => {
          this.running -= 1;
          const left = (this.runningBy.get(group) ?? 1) - 1;
          if (left > 0) this.runningBy.set(group, left);
          else this.runningBy.delete(group);
          this.pump();
        });
    }
  }
}
