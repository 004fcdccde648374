/**
 * The one time-limit helper: settles as `work` does, or rejects with `failure()` once `ms` have passed,
 * whichever comes first. The timer never outlives the race, and a `work` that fails after losing it is not
 * reported as an unhandled rejection (its outcome no longer matters to anyone).
 *
 * Time the event loop itself was held does not count against `work`: when the timer fires late because a long
 * synchronous task held the loop, an answer that arrived meanwhile is still unread in its socket. The verdict
 * waits for one more pass of the loop's poll phase (setImmediate runs right after it), where that answer is read
 * and settles `work` first. Seen without it: Redis counted a request in well under a millisecond, but a 600 ms
 * pixel comparison held the loop and the request was answered 503.
 */
export async function within<T>(work: Promise<T>, ms: number, failure: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => undefined);
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(failure())), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
