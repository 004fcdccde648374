import { DateTime } from 'luxon';
import type { ScheduleProps } from '../../../../schedules/domain/schedule';
import { FREQUENCIES, Frequency } from '../../../../schedules/domain/schedule-rules';
import { runNowForm } from './automation.page';
import type { DashboardViewer } from '../../dashboard-request';
import type { WebsiteChoices } from '../../../application/dashboard-queries';
import { accessNotice, SessionChoice, sessionSelect, websiteChooser } from '../components';
import { Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';
import { automationNotice, errorSummary, fieldError, invalidAttrs, jobLink } from './automation-parts';

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The frequencies as the select shows them (the values are the API's). */
const FREQUENCY_LABELS: Record<Frequency, string> = {
  every_5_minutes: 'Every 5 minutes',
  every_15_minutes: 'Every 15 minutes',
  every_30_minutes: 'Every 30 minutes',
  hourly: 'Hourly',
  daily: 'Daily',
  weekly: 'Weekly',
};
const FREQUENCY_ORDER: readonly Frequency[] = ['every_5_minutes', 'every_15_minutes', 'every_30_minutes', 'hourly', 'daily', 'weekly'];

export interface ScheduleForm {
  name: string;
  websiteId: string;
  /** '' = capture the website. */
  scenarioId: string;
  /** '' = no session of its own (the scenario's or the website's). */
  sessionId: string;
  frequency: string;
  time: string;
  timezone: string;
  dayOfWeek: string;
  enabled: boolean;
}

export interface ScheduleEditorView {
  schedule: ScheduleProps | null;
  form: ScheduleForm;
  /** The website chooser's choices (at most PICKER_LIMIT matches of `site`, the chosen one always among them). */
  websites: WebsiteChoices;
  /** What the website chooser's search holds. */
  site: string;
  scenarios: Array<{ id: number; name: string }>;
  /** The account's saved sessions, for session_id. */
  sessions: readonly SessionChoice[];
  errors: Map<string, string>;
  /** The next runs of the saved schedule (computed by the entity), and whether it is paused (then: once enabled). */
  upcoming: { runs: Date[]; paused: boolean } | null;
  /** Saving needs API access, as on the API. */
  hasAccess: boolean;
  notice?: string;
}

let zoneNames: string[] | null = null;
/** Every IANA zone the runtime knows, for the time zone field's suggestions. */
function zones(): string[] {
  if (zoneNames === null) {
    const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
    const names = typeof intl.supportedValuesOf === 'function' ? intl.supportedValuesOf('timeZone') : [];
    zoneNames = ['UTC', ...names.filter((n) => n !== 'UTC')];
  }
  return zoneNames;
}

/** An instant in the schedule's zone ("Fri 2031-01-17 07:30 GMT+1") and in UTC. */
function runRow(at: Date, zone: string, i: number): Html {
  const local = DateTime.fromJSDate(at, { zone });
  const iso = at.toISOString();
  return html`<tr><td>${i + 1}</td><td><time datetime="${iso}">${local.toFormat('ccc yyyy-LL-dd HH:mm')} ${local.toFormat('ZZZZ')}</time></td><td>${utcTime(at)}</td></tr>`;
}

function upcomingRuns(view: ScheduleEditorView): Html {
  if (!view.schedule || !view.upcoming) return html``;
  const zone = view.schedule.timezone;
  return html`<section class="card" id="next-runs" aria-labelledby="next-runs-title">
  <h2 id="next-runs-title">Next ${view.upcoming.runs.length} runs</h2>
  ${view.upcoming.paused ? html`<p class="notice warn">This schedule is disabled: it runs at these times once it is enabled again.</p>` : ''}
  <div class="table-scroll"><table><thead><tr><th scope="col">#</th><th scope="col">In ${zone}</th><th scope="col">In UTC</th></tr></thead>
  <tbody>${view.upcoming.runs.map((at, i) => runRow(at, zone, i))}</tbody></table></div>
  ${view.schedule.lastRunAt ? html`<p class="muted">Last run ${utcTime(view.schedule.lastRunAt)}${view.schedule.lastJobId ? html` · job ${jobLink(view.schedule.lastJobId)}` : ''}</p>` : ''}
</section>`;
}

export function scheduleEditorPage(viewer: DashboardViewer, view: ScheduleEditorView): Html {
  const s = view.schedule;
  const f = view.form;
  const e = view.errors;
  const action = s ? `/dashboard/schedules/${s.id}/edit` : '/dashboard/schedules/new';
  const ids: Record<string, string> = {
    name: 'schedule-name',
    website_id: 'schedule-website',
    scenario_id: 'schedule-scenario',
    session_id: 'schedule-session',
    frequency: 'schedule-frequency',
    time: 'schedule-time',
    timezone: 'schedule-timezone',
    day_of_week: 'schedule-day',
    enabled: 'schedule-enabled',
  };
  const scenarioKnown = f.scenarioId === '' || view.scenarios.some((sc) => String(sc.id) === f.scenarioId);
  const content = html`${automationNotice(view.notice)}${errorSummary([...e].map(([field, message]) => ({ message, anchor: ids[field] ?? null })))}
${s ? html`<div class="page-actions">${runNowForm(viewer, s.id, view.hasAccess, 'edit')}<a class="button danger" href="/dashboard/schedules/${s.id}/delete" id="delete-schedule">Delete…</a></div>` : ''}${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
<div class="editor-columns">
<form method="post" action="${action}" class="card editor" id="schedule-form" novalidate>
${csrfField(viewer)}
<button type="submit" class="default-submit" tabindex="-1" aria-hidden="true">Save</button>
<div class="field">
  <label for="schedule-name">Name</label>
  <input type="text" id="schedule-name" name="name" value="${f.name}" maxlength="255"${invalidAttrs('schedule-name', e.get('name'))}>
  ${fieldError('schedule-name', e.get('name'))}
</div>
<div class="field">
  <label for="schedule-website">Website</label>
  ${websiteChooser({ select: 'schedule-website', search: 'schedule-website-search' }, view.websites, f.websiteId, view.site, invalidAttrs('schedule-website', e.get('website_id')))}
  <p class="hint">Each run takes a screenshot of it with its saved options (paused websites are skipped).</p>
  ${fieldError('schedule-website', e.get('website_id'))}
</div>
<div class="field">
  <label for="schedule-scenario">Or run a scenario</label>
  <select id="schedule-scenario" name="scenario_id"${invalidAttrs('schedule-scenario', e.get('scenario_id'))}>
    <option value=""${f.scenarioId === '' ? html` selected` : ''}>No: take a screenshot of the website</option>
    ${view.scenarios.map((sc) => html`<option value="${sc.id}"${String(sc.id) === f.scenarioId ? html` selected` : ''}>${sc.name}</option>`)}
    ${scenarioKnown ? '' : html`<option value="${f.scenarioId}" selected>Scenario #${f.scenarioId}</option>`}
  </select>
  <p class="hint">A scenario runs its steps on its own website, which then replaces the website above.</p>
  ${fieldError('schedule-scenario', e.get('scenario_id'))}
</div>
<div class="field">
  <label for="schedule-session">Saved session</label>
  ${sessionSelect({ id: 'schedule-session', name: 'session_id' }, view.sessions, f.sessionId, 'None: the scenario’s or the website’s', invalidAttrs('schedule-session', e.get('session_id')))}
  <p class="hint">Each run starts logged in with it, whatever the scenario or the website names (see <a href="/dashboard/sessions">Sessions</a>).</p>
  ${fieldError('schedule-session', e.get('session_id'))}
</div>
<div class="field-row">
  <div class="field">
    <label for="schedule-frequency">Frequency</label>
    <select id="schedule-frequency" name="frequency"${invalidAttrs('schedule-frequency', e.get('frequency'))}>
      ${FREQUENCY_ORDER.map((q) => html`<option value="${q}"${q === f.frequency ? html` selected` : ''}>${FREQUENCY_LABELS[q]}</option>`)}
      ${f.frequency !== '' && !(FREQUENCIES as readonly string[]).includes(f.frequency) ? html`<option value="${f.frequency}" selected>${f.frequency}</option>` : ''}
    </select>
    ${fieldError('schedule-frequency', e.get('frequency'))}
  </div>
  <div class="field">
    <label for="schedule-time">Time <span class="muted">(HH:MM)</span></label>
    <input type="text" id="schedule-time" name="time" value="${f.time}" inputmode="numeric" placeholder="07:30" maxlength="5" autocomplete="off"${invalidAttrs('schedule-time', e.get('time'))}>
    <p class="hint">24-hour, in the time zone below. Hourly and every N minutes: only the minutes count (00:05 every 15 minutes runs at :05, :20, :35, :50).</p>
    ${fieldError('schedule-time', e.get('time'))}
  </div>
</div>
<div class="field">
  <label for="schedule-timezone">Time zone</label>
  <input type="text" id="schedule-timezone" name="timezone" value="${f.timezone}" list="time-zones" autocomplete="off" spellcheck="false"${s ? '' : html` data-guess-zone`}${invalidAttrs('schedule-timezone', e.get('timezone'))}>
  <datalist id="time-zones">${zones().map((z) => html`<option value="${z}">`)}</datalist>
  <p class="hint">An IANA name such as Europe/Berlin, America/New_York or UTC. Daylight saving time is followed.</p>
  ${fieldError('schedule-timezone', e.get('timezone'))}
</div>
<div class="field">
  <label for="schedule-day">Day of the week <span class="muted">(weekly)</span></label>
  <select id="schedule-day" name="day_of_week"${invalidAttrs('schedule-day', e.get('day_of_week'))}>
    <option value=""${f.dayOfWeek === '' ? html` selected` : ''}>${s ? 'Default: the weekday it was created on' : 'Default: today’s weekday'}</option>
    ${WEEKDAYS.map((d, i) => html`<option value="${i}"${String(i) === f.dayOfWeek ? html` selected` : ''}>${d}</option>`)}
  </select>
  ${fieldError('schedule-day', e.get('day_of_week'))}
</div>
<div class="field check">
  <input type="checkbox" id="schedule-enabled" name="enabled" value="true"${f.enabled ? html` checked` : ''}>
  <label for="schedule-enabled">Enabled</label>
  ${fieldError('schedule-enabled', e.get('enabled'))}
</div>
<div class="form-actions">
  <button type="submit" id="save-schedule"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>${s ? 'Save schedule' : 'Create schedule'}</button>
  <a href="/dashboard/schedules">Cancel</a>
</div>
</form>
${upcomingRuns(view)}
</div>`;
  return layout(viewer, 'schedules', s ? `Edit schedule “${s.name}”` : 'New schedule', content);
}

export function deleteSchedulePage(viewer: DashboardViewer, schedule: ScheduleProps): Html {
  return layout(
    viewer,
    'schedules',
    'Delete schedule?',
    html`<div class="card">
  <p>Delete the schedule <strong>${schedule.name}</strong>? It will not run again; screenshots it took stay in the gallery. This cannot be undone.</p>
  <form method="post" action="/dashboard/schedules/${schedule.id}/delete">${csrfField(viewer)}
    <button class="danger" type="submit" id="confirm-delete">Delete schedule</button>
    <a class="button secondary" href="/dashboard/schedules/${schedule.id}/edit">Cancel</a>
  </form>
</div>`,
  );
}
