import type { FillStep, Step, StepType } from './steps';

/**
 * Per-step progress of a scenario execution, as `GET /executions/{id}` shows it (API.md, Jobs and executions):
 * `steps: [{index, type, status, duration_ms, error}]`. Wire names, because records are stored and served as is.
 */

export const STEP_RUN_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped'] as const;
export type StepRunStatus = (typeof STEP_RUN_STATUSES)[number];

export interface StepRecord {
  /** Position of the step in the scenario, from 0 (the same index as `steps[i]` in validation errors). */
  index: number;
  type: StepType;
  /** pending → running → succeeded | failed; steps after a failed one end as skipped. */
  status: StepRunStatus;
  /** Wall time of the step in milliseconds; null until it has finished (or when skipped). */
  duration_ms: number | null;
  /** Why the step failed; null otherwise. Must never contain a fill value (see redactFillValues). */
  error: string | null;
}

/** The records of a run that has not started: every step pending. */
export function initialStepRecords(steps: readonly Step[]): StepRecord[] {
  return steps.map((step, index) => ({ index, type: step.type, status: 'pending', duration_ms: null, error: null }));
}

export function isFinishedStepStatus(status: StepRunStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'skipped';
}

export const REDACTED = '[redacted]';

/**
 * A copy of the step safe to log: `fill.value` (often a password) becomes "[redacted]". Every other step is
 * returned as a copy unchanged. Use it for every log line or error context that includes a step.
 */
export function redactStepForLogs<S extends Step>(step: S): S {
  if (step.type === 'fill') {
    // Built field by field: a stored secret step's sealed value (step-secrets.ts) is not copied either.
    const redacted: FillStep = { type: 'fill', selector: step.selector, value: REDACTED, ...(step.secret !== undefined ? { secret: step.secret } : {}) };
    return redacted as S;
  }
  return { ...step };
}

export function redactStepsForLogs(steps: readonly Step[]): Step[] {
  return steps.map((step) => redactStepForLogs(step));
}

/**
 * A step as pages show it to its owner (a run's timeline, a job's options): a fill value is shown as typed unless
 * it was marked secret ("Secret value" ticked: `secret: true`, stored sealed), which shows as "[redacted]". Logs
 * keep redactStepForLogs, which hides every fill value.
 */
export function stepForDisplay<S extends Step>(step: S): S {
  if (step.type !== 'fill') return { ...step };
  const stored = step as FillStep & { sealed_value?: unknown };
  if (stored.secret === true || stored.sealed_value !== undefined || typeof stored.value !== 'string') return redactStepForLogs(step);
  return { type: 'fill', selector: step.selector, value: step.value, ...(step.secret !== undefined ? { secret: step.secret } : {}) } as S;
}

/**
 * Replaces every occurrence of any non-empty fill value of `steps` in `text`, as typed or percent-encoded
 * (a URL after a form submission), with "[redacted]": longest first, in one pass, so a value containing
 * another is removed whole. For error texts that come from the browser or a page, before they are stored
 * in StepRecord.error or logged. Short values are redacted too: a garbled message beats a leaked secret.
 */
export function redactFillValues(text: string, steps: readonly Step[]): string {
  const secrets = new Set<string>();
  for (const step of steps) {
    if (step.type !== 'fill' || step.value === '') continue;
    secrets.add(step.value);
    secrets.add(encodeURIComponent(step.value));
    secrets.add(encodeURIComponent(step.value).replace(/%20/g, '+'));
  }
  const values = [...secrets].sort((a, b) => b.length - a.length);
  if (values.length === 0) return text;
  // One pass, so "[redacted]" itself is never rewritten by a shorter value such as "d".
  const pattern = new RegExp(values.map(escapeRegExp).join('|'), 'g');
  return text.replace(pattern, REDACTED);
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
