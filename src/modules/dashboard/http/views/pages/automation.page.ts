import { DateTime } from 'luxon';
import type { JobProps } from '../../../../jobs/domain/job';
import type { ScenarioProps } from '../../../../scenarios/domain/scenario';
import type { ScheduleProps } from '../../../../schedules/domain/schedule';
import { minutePeriodOf } from '../../../../schedules/domain/schedule-rules';
import type { DashboardViewer } from '../../dashboard-request';
import { accessNotice, dataTable, hiddenHeading, PageInfo, pager } from '../components';
import { badge, Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';
import { automationNotice, executionHref, jobErrorText, jobLink, scrollBox } from './automation-parts';

export interface ScenarioRow {
  scenario: ScenarioProps;
  websiteName: string;
  lastRun: JobProps | null;
}

export function scenariosPage(viewer: DashboardViewer, view: { rows: ScenarioRow[]; page: PageInfo; hasAccess: boolean; notice?: string }): Html {
  const busy = view.rows.some((r) => r.lastRun && (r.lastRun.status === 'queued' || r.lastRun.status === 'running'));
  const rows = view.rows.map(
    ({ scenario: s, websiteName, lastRun }) => html`<tr data-scenario-id="${s.id}">
  <td><strong>${s.name}</strong>${s.description ? html`<br><span class="muted">${s.description}</span>` : ''}</td>
  <td>${websiteName}</td>
  <td>${s.steps.length}</td>
  <td>${lastRun ? html`${badge(lastRun.status)} ${utcTime(lastRun.finishedAt ?? lastRun.createdAt)} <a class="run-details" href="${executionHref(lastRun.id)}">${lastRun.status === 'failed' ? 'What failed' : 'Run details'}</a>${jobErrorText(lastRun) ? html`<br><span class="muted">${jobErrorText(lastRun)}</span>` : ''}` : html`<span class="muted">never run</span>`}</td>
  <td class="actions-cell"><form class="inline" method="post" action="/dashboard/scenarios/${s.id}/run">${csrfField(viewer)}
    <button type="submit"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>Run</button></form>
    <a class="button secondary" href="/dashboard/scenarios/${s.id}/edit">Edit</a></td>
</tr>`,
  );
  return layout(
    viewer,
    'scenarios',
    'Scenarios',
    html`${automationNotice(view.notice)}${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
<div class="page-actions"><a class="button" href="/dashboard/scenarios/new" id="new-scenario">New scenario</a> <a class="button secondary" href="/dashboard/sessions" id="saved-sessions">Saved sessions</a></div>
${
  view.rows.length
    ? html`${scrollBox(dataTable(['Scenario', 'Website', 'Steps', 'Last execution', hiddenHeading('Actions')], rows), 'scenarios')}${pager('/dashboard/scenarios', view.page)}`
    : html`<p class="muted">No scenarios yet. <a href="/dashboard/scenarios/new">Create one here</a>, or with <code>POST /scenarios</code> (see the <a href="/docs">API docs</a>).</p>`
}`,
    { refreshSeconds: busy ? 3 : undefined },
  );
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** When a schedule runs, in words: "every 15 minutes at :05, :20, :35, :50", "hourly at :30", "daily at 09:00". */
export function rhythm(s: Pick<ScheduleProps, 'frequency' | 'time' | 'dayOfWeek'>): string {
  const period = minutePeriodOf(s.frequency);
  const minute = Number(s.time.slice(3));
  if (period === 60) return `hourly at :${s.time.slice(3)}`;
  if (period !== null) {
    const marks = Array.from({ length: 60 / period }, (_, i) => `:${String((minute % period) + i * period).padStart(2, '0')}`);
    return `every ${period} minutes at ${marks.length > 4 ? `${marks.slice(0, 3).join(', ')} …` : marks.join(', ')}`;
  }
  if (s.frequency === 'weekly') return `weekly on ${WEEKDAYS[s.dayOfWeek ?? 0]} at ${s.time}`;
  return `daily at ${s.time}`;
}

/** What a schedule runs: its website's capture, or a scenario (named, linked to its editor). */
export interface ScheduleTarget {
  websiteName: string;
  scenario: { id: number; name: string } | null;
}

function target(t: ScheduleTarget): Html {
  return t.scenario
    ? html`Scenario <a href="/dashboard/scenarios/${t.scenario.id}/edit">${t.scenario.name}</a><br><span class="muted">on ${t.websiteName}</span>`
    : html`Screenshot of ${t.websiteName}`;
}

/** The Run now button: a plain form (works without JavaScript); `then` says where to come back to. */
export function runNowForm(viewer: DashboardViewer, scheduleId: number, hasAccess: boolean, then: 'list' | 'edit'): Html {
  return html`<form class="inline" method="post" action="/dashboard/schedules/${scheduleId}/run">${csrfField(viewer)}<input type="hidden" name="then" value="${then}">
    <button type="submit" class="run-now"${hasAccess ? '' : html` disabled aria-disabled="true"`}>Run now</button></form>`;
}

/** The next run in the schedule's own zone (what the customer set) and in UTC (what the server uses). */
function nextRun(s: ScheduleProps): Html {
  if (!s.nextRunAt) return html`<span class="muted">— (disabled)</span>`;
  const local = DateTime.fromJSDate(s.nextRunAt, { zone: s.timezone });
  return html`<time datetime="${s.nextRunAt.toISOString()}">${local.toFormat('yyyy-LL-dd HH:mm')} ${local.toFormat('ZZZZ')}</time><br><span class="muted">${utcTime(s.nextRunAt)}</span>`;
}

export function schedulesPage(
  viewer: DashboardViewer,
  view: { rows: Array<{ schedule: ScheduleProps } & ScheduleTarget>; page: PageInfo; hasAccess: boolean; notice?: string },
): Html {
  const rows = view.rows.map(
    (row) => html`<tr data-schedule-id="${row.schedule.id}">
  <td><strong>${row.schedule.name}</strong></td>
  <td>${target(row)}</td>
  <td>${rhythm(row.schedule)}<br><span class="muted">${row.schedule.timezone}</span></td>
  <td>${nextRun(row.schedule)}</td>
  <td>${utcTime(row.schedule.lastRunAt, 'never')}${row.schedule.lastJobId ? html`<br><span class="muted">job</span> ${jobLink(row.schedule.lastJobId)}` : ''}</td>
  <td>${badge(row.schedule.enabled ? 'enabled' : 'disabled')}</td>
  <td class="actions-cell">${runNowForm(viewer, row.schedule.id, view.hasAccess, 'list')}<form class="inline" method="post" action="/dashboard/schedules/${row.schedule.id}/${row.schedule.enabled ? 'disable' : 'enable'}">${csrfField(viewer)}
    <button type="submit" class="${row.schedule.enabled ? 'secondary' : ''}">${row.schedule.enabled ? 'Disable' : 'Enable'}</button></form>
    <a class="button secondary" href="/dashboard/schedules/${row.schedule.id}/edit">Edit</a></td>
</tr>`,
  );
  return layout(
    viewer,
    'schedules',
    'Schedules',
    html`${automationNotice(view.notice)}${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
<div class="page-actions"><a class="button" href="/dashboard/schedules/new" id="new-schedule">New schedule</a></div>
${
  view.rows.length
    ? html`${scrollBox(dataTable(['Schedule', 'Runs', 'When', 'Next run', 'Last run', 'Status', hiddenHeading('Actions')], rows), 'schedules')}${pager('/dashboard/schedules', view.page)}`
    : html`<p class="muted">No schedules yet. <a href="/dashboard/schedules/new">Create one here</a>, or with <code>POST /schedules</code> (see the <a href="/docs">API docs</a>).</p>`
}`,
  );
}
