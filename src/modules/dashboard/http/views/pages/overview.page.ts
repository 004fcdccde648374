import type { RenderProps } from '../../../../renders/domain/render';
import { renderedPanel } from './playground.page';
import type { JobProps } from '../../../../jobs/domain/job';
import type { DashboardViewer } from '../../dashboard-request';
import type { UsageBucket, UsageSeries } from '../../../application/dashboard-queries';
import { barChart } from '../charts';
import { accessNotice, dataTable, hiddenHeading, publicUrlWarning, tableBox } from '../components';
import { badge, Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';
import type { FormField } from '../../website-form';
import { CaptureResult, captureResultPanel, FormState } from './website-form.page';
import { jobErrorText, jobKindCell, KindLabels } from './automation-parts';
import { sizeText } from './screenshots.page';

export interface UsageWindow {
  used: number;
  limit: number;
  resetsAt: Date;
}

export interface OverviewView {
  hasAccess: boolean;
  usage: { minute: UsageWindow; hour: UsageWindow };
  recentJobs: JobProps[];
  /** Every job kind, name → label (the jobs registry). */
  kinds: KindLabels;
  websiteNames: Map<number, string>;
  /** The last 24 hours by hour and the last 30 days by day (UTC). */
  hourly: UsageSeries;
  daily: UsageSeries;
  /** Bytes of every screenshot the account keeps. */
  storedBytes: number;
  /** Where alert links point while PUBLIC_URL is unset (a warning is shown); null when it is set. */
  alertLinksBase: string | null;
  /** The "Capture a URL" box: what was typed, its error, and the capture it started. */
  capture: { state: FormState; result: CaptureResult | null; rendered?: RenderProps | null };
}

/** The box's one field (so the form layer places its errors). */
export const CAPTURE_URL_FIELDS: readonly FormField[] = [{ name: 'url', label: 'Page address', kind: 'text', section: 'website', required: true }];

/**
 * The fastest way to a first screenshot: one field and a button. The playground's machinery takes it (a render,
 * as GET /render makes), and the result appears here; with script the form posts in place.
 */
function captureUrlBox(viewer: DashboardViewer, view: OverviewView): Html {
  const { state, result, rendered } = view.capture;
  const errors = [...state.errors.values()].flat();
  const bad = errors.length ? html` aria-invalid="true" aria-describedby="e-url"` : html``;
  return html`<section class="card capture-url" id="capture-url" aria-labelledby="capture-url-heading">
  <h2 id="capture-url-heading">Capture a URL</h2>
  <form method="post" action="/dashboard/capture" class="capture-url-form" data-in-place novalidate>${csrfField(viewer)}
    <label for="capture-url-input">Page address</label>
    <div class="capture-url-row"><input type="text" inputmode="url" id="capture-url-input" name="url" value="${state.values.get('url') ?? ''}" placeholder="https://example.com/" autocomplete="url" spellcheck="false"${bad}>
    <button type="submit" id="capture-url-button"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>Capture</button></div>
    ${errors.length ? html`<p class="field-error" id="e-url" role="alert">${errors.join(' · ')}</p>` : ''}
    <p class="hint">With the default options (1280×800 PNG). Every option is in the <a href="/dashboard/playground">playground</a>; to capture a page on a schedule, <a href="/dashboard/websites/new">add it as a website</a>.</p>
  </form>
  ${rendered ? renderedPanel(rendered) : captureResultPanel(result)}
</section>`;
}

function bytesText(bytes: number): string {
  return bytes === 0 ? '0' : sizeText(bytes);
}

function bucketName(b: UsageBucket, hourly: boolean): string {
  const iso = b.start.toISOString();
  return hourly ? `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00 UTC` : `${iso.slice(0, 10)} (UTC)`;
}

function totals(series: UsageSeries) {
  return series.buckets.reduce((t, b) => ({ jobs: t.jobs + b.jobs, failures: t.failures + b.failures, bytes: t.bytes + b.storedBytes }), {
    jobs: 0,
    failures: 0,
    bytes: 0,
  });
}

/** One window's charts (jobs with their failures; storage added), its totals in words and its data as a table. */
function usagePanel(key: string, heading: string, series: UsageSeries): Html {
  const hourly = series.bucketSeconds < 86400;
  const sum = totals(series);
  const every = hourly ? 6 : 7;
  const last = series.buckets.length - 1;
  const axisLabel = (b: UsageBucket, i: number) =>
    (last - i) % every === 0 ? (hourly ? `${b.start.toISOString().slice(11, 13)}:00` : b.start.toISOString().slice(5, 10)) : null;
  const summary = `${sum.jobs} job${sum.jobs === 1 ? '' : 's'}, ${sum.failures} failed, ${bytesText(sum.bytes)} of screenshots stored`;
  const jobsChart = barChart({
    id: `${key}-jobs`,
    title: `Captures and failures, ${heading.toLowerCase()}`,
    desc: `${hourly ? 'Hourly' : 'Daily'} bars, UTC: ${sum.jobs} captures and scenario runs, ${sum.failures} of them failed (red).`,
    formatValue: (v) => String(Math.round(v * 10) / 10),
    bars: series.buckets.map((b, i) => ({
      axisLabel: axisLabel(b, i),
      label: `${bucketName(b, hourly)}: ${b.jobs} job${b.jobs === 1 ? '' : 's'}, ${b.failures} failed`,
      parts: [
        [b.jobs - b.failures, 'bar-ok'],
        [b.failures, 'bar-fail'],
      ],
    })),
  });
  const storageChart = barChart({
    id: `${key}-storage`,
    title: `Storage added, ${heading.toLowerCase()}`,
    desc: `${hourly ? 'Hourly' : 'Daily'} bars, UTC: ${bytesText(sum.bytes)} of screenshots taken in this time and still kept.`,
    formatValue: bytesText,
    bytes: true,
    bars: series.buckets.map((b, i) => ({
      axisLabel: axisLabel(b, i),
      label: `${bucketName(b, hourly)}: ${bytesText(b.storedBytes)} stored`,
      parts: [[b.storedBytes, 'bar-storage']],
    })),
  });
  const rows = series.buckets.map(
    (b) => html`<tr><th scope="row">${bucketName(b, hourly)}</th><td>${b.jobs}</td><td>${b.failures}</td><td>${bytesText(b.storedBytes)}</td></tr>`,
  );
  return html`<section class="card usage-panel" id="usage-${key}" aria-labelledby="usage-${key}-heading">
  <h3 id="usage-${key}-heading">${heading}</h3>
  <p class="usage-summary">${summary}.</p>
  <div class="legend" aria-hidden="true"><span class="key key-ok"></span>succeeded or running <span class="key key-fail"></span>failed</div>
  ${jobsChart}
  <div class="legend" aria-hidden="true"><span class="key key-storage"></span>storage added</div>
  ${storageChart}
  <details class="chart-data"><summary>Show the numbers</summary>
  ${tableBox(`${heading}, as a table`, html`<table><thead><tr><th scope="col">${hourly ? 'Hour' : 'Day'}</th><th scope="col">Jobs</th><th scope="col">Failed</th><th scope="col">Stored</th></tr></thead><tbody>${rows}</tbody></table>`)}
  </details>
</section>`;
}

const PLAN_LABEL: Record<string, string> = { free: 'Free', starter: 'Starter', pro: 'Pro', business: 'Business' };

/** From this share of the limit on, the bar turns amber: the next burst may be refused. */
const NEAR_LIMIT = 0.8;

function usageCard(label: string, window: UsageWindow, hasAccess: boolean): Html {
  const limited = hasAccess && window.used >= window.limit;
  const near = hasAccess && !limited && window.used >= NEAR_LIMIT * window.limit;
  const state = limited ? html` class="limited"` : near ? html` class="near"` : '';
  return html`<div class="card stat${limited ? ' limited' : ''}">
  <div class="label">${label}</div>
  <div class="value">${hasAccess ? html`${window.used} <span class="muted">/ ${window.limit}</span>` : '—'}</div>
  <progress${state} max="${Math.max(1, window.limit)}" value="${Math.min(window.used, window.limit)}" aria-label="${label}: ${window.used} of ${window.limit} used"></progress>
  ${limited ? html`<div class="limit-note" role="status">Rate limited: API requests are answered 429 until ${utcTime(window.resetsAt)}.</div>` : html`<div class="muted">resets ${utcTime(window.resetsAt)}</div>`}
</div>`;
}

export function overviewPage(viewer: DashboardViewer, view: OverviewView): Html {
  const a = viewer.account;
  const jobRows = view.recentJobs.map(
    (job) => html`<tr>
  <td><a class="mono" href="/dashboard/jobs/${job.id}" title="${job.id}">${job.id.slice(0, 8)}</a></td>
  <td>${jobKindCell(job, view.kinds)}</td>
  <td>${job.websiteId ? (view.websiteNames.get(job.websiteId) ?? `#${job.websiteId}`) : '—'}</td>
  <td>${badge(job.status)}${job.error ? html` <span class="muted">${jobErrorText(job)}</span>` : ''}</td>
  <td>${utcTime(job.createdAt)}</td>
  <td class="actions-cell">${job.resultId ? html`<a href="/dashboard/screenshots/${job.resultId}">View</a>` : ''}${
    job.type === 'scenario' ? html`${job.resultId ? ' · ' : ''}<a href="/dashboard/executions/${job.id}">Run details</a>` : ''
  }</td>
</tr>`,
  );
  return layout(
    viewer,
    'overview',
    'Overview',
    html`${accessNotice(view.hasAccess, a.plan, a.subscriptionStatus)}
${publicUrlWarning(view.alertLinksBase)}
${captureUrlBox(viewer, view)}
<div class="grid">
  <div class="card stat"><div class="label">Plan</div><div class="value">${PLAN_LABEL[a.plan] ?? a.plan}</div>
    <div>Subscription ${badge(a.subscriptionStatus)}</div>
    <div class="muted">${a.expiresAt ? html`expires ${utcTime(a.expiresAt)}` : 'no expiry date'}</div></div>
  ${usageCard('API requests this minute', view.usage.minute, view.hasAccess)}
  ${usageCard('API requests this hour', view.usage.hour, view.hasAccess)}
</div>
<h2>Usage</h2>
<div id="usage" data-refresh-when-job-ends>
<p class="muted">Screenshots kept: ${bytesText(view.storedBytes)} in all.</p>
<div class="usage">
${usagePanel('24h', 'Last 24 hours', view.hourly)}
${usagePanel('30d', 'Last 30 days', view.daily)}
</div>
</div>
<h2>Recent jobs</h2>
<div id="recent-jobs" data-refresh-when-job-ends>${
      view.recentJobs.length
        ? tableBox('Recent jobs', dataTable(['Job', 'Kind', 'Website', 'Status', 'Created', hiddenHeading('Screenshot and run')], jobRows), 'job-cards')
        : html`<p class="muted">No jobs yet. <a href="#capture-url-input">Capture a URL</a> above to see your first screenshot in seconds.</p>`
    }</div>`,
  );
}
