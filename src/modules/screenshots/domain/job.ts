/**
 * Capture jobs (API.md, Jobs and executions): queued → running → succeeded | failed. The jobs table is
 * the durable record whatever transport carries the job; a job yields at most one screenshot.
 */
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type JobType = 'screenshot' | 'scenario';
export type JobSource = 'api' | 'schedule';

/** Infrastructure failures (browser crash, worker killed) are retried up to this many attempts in all. */
export const MAX_JOB_ATTEMPTS = 3;

export interface CaptureOptions {
  fullPage?: boolean;
  viewportWidth?: number;
  viewportHeight?: number;
  delayMs?: number;
  waitForSelector?: string;
  deviceScaleFactor?: number;
  hideSelectors?: string[];
  darkMode?: boolean;
}

export interface JobProps {
  id: string;
  type: JobType;
  accountId: number;
  websiteId: number | null;
  status: JobStatus;
  source: JobSource;
  options: CaptureOptions;
  idempotencyKey: string | null;
  attempts: number;
  error: string | null;
  screenshotId: number | null;
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
