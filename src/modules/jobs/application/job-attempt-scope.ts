import { AsyncLocalStorage } from 'node:async_hooks';

export interface JobAttempt {
  jobId: string;
  /** The job's `attempts` as this attempt's claim set it: the fencing token of its writes. */
  attempt: number;
}

const current = new AsyncLocalStorage<JobAttempt>();

/**
 * The attempt a piece of work runs for. The dispatcher runs each handler inside the scope of the attempt it
 * claimed, and the repositories fence every write made there on that job (succeed, fail, requeue, saveResult,
 * a screenshot row) to that attempt, so a run that lost its job — its lease ran out and another worker claimed
 * it — changes nothing and stores nothing. The token travels with the async context rather than as an
 * argument because handlers of other contexts (scenario runs) address their job by id only.
 */
export const JobAttemptScope = {
  run<T>(attempt: JobAttempt, work: () => Promise<T>): Promise<T> {
    return current.run(attempt, work);
  },

  /** The attempt of `jobId` the calling code runs for; null outside a handler of that job. */
  attemptOf(jobId: string | null | undefined): number | null {
    const scope = current.getStore();
    return scope && jobId && scope.jobId === jobId ? scope.attempt : null;
  },
};
