/**
 * Carries job ids from the API to the workers. The jobs table stays the durable record; a transport only
 * delivers, possibly more than once, and handlers are idempotent (they claim the job row first).
 */
export interface Delivery {
  /**
   * True when the transport had already handed this delivery to a worker that stopped holding it (Bull: its
   * lock expired, so the worker died or hung): the attempt that worker ran may be taken over at once.
   */
  redelivered: boolean;
  /**
   * The priority it was enqueued with: a retry of an attempt keeps it, so a client waiting on a render (or
   * long-polling a promoted job) does not fall behind the batch backlog because the browser crashed once.
   */
  priority: JobPriority;
}

export type JobHandler = (jobId: string, delivery: Delivery) => Promise<void>;

export interface EnqueueOptions {
  /** Deliver no earlier than this (retry backoff). */
  delayMs?: number;
  /**
   * Tells this delivery apart from the job's others (`retry:2`, `expired:1`). Enqueueing a job again while a
   * delivery with the same id and key is still pending is a no-op; without a key the job id alone counts. A
   * retry needs a key of its own because it is enqueued while the current delivery is still being acknowledged.
   */
  key?: string;
  /**
   * `interactive`: a client is waiting on this job right now (a render, a long-poll on a queued job); it goes
   * ahead of every `batch` delivery (the default: API requests without a waiting client, schedules; a retry keeps
   * the priority of the delivery whose attempt failed).
   * See docs/fair-slots.md.
   */
  priority?: JobPriority;
  /**
   * The account the job belongs to: batch deliveries are served round-robin across accounts, and no account
   * runs more deliveries at once than its cap (SlotCaps). Without it the delivery shares one anonymous account.
   */
  accountId?: number;
}

export type JobPriority = 'interactive' | 'batch';

/**
 * How many jobs an account may run at once, across every worker (its plan's capture slots). Read by the
 * transports when they hand out a delivery; cached by them, so a plan change applies within a minute.
 */
export type SlotCaps = (accountId: number) => Promise<number>;

export abstract class JobTransport {
  abstract enqueue(jobId: string, options?: EnqueueOptions): Promise<void>;
  /** Starts delivering jobs to `handler`, at most `concurrency` at a time (worker roles only). */
  abstract consume(handler: JobHandler, concurrency: number): void;
  /** Shutting down: delivers no new job to the handler; those it is running carry on. */
  abstract stopTaking(): Promise<void>;
  /**
   * Shutting down, after the grace: every delivery whose handler still runs in this process goes back to the
   * queue at once, for another worker (or this one's next start) to take, instead of when a lock or lease runs
   * out. Called once the jobs table has those jobs queued again. Returns how many deliveries went back.
   */
  abstract handBack(): Promise<number>;
  /**
   * `listener` runs whenever the transport finds that it lost deliveries it carried (Bull: Redis came back
   * without the queue's data), so the jobs table can hand its unfinished jobs over again at once.
   */
  abstract onDeliveriesLost(listener: () => void): void;
  /** Releases the transport's connections; handlers still running are not waited for (see handBack). */
  abstract close(): Promise<void>;
}
