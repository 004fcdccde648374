import { readableError } from '../job-errors';
import { isFinished, JobProps } from '../../../../jobs/domain/job';
import { stepForDisplay, StepRecord } from '../../../../scenarios/domain/execution';
import type { Step } from '../../../../scenarios/domain/steps';
import type { DashboardViewer } from '../../dashboard-request';
import { fieldsOf } from '../../step-form';
import { badge, Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';
import { automationNotice, duration, jobErrorText, jobLink, rawJobError, stepRecordsOf } from './automation-parts';

export interface ExecutionView {
  job: JobProps;
  /** The run's screenshots (ids, oldest first). */
  screenshotIds: number[];
  scenario: { id: number; name: string } | null;
  websiteName: string | null;
  hasAccess: boolean;
  notice?: string;
}

/** Which screenshot belongs to which step, and which one is the run's final (or failure) screenshot. */
export interface ShotPlacement {
  byStep: Map<number, number>;
  final: number | null;
  /** Screenshots that could not be placed (never expected; shown rather than hidden). */
  other: number[];
}

/**
 * Screenshots are stored in the order they are taken: one per succeeded `screenshot` step, in step order, then
 * the final one — unless the last step's own shot is the final screenshot (then the job's screenshot_id names it).
 */
export function placeShots(job: JobProps, records: readonly StepRecord[], ids: readonly number[]): ShotPlacement {
  const shots = [...ids].sort((a, b) => a - b);
  const shotSteps = records.filter((r) => r.type === 'screenshot' && r.status === 'succeeded').map((r) => r.index);
  if (shots.length < shotSteps.length) return { byStep: new Map(), final: null, other: shots };
  const byStep = new Map(shotSteps.map((index, j) => [index, shots[j]]));
  const rest = shots.slice(shotSteps.length);
  let final = rest.length > 0 ? rest[rest.length - 1] : null;
  if (final === null && job.resultId !== null && shots.includes(job.resultId)) final = job.resultId;
  return { byStep, final, other: rest.slice(0, -1) };
}

function thumb(id: number, alt: string): Html {
  return html`<a class="shot" href="/dashboard/screenshots/${id}/image" data-screenshot-id="${id}"><img src="/dashboard/screenshots/${id}/thumbnail" alt="${alt}" width="200" height="125" loading="lazy"></a>
<a class="shot-link" href="/dashboard/screenshots/${id}">Screenshot #${id}</a>`;
}

/** A step's fields in one line (a secret `fill` value is never shown). */
export function stepSummary(step: Step | undefined): Html {
  if (!step) return html``;
  const safe = stepForDisplay(step) as unknown as Record<string, unknown>;
  const parts = fieldsOf(step.type)
    .filter(([key]) => safe[key] !== undefined)
    .map(([key]) => html`<span class="kv"><span class="muted">${key}</span> <code>${String(safe[key])}</code></span>`);
  return html`${parts}`;
}

function timing(job: JobProps): Html {
  const took = job.startedAt && job.finishedAt ? duration(job.finishedAt.getTime() - job.startedAt.getTime()) : '—';
  return html`<dl class="facts">
  <div><dt>Queued</dt><dd>${utcTime(job.createdAt)}</dd></div>
  <div><dt>Started</dt><dd>${utcTime(job.startedAt)}</dd></div>
  <div><dt>Finished</dt><dd>${utcTime(job.finishedAt)}</dd></div>
  <div><dt>Took</dt><dd>${took}</dd></div>
  <div><dt>Attempts</dt><dd>${job.attempts}</dd></div>
  <div><dt>Job</dt><dd>${jobLink(job.id)}</dd></div>
</dl>`;
}

/** How opening the website went: it comes before the steps, so any step that ran means it succeeded. */
function openingOf(job: JobProps, records: readonly StepRecord[]): { status: string; error: string | null } {
  if (job.error?.startsWith('Opening the website failed')) return { status: 'failed', error: readableError(job.error).text };
  if (records.some((r) => r.status !== 'pending' && r.status !== 'skipped') || job.status === 'succeeded') return { status: 'succeeded', error: null };
  if (job.status === 'failed') return { status: 'skipped', error: null };
  return { status: job.status === 'running' ? 'running' : 'pending', error: null };
}

/** One scenario run: its steps as a timeline (status, duration, error, the step's screenshot) and its final shot. */
export function executionPage(viewer: DashboardViewer, view: ExecutionView): Html {
  const { job } = view;
  const records = stepRecordsOf(job);
  const steps = (job.options as { steps?: Step[] }).steps ?? [];
  const place = placeShots(job, records, view.screenshotIds);
  const error = jobErrorText(job);
  const failedStep = records.find((r) => r.status === 'failed');
  const items = records.map((r) => {
    const shot = place.byStep.get(r.index);
    const isFinalToo = shot !== undefined && shot === place.final;
    return html`<li class="tl-step tl-${r.status}" id="step-${r.index}" data-step-index="${r.index}">
  <div class="tl-head"><strong>Step ${r.index + 1}</strong> <code>${r.type}</code> ${badge(r.status)} <span class="muted">${duration(r.duration_ms)}</span></div>
  <div class="tl-detail">${stepSummary(steps[r.index])}</div>
  ${r.error ? html`<p class="field-error">${r.error}</p>` : ''}
  ${shot !== undefined ? html`<div class="shots">${thumb(shot, `Screenshot of step ${r.index + 1}${isFinalToo ? ' (also the final screenshot)' : ''}`)}${isFinalToo ? html`<span class="muted">Also the run's final screenshot.</span>` : ''}</div>` : ''}
</li>`;
  });
  const finalSeparate = place.final !== null && ![...place.byStep.values()].includes(place.final);
  const finalLabel =
    job.status === 'failed'
      ? failedStep
        ? `Failure screenshot: the page when step ${failedStep.index + 1} failed`
        : 'Failure screenshot'
      : 'Final screenshot';
  const finalItem = finalSeparate
    ? html`<li class="tl-step tl-final" id="final-screenshot"><div class="tl-head"><strong>${finalLabel}</strong></div><div class="shots">${thumb(place.final as number, finalLabel)}</div></li>`
    : '';
  const otherItem = place.other.length
    ? html`<li class="tl-step" id="other-screenshots"><div class="tl-head"><strong>Other screenshots of this run</strong></div><div class="shots">${place.other.map((id) => thumb(id, `Screenshot ${id} of this run`))}</div></li>`
    : '';
  const open = openingOf(job, records);
  const title = view.scenario ? `Run of “${view.scenario.name}”` : 'Scenario run';
  const content = html`${automationNotice(view.notice, isFinished(job.status))}
<div class="card">
  <p class="run-status">${badge(job.status)} ${error ? html`<span class="run-error">${error}</span>` : ''}</p>
  ${error && error !== job.error ? html`<p class="muted">${rawJobError(job)}</p>` : ''}
  <p>${view.scenario ? html`Scenario <a href="/dashboard/scenarios/${view.scenario.id}/edit">${view.scenario.name}</a>` : html`<span class="muted">Scenario deleted</span>`}${view.websiteName ? html` on <strong>${view.websiteName}</strong>` : ''} · execution <code class="break">${job.id}</code></p>
  ${timing(job)}
  ${
    view.scenario
      ? html`<form class="inline" method="post" action="/dashboard/scenarios/${view.scenario.id}/run">${csrfField(viewer)}<input type="hidden" name="then" value="details"><button type="submit" class="secondary"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>Run again</button></form>`
      : ''
  }
</div>
<h2>Timeline</h2>
${isFinished(job.status) ? '' : html`<p class="muted" role="status">This run is ${job.status}; the page refreshes until it has finished.</p>`}
<ol class="timeline">
  <li class="tl-step tl-${open.status}" id="open-website"><div class="tl-head"><strong>Open the website</strong> ${badge(open.status)}</div>${open.error ? html`<p class="field-error">${open.error}</p>` : ''}</li>
  ${items}${finalItem}${otherItem}
</ol>`;
  return layout(viewer, 'scenarios', title, content, { refreshSeconds: isFinished(job.status) ? undefined : 2 });
}
