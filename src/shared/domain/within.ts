/**
 * The one time-limit helper: settles as `work` does, or rejects with `failure()` once `ms` have passed,
 * whichever comes first. The timer never outlives the race, and a `work` that fails after losing it is not
 * reported as an unhandled rejection (its outcome no longer matters to anyone).
 */
export async function within<T>(work: Promise<T>, ms: number, failure: () => Error, options: { afterPoll?: boolean } = {}): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => undefined);
  const expired = new Promise<never>((_, reject) => {
    // afterPoll: time the event loop itself was held does not count against `work`. When the timer fires late
    // because a long synchronous task held the loop, an answer that arrived meanwhile is still unread in its socket;
    // the verdict waits for the loop's poll phase, which reads it and settles `work` first (setImmediate runs right
    // after that phase). Real timers only: a fake clock does not run that pass.
    timer = setTimeout(() => (options.afterPoll ? setImmediate(() => reject(failure())) : reject(failure())), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
