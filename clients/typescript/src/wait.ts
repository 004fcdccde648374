import type { ScreenshotClient } from './client';
import { ApiError } from './errors';
import type { components } from './schema';

export type Job = components['schemas']['Job'];
export type Execution = components['schemas']['Execution'];

export interface WaitOptions {
  /** Give up after this long (default 5 minutes): a TimeoutError carrying the last state seen. */
  timeoutMs?: number;
}

/** The longest wait the service accepts (GET /jobs/{id}?wait=0..30). */
const MAX_WAIT_SECONDS = 30;
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

export class WaitTimeoutError<T> extends Error {
  constructor(readonly last: T) {
    super('Still not finished when the wait ran out');
    this.name = 'WaitTimeoutError';
  }
}

const ended = (status: string): boolean => status === 'succeeded' || status === 'failed';

/**
 * Polls until `fetchState` reports an ended state. Each request long-polls: the service answers as soon as the
 * work ends or after `wait` seconds, so this makes one request per 30 s at most, not a busy loop.
 */
async function waitUntilEnded<T extends { status: string }>(
  fetchState: (waitSeconds: number) => Promise<T>,
  { timeoutMs = DEFAULT_TIMEOUT_MS }: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const remaining = deadline - Date.now();
    // Rounded up: a wait of 0 would answer at once, and the last second before the deadline would become a busy loop.
    const state = await fetchState(Math.max(0, Math.min(MAX_WAIT_SECONDS, Math.ceil(remaining / 1000))));
    if (ended(state.status)) return state;
    if (Date.now() >= deadline) throw new WaitTimeoutError(state);
  }
}

/** The job once it succeeded or failed (a failed job resolves too: read `status` and `error`). */
export function waitForJob(client: ScreenshotClient, jobId: string, options: WaitOptions = {}): Promise<Job> {
  return waitUntilEnded(async (wait) => {
    const { data, error, response } = await client.GET('/jobs/{id}', { params: { path: { id: jobId }, query: { wait } } });
    if (!data) throw ApiError.from(response, error);
    return data.data;
  }, options);
}

/** The scenario execution once it succeeded or failed. */
export function waitForExecution(client: ScreenshotClient, executionId: string, options: WaitOptions = {}): Promise<Execution> {
  return waitUntilEnded(async (wait) => {
    const { data, error, response } = await client.GET('/executions/{id}', { params: { path: { id: executionId }, query: { wait } } });
    if (!data) throw ApiError.from(response, error);
    return data.data;
  }, options);
}
