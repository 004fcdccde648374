import { AsyncLocalStorage } from 'node:async_hooks';

export interface JobAttempt {
  jobId: string;
  /** The job's `attempts` as this attempt's claim set it: the fencing token of its writes. */
  attempt: number;
}

const current = new AsyncLocalStorage<JobAttempt>();

/** How many `run`s have not ended yet (the storage is enabled exactly while this is above 0). */
let open = 0;

function closed(): void {
  open -= 1;
  // The last attempt of this process has ended: turn the storage off, and with it Node's promise hooks.
  if (open === 0) current.disable();
}

/**
 * The attempt a piece of work runs for. The dispatcher runs each handler inside the scope of the attempt it
 * claimed, and the repositories fence every write made there on that job (succeed, fail, requeue, saveResult,
 * a screenshot row) to that attempt, so a run that lost its job — its lease ran out and another worker claimed
 * it — changes nothing and stores nothing. The token travels with the async context rather than as an
 * argument because handlers of other contexts (scenario runs) address their job by id only.
 *
 * Why the storage is switched off between attempts: an enabled AsyncLocalStorage turns on Node's promise hooks
 * for the whole process, so every promise any request makes pays for propagating the store. After the first job
 * of an embedded instance that was ~17 µs of every API request's ~84 µs (`BENCH_ONLY='GET /test'
 * npm run bench:api`, docs/benchmark.md "Per-request cost"). Now the hooks are on only while an attempt runs in
 * this process (an API-only instance never turns them on). The price: work an attempt leaves running after its
 * handler returned (nothing does so today) is not fenced to it once no attempt is open; its writes then take the
 * status checks that writes outside any attempt take.
 */
export const JobAttemptScope = {
  run<T>(attempt: JobAttempt, work: () => Promise<T>): Promise<T> {
    open += 1;
    let running: Promise<T>;
    try {
      running = current.run(attempt, work);
    } catch (err) {
      closed();
      throw err;
    }
    return running.finally(closed);
  },

  /** The attempt of `jobId` the calling code runs for; null outside a handler of that job. */
  attemptOf(jobId: string | null | undefined): number | null {
    const scope = current.getStore();
    return scope && jobId && scope.jobId === jobId ? scope.attempt : null;
  },

  /** How many attempts run in this process now (the storage, and the promise hooks, are on while above 0). */
  openCount(): number {
    return open;
  },
};
