import type { JobProps } from '../../../../jobs/domain/job';
import type { DashboardViewer } from '../../dashboard-request';
import { accessNotice, dataTable, hiddenHeading } from '../components';
import { badge, Html, html, utcTime } from '../html';
import { layout } from '../layout';

export interface UsageWindow {
  used: number;
  limit: number;
  resetsAt: Date;
}

export interface OverviewView {
  hasAccess: boolean;
  usage: { minute: UsageWindow; hour: UsageWindow };
  recentJobs: JobProps[];
  websiteNames: Map<number, string>;
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
  <td class="mono">${job.id.slice(0, 8)}</td>
  <td>${job.type === 'scenario' ? 'scenario run' : 'screenshot'}${job.source === 'schedule' ? html` <span class="muted">(schedule)</span>` : ''}</td>
  <td>${job.websiteId ? (view.websiteNames.get(job.websiteId) ?? `#${job.websiteId}`) : '—'}</td>
  <td>${badge(job.status)}${job.error ? html` <span class="muted">${job.error}</span>` : ''}</td>
  <td>${utcTime(job.createdAt)}</td>
  <td>${job.screenshotId ? html`<a href="/dashboard/screenshots/${job.screenshotId}">View</a>` : ''}</td>
</tr>`,
  );
  return layout(
    viewer,
    'overview',
    'Overview',
    html`${accessNotice(view.hasAccess, a.plan, a.subscriptionStatus)}
<div class="grid">
  <div class="card stat"><div class="label">Plan</div><div class="value">${PLAN_LABEL[a.plan] ?? a.plan}</div>
    <div>Subscription ${badge(a.subscriptionStatus)}</div>
    <div class="muted">${a.expiresAt ? html`expires ${utcTime(a.expiresAt)}` : 'no expiry date'}</div></div>
  ${usageCard('API requests this minute', view.usage.minute, view.hasAccess)}
  ${usageCard('API requests this hour', view.usage.hour, view.hasAccess)}
</div>
<h2>Recent jobs</h2>
${
  view.recentJobs.length
    ? dataTable(['Job', 'Kind', 'Website', 'Status', 'Created', hiddenHeading('Screenshot')], jobRows)
    : html`<p class="muted">No jobs yet. Take a screenshot from the <a href="/dashboard/websites">Websites</a> page or with the API.</p>`
}`,
  );
}
