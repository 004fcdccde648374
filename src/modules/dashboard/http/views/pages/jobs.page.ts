import { isFinished, JOB_STATUSES, JobProps } from '../../../../jobs/domain/job';
import { redactStepsForLogs } from '../../../../scenarios/domain/execution';
import type { Step } from '../../../../scenarios/domain/steps';
import type { DashboardViewer } from '../../dashboard-request';
import { dataTable, PageInfo, pager, websitePicker } from '../components';
import type { WebsiteChoices } from '../../../application/dashboard-queries';
import { badge, Html, html, utcTime } from '../html';
import { layout } from '../layout';
import { duration, executionHref, jobErrorCell, jobErrorText, jobKindCell, jobLink, KindLabels, rawJobError, scrollBox } from './automation-parts';

export interface JobFilterForm {
  status?: string;
  type?: string;
  websiteId?: number;
  /** The website picker's search (`site`). */
  site?: string;
}

export interface JobsView {
  jobs: JobProps[];
  names: Map<number, string>;
  websites: WebsiteChoices;
  filter: JobFilterForm;
  page: PageInfo;
  /** Every job kind, name → label (the jobs registry): the type column and the type filter. */
  kinds: KindLabels;
}

function option(value: string, labelText: string, selected: string | undefined): Html {
  return html`<option value="${value}"${value === (selected ?? '') ? html` selected` : ''}>${labelText}</option>`;
}

/** All jobs of the account (captures and scenario runs), newest first, filtered by status, type and website. */
export function jobsPage(viewer: DashboardViewer, view: JobsView): Html {
  const f = view.filter;
  const busy = view.jobs.some((j) => !isFinished(j.status));
  const rows = view.jobs.map(
    (job) => html`<tr data-job-id="${job.id}">
  <td>${jobLink(job.id)}</td>
  <td>${jobKindCell(job, view.kinds)}</td>
  <td>${job.websiteId ? (view.names.get(job.websiteId) ?? `#${job.websiteId}`) : '—'}</td>
  <td>${badge(job.status)}${job.attempts > 1 ? html` <span class="muted">${job.attempts} attempts</span>` : ''}</td>
  <td>${utcTime(job.createdAt)}</td>
  <td>${job.startedAt && job.finishedAt ? duration(job.finishedAt.getTime() - job.startedAt.getTime()) : '—'}</td>
  <td class="error-cell">${jobErrorCell(job)}</td>
  <td>${job.type === 'scenario' ? html`<a href="${executionHref(job.id)}">Run details</a>` : job.resultId ? html`<a href="/dashboard/screenshots/${job.resultId}">Screenshot</a>` : ''}</td>
</tr>`,
  );
  const params = { status: f.status, type: f.type, website_id: f.websiteId };
  const filtered = Boolean(f.status || f.type || f.websiteId);
  return layout(
    viewer,
    'jobs',
    'Jobs',
    html`<form class="toolbar" method="get" action="/dashboard/jobs" id="job-filters">
  <div><label for="filter-status">Status</label><select id="filter-status" name="status">${option('', 'Any status', f.status)}${JOB_STATUSES.map((s) => option(s, s, f.status))}</select></div>
  <div><label for="filter-type">Type</label><select id="filter-type" name="type">${option('', 'Any type', f.type)}${[...view.kinds].map(([name, label]) => option(name, label, f.type))}</select></div>
  ${websitePicker({ select: 'filter-website', search: 'filter-website-search' }, view.websites, f.websiteId, f.site, 'Every website')}
  <div><button type="submit" class="secondary">Filter</button>${filtered ? html` <a href="/dashboard/jobs">Clear</a>` : ''}</div>
</form>
${
  view.jobs.length
    ? html`${scrollBox(dataTable(['Job', 'Type', 'Website', 'Status', 'Queued', 'Took', 'Error', 'Result'], rows), 'jobs')}${pager('/dashboard/jobs', view.page, params)}`
    : html`<p class="muted">${filtered ? 'No jobs match these filters.' : 'No jobs yet: take a screenshot or run a scenario.'}</p>`
}`,
    { refreshSeconds: busy ? 3 : undefined },
  );
}

export interface JobView {
  job: JobProps;
  websiteName: string | null;
  /** The website's address: what a capture job loads (it reads the URL when it runs). */
  websiteUrl: string | null;
  scenarioName: string | null;
  scheduleName: string | null;
  kinds: KindLabels;
}

/** `delayMs` → `delay_ms`: jobs store options in code's names; people know the API's (issue 31). */
function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A stored value with every object key in the API's snake_case (nested options: clip, pdf, steps). */
function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeCase(k), snakeKeys(v)]));
  return value;
}

/** What a job was asked for, without its secrets: sealed fields are named, never shown; fill values are redacted. */
export function visibleOptions(job: JobProps): Array<[string, string]> {
  const options = (job.options ?? {}) as Record<string, unknown>;
  const out: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || key === 'secretsDigest') continue;
    if (key === 'sealedSecrets' || key === 'secrets') {
      out.push(['headers, cookies, http_auth', '******** (encrypted; never shown)']);
    } else if (key === 'steps' && Array.isArray(value)) {
      out.push(['steps', JSON.stringify(snakeKeys(redactStepsForLogs(value as Step[])))]);
    } else {
      out.push([snakeCase(key), typeof value === 'string' ? value : JSON.stringify(snakeKeys(value))]);
    }
  }
  return out;
}

export function jobPage(viewer: DashboardViewer, view: JobView): Html {
  const { job } = view;
  const error = jobErrorText(job);
  const options = visibleOptions(job);
  const took = job.startedAt && job.finishedAt ? duration(job.finishedAt.getTime() - job.startedAt.getTime()) : '—';
  const waited = job.startedAt ? duration(job.startedAt.getTime() - job.createdAt.getTime()) : '—';
  const content = html`<div class="card">
  <p class="run-status">${badge(job.status)} ${jobKindCell(job, view.kinds)}${error ? html` <span class="run-error">${error}</span>` : ''}</p>
  ${error && error !== job.error ? html`<p class="muted">${rawJobError(job)}</p>` : ''}
  <dl class="facts">
    <div><dt>Job id</dt><dd><code class="break" id="job-id">${job.id}</code></dd></div>
    <div><dt>Website</dt><dd>${job.websiteId ? (view.websiteName ?? html`<span class="muted">deleted (#${job.websiteId})</span>`) : '—'}</dd></div>
    ${view.websiteUrl ? html`<div><dt>URL</dt><dd><a class="mono break" id="job-url" href="${view.websiteUrl}" rel="noopener noreferrer nofollow">${view.websiteUrl}</a></dd></div>` : ''}
    <div><dt>Source</dt><dd>${job.source}${job.scheduleId ? html` · <a href="/dashboard/schedules/${job.scheduleId}/edit">${view.scheduleName ?? `schedule #${job.scheduleId}`}</a>` : ''}</dd></div>
    ${job.type === 'scenario' ? html`<div><dt>Scenario</dt><dd>${job.scenarioId && view.scenarioName ? html`<a href="/dashboard/scenarios/${job.scenarioId}/edit">${view.scenarioName}</a>` : html`<span class="muted">deleted</span>`} · <a href="${executionHref(job.id)}">Run details</a></dd></div>` : ''}
    <div><dt>Attempts</dt><dd>${job.attempts}</dd></div>
    <div><dt>Queued</dt><dd>${utcTime(job.createdAt)}</dd></div>
    <div><dt>Started</dt><dd>${utcTime(job.startedAt)} <span class="muted">(waited ${waited})</span></dd></div>
    <div><dt>Finished</dt><dd>${utcTime(job.finishedAt)} <span class="muted">(took ${took})</span></dd></div>
    ${job.idempotencyKey ? html`<div><dt>Idempotency-Key</dt><dd><code class="break">${job.idempotencyKey}</code></dd></div>` : ''}
  </dl>
</div>
${isFinished(job.status) ? '' : html`<p class="muted" role="status">This job is ${job.status}; the page refreshes until it has finished.</p>`}
<h2>Options</h2>
${
  options.length
    ? html`<dl class="facts options">${options.map(([k, v]) => html`<div><dt><code>${k}</code></dt><dd><code class="break">${v}</code></dd></div>`)}</dl>`
    : html`<p class="muted">None: the website's saved options apply.</p>`
}
${
  job.resultId
    ? html`<h2>Screenshot</h2><div class="shots"><a class="shot" href="/dashboard/screenshots/${job.resultId}/image"><img src="/dashboard/screenshots/${job.resultId}/thumbnail" alt="Screenshot ${job.resultId} of this job" width="320" height="200"></a>
<a class="shot-link" href="/dashboard/screenshots/${job.resultId}">Screenshot #${job.resultId}</a></div>`
    : ''
}`;
  return layout(viewer, 'jobs', `Job ${job.id.slice(0, 8)}`, content, { refreshSeconds: isFinished(job.status) ? undefined : 2 });
}
