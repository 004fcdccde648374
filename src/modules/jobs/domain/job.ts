/**
 * Jobs (API.md, Jobs and executions): captures, scenario runs, renders, queued → running → succeeded | failed. The
 * jobs table is the durable record whatever transport carries the job. What a job does is its kind's business:
 * each kind is declared by its own context with its runner (application/job-kinds.ts), checked at boot.
 */
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** The name of the job's kind (application/job-kinds.ts): `screenshot`, `scenario`, `render`, … an open set. */
export type JobType = string;
/** Who asked for the job: a client of the API, a schedule's occurrence, or a person in the dashboard. */
export const JOB_SOURCES = ['api', 'schedule', 'dashboard'] as const;
export type JobSource = (typeof JOB_SOURCES)[number];

/** Infrastructure failures (browser crash, worker killed) are retried up to this many attempts in all. */
export const MAX_JOB_ATTEMPTS = 3;

/**
 * What a job carries for its handler (a capture: its CaptureOptions; a scenario run: the steps it was asked with),
 * stored as JSON. Opaque here: only the job type's own context gives it a type (JobProps<CaptureJobOptions>).
 */
export type JobPayload = object;

export interface JobProps<P extends JobPayload = JobPayload> {
  id: string;
  type: JobType;
  accountId: number;
  websiteId: number | null;
  status: JobStatus;
  source: JobSource;
  /** The payload of its type (see JobPayload); named options as in the jobs table. */
  options: P;
  idempotencyKey: string | null;
  attempts: number;
  error: string | null;
  /**
   * What a succeeded job produced, as an id in its kind's own terms (a capture's screenshot, a scenario run's final
   * shot); opaque here. Stored in the `screenshot_id` column and shown as `screenshot_id` by GET /jobs (the spec's name).
   */
  resultId: number | null;
  scenarioId: number | null;
  scheduleId: number | null;
  /** Scenario executions: the per-step records. */
  result: unknown;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export function isFinished(status: JobStatus): boolean {
  return status === 'succeeded' || status === 'failed';
}

/** What an Idempotency-Key stands for: the kind of job, its target and (for captures) the options asked for. */
export type JobRequest = Pick<JobProps, 'type' | 'websiteId' | 'options' | 'source'> & { scenarioId?: number | null; scheduleId?: number | null };

/** JSON with object keys sorted, so options read back from a JSON column compare equal to the request's. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Whether a request that reuses an Idempotency-Key is a retry of the one that made `existing`. A key reused for
 * another website, another scenario, another kind of job or other capture options is a client bug, answered
 * with 409 rather than with an unrelated job. `samePayload` false (the kind's samePayloadOnRetry): the payload is a
 * snapshot taken when it was asked for (a scenario run's steps), so a retry after an edit is still the same request.
 */
export function isSameJobRequest(existing: JobRequest, requested: JobRequest, samePayload = true): boolean {
  if (existing.type !== requested.type || (existing.scenarioId ?? null) !== (requested.scenarioId ?? null)) return false;
  // A client's key never stands for a schedule's occurrence (keys share one namespace per account).
  if (existing.source !== requested.source || (existing.scheduleId ?? null) !== (requested.scheduleId ?? null)) return false;
  if (existing.websiteId !== requested.websiteId) return false;
  return !samePayload || canonical(comparable(existing.options)) === canonical(comparable(requested.options));
}

/**
 * Options as two requests are compared: sealed (encrypted) fields differ on every seal — a fresh IV — so they are
 * left out; whoever seals a field stores a keyed digest beside it for this comparison.
 */
function comparable(options: JobRequest['options']): JobRequest['options'] {
  return Object.fromEntries(Object.entries(options ?? {}).filter(([key]) => !key.startsWith('sealed')));
}
