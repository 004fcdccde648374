import { JobEvents } from './job-events';
import { isFinished, JobProps } from '../domain/job';

/** `?wait=N`: how long a status request may wait for its job to end (API.md: 0..30 s). */
export const MAX_WAIT_SECONDS = 30;

/**
 * While waiting, the job row is read again this often even without a signal: a lost "ended" message (Redis
 * away for a moment) costs at most this much latency. No database connection is held in between.
 */
export const WAIT_RECHECK_MS = 5_000;

/**
 * Long-poll: reads the job (through `read`, which also checks ownership, so an unknown id is a 404 at once)
 * and, while it is unfinished and time is left, waits for its "ended" signal, then reads it again. Each wait
 * is subscribed before the read that precedes it, so an end between the two is never missed. Returns the
 * job as it is when it ends, when the time is up, or when the client has gone (`signal`).
 */
export async function readWhenFinished<T extends { job: JobProps } | JobProps>(
  events: JobEvents,
  jobId: string,
  waitSeconds: number,
  signal: AbortSignal,
  read: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + waitSeconds * 1000;
  const jobOf = (value: T): JobProps => ('job' in value ? value.job : value);
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0 || signal.aborted) return read();
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const ended = events.waitForEnd(jobId, Math.min(remaining, WAIT_RECHECK_MS), stop.signal);
    try {
      const value = await read();
      if (isFinished(jobOf(value).status)) return value;
      await ended;
    } finally {
      stop.abort();
      signal.removeEventListener('abort', onAbort);
    }
  }
}
