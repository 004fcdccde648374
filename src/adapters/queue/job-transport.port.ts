/**
 * Carries job ids from the API to the workers. The jobs table stays the durable record; a transport only
 * delivers, possibly more than once, and handlers are idempotent (they claim the job row first).
 */
export type JobHandler = (jobId: string) => Promise<void>;

export interface EnqueueOptions {
  /** Deliver no earlier than this (retry backoff). */
  delayMs?: number;
  /** A retry of a job whose previous delivery is still being acknowledged. */
  retry?: boolean;
}

export abstract class JobTransport {
  abstract enqueue(jobId: string, options?: EnqueueOptions): Promise<void>;
  /** Starts delivering jobs to `handler`, at most `concurrency` at a time (worker roles only). */
  abstract consume(handler: JobHandler, concurrency: number): void;
  /** Stops taking new jobs and waits (bounded) for running ones. */
  abstract close(): Promise<void>;
}
