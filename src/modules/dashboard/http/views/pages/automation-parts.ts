import type { JobProps } from '../../../../jobs/domain/job';
import type { StepRecord } from '../../../../scenarios/domain/execution';
import { endedNotice, noticeBox } from '../components';
import { Html, html } from '../html';
import { readableError } from '../job-errors';

/**
 * Pieces the automation pages (scenario editor, run detail, schedules, jobs) share. Exported for the other pages
 * too: every job id the dashboard shows should be jobLink(id).
 */

/** Fixed texts shown after a redirect of the automation pages (`?notice=`); other keys fall back to noticeBox's. */
const NOTICES: Record<string, { kind: 'ok' | 'info' | 'warn'; text: string }> = {
  'scenario-created': { kind: 'ok', text: 'Scenario created.' },
  'scenario-saved': { kind: 'ok', text: 'Scenario saved.' },
  'scenario-deleted': { kind: 'ok', text: 'Scenario deleted.' },
  'schedule-created': { kind: 'ok', text: 'Schedule created.' },
  'schedule-saved': { kind: 'ok', text: 'Schedule saved.' },
  'schedule-deleted': { kind: 'ok', text: 'Schedule deleted.' },
  'schedule-run-queued': { kind: 'ok', text: 'Run queued: “Last run” links its job. The schedule’s own next run is unchanged.' },
  'run-started': { kind: 'ok', text: 'Scenario run queued. This page refreshes until it has finished.' },
};

/** `jobEnded`: the run a "queued" notice speaks of has ended (the notice then says so, see endedNotice). */
export function automationNotice(key: string | undefined, jobEnded = false): Html {
  const ended = jobEnded ? endedNotice(key) : undefined;
  if (ended) return ended;
  const notice = key ? NOTICES[key] : undefined;
  return notice ? html`<div class="notice ${notice.kind}" role="status">${notice.text}</div>` : noticeBox(key);
}

/** A job id as people see it (its first 8 characters; the whole id on hover), linked to its detail page. */
export function jobLink(id: string): Html {
  return html`<a class="mono" href="/dashboard/jobs/${id}" title="${id}">${id.slice(0, 8)}</a>`;
}

/** Where a scenario run's details are shown. */
export function executionHref(id: string): string {
  return `/dashboard/executions/${id}`;
}

/** The per-step records of a scenario run (empty for other jobs or before it started). */
export function stepRecordsOf(job: JobProps): StepRecord[] {
  return job.type === 'scenario' && Array.isArray(job.result) ? (job.result as StepRecord[]) : [];
}

/**
 * A job's error for people: a failed step is named by its number from 1 ("Step 1 (click) failed: …"), where the
 * API's text counts from 0 as its `steps[i]` do; Chromium's codes and the capture's timeouts in words (job-errors.ts).
 * Where it differs from the API's text, pages show that too, in small print (rawJobError).
 */
export function jobErrorText(job: JobProps): string | null {
  if (job.error === null) return null;
  const failed = stepRecordsOf(job).find((r) => r.status === 'failed');
  if (failed && failed.error !== null) return `Step ${failed.index + 1} (${failed.type}) failed: ${readableError(failed.error).text}`;
  return readableError(job.error).text;
}

/** The raw error as recorded, in small print, under jobErrorText's sentence when that differs from it. */
export function rawJobError(job: JobProps): Html {
  const text = jobErrorText(job);
  return text !== null && text !== job.error ? html`<small class="raw-error">Raw error: <code>${job.error}</code></small>` : html``;
}

/** A job's error in a table cell: the sentence, and the raw text below it in small print. */
export function jobErrorCell(job: JobProps): Html {
  const text = jobErrorText(job);
  return text === null ? html`` : html`${text}${text !== job.error ? html`<br>${rawJobError(job)}` : ''}`;
}

/**
 * A table that never widens the page: on a narrow screen it scrolls inside its own box or, given a `cards` name
 * (its column labels live in dashboard.css under .cards-<name>), each row becomes a card.
 */
export function scrollBox(table: Html, cards?: 'scenarios' | 'schedules' | 'jobs' | 'runs'): Html {
  return html`<div class="table-scroll${cards ? ` cards-on-phone cards-${cards}` : ''}">${table}</div>`;
}

/** The message under an input, tied to it by id (aria-describedby). */
export function fieldError(id: string, message: string | undefined): Html {
  return message ? html`<p class="field-error" id="${id}-error">${message}</p>` : html``;
}

/** Attributes for an input that has an error. */
export function invalidAttrs(id: string, message: string | undefined): Html {
  return message ? html` aria-invalid="true" aria-describedby="${id}-error"` : html``;
}

/** Milliseconds as people read them: "850 ms", "2.4 s", "1 min 5 s". */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The error summary at the top of a form: every problem, each linked to its input. */
export function errorSummary(errors: Array<{ message: string; anchor: string | null }>): Html {
  if (errors.length === 0) return html``;
  return html`<div class="notice error" role="alert" id="form-errors"><strong>${errors.length === 1 ? 'One problem' : `${errors.length} problems`} to fix:</strong>
<ul>${errors.map((e) => html`<li>${e.anchor ? html`<a href="#${e.anchor}">${e.message}</a>` : e.message}</li>`)}</ul></div>`;
}

/** The job kinds as the dashboard names them, from the jobs registry (JobKind.label by name). */
export type KindLabels = ReadonlyMap<string, string>;

/** A job's kind in words ("scenario run"), and "(schedule)" when a schedule asked for it. */
export function jobKindCell(job: Pick<JobProps, 'type' | 'source'>, labels: KindLabels): Html {
  return html`${labels.get(job.type) ?? job.type}${job.source === 'schedule' ? html` <span class="muted">(schedule)</span>` : ''}`;
}
