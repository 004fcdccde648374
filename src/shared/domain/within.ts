/**
 * The one time-limit helper: settles as `work` does, or rejects with `failure()` once `ms` have passed,
 * whichever comes first. The timer never outlives the race, and a `work` that fails after losing it is not
 * reported as an unhandled rejection (its outcome no longer matters to anyone).
 */
export async function within<T>(work: Promise<T>, ms: number, failure: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => undefined);
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(failure()), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
