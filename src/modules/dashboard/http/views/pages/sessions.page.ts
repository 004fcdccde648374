import type { ScenarioProps } from '../../../../scenarios/domain/scenario';
import type { SavedSessionProps } from '../../../../sessions/domain/saved-session';
import { cookieDomains, sessionOrigins } from '../../../../../shared/domain/session-state';
import type { DashboardViewer } from '../../dashboard-request';
import { dataTable, hiddenHeading, noticeBox, tableBox } from '../components';
import { Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';

/** Who uses a session (SessionsService.uses): websites, scenarios and schedules naming it, schedules through their website. */
export interface SessionUsers {
  websites: Array<{ id: number; name: string }>;
  scenarios: Array<{ id: number; name: string }>;
  schedules: Array<{ id: number; name: string; direct: boolean }>;
}

export interface SessionRow {
  session: SavedSessionProps;
  use: SessionUsers;
}

/** The users as links, by kind; a schedule that only captures a website using the session says so. */
function usersList(use: SessionUsers): Html {
  const links = (kind: string, items: Array<{ id: number; name: string }>, href: (id: number) => string) =>
    items.length
      ? html`<span class="session-use" data-use="${kind}">${kind}: ${items.map((item, i) => html`${i ? ', ' : ''}<a href="${href(item.id)}">${item.name}</a>`)}</span>`
      : '';
  const direct = use.schedules.filter((s) => s.direct);
  const viaWebsite = use.schedules.filter((s) => !s.direct);
  const parts = [
    links('websites', use.websites, (id) => `/dashboard/websites/${id}`),
    links('scenarios', use.scenarios, (id) => `/dashboard/scenarios/${id}/edit`),
    links('schedules', direct, (id) => `/dashboard/schedules/${id}/edit`),
    links('schedules of those websites', viaWebsite, (id) => `/dashboard/schedules/${id}/edit`),
  ].filter((p) => p !== '');
  return parts.length ? html`${parts.map((p, i) => html`${i ? html`<br>` : ''}${p}`)}` : html`<span class="muted">none</span>`;
}

export interface SessionsView {
  sessions: SessionRow[];
  scenarios: ScenarioProps[];
  notice?: string;
  /** A refused form (422/409): its message, shown above the forms. */
  error?: string;
}

function status(session: SavedSessionProps): Html {
  const badge = html`<span class="badge ${session.status === 'ready' ? 'ok' : session.status === 'failed' ? 'error' : 'warn'}">${session.status}</span>`;
  return session.error ? html`${badge}<br><span class="muted small">${session.error}</span>` : badge;
}

function sourceOf(session: SavedSessionProps, scenarios: ScenarioProps[]): Html {
  if (session.source !== 'scenario')
    return html`${session.source === 'cookies_txt' ? 'cookies.txt' : session.source === 'storage_state' ? 'storage state' : 'cookies'}`;
  const scenario = scenarios.find((s) => s.id === session.scenarioId);
  return scenario ? html`login: <a href="/dashboard/scenarios/${scenario.id}">${scenario.name}</a>` : html`login scenario (deleted)`;
}

function row(viewer: DashboardViewer, { session, use }: SessionRow, scenarios: ScenarioProps[]): Html {
  const state = session.state ?? { cookies: [], origins: [] };
  const where = [...sessionOrigins(state), ...cookieDomains(state)];
  return html`<tr data-session-id="${session.id}">
  <td><strong>${session.name}</strong> <span class="muted mono">#${session.id}</span>${session.loggedInSelector ? html`<br><span class="muted small">logged in: <code>${session.loggedInSelector}</code></span>` : ''}</td>
  <td>${status(session)}</td>
  <td>${sourceOf(session, scenarios)}</td>
  <td>${state.cookies.length} cookie${state.cookies.length === 1 ? '' : 's'}${where.length ? html`<br><span class="muted small">${where.join(', ')}</span>` : ''}</td>
  <td>${session.refreshedAt ? utcTime(session.refreshedAt) : html`<span class="muted">never</span>`}${session.refreshCount ? html`<br><span class="muted small">${session.refreshCount} refresh${session.refreshCount === 1 ? '' : 'es'} after a logout</span>` : ''}</td>
  <td class="session-users">${usersList(use)}</td>
  <td class="actions">${
    session.source === 'scenario'
      ? html`<form method="post" action="/dashboard/sessions/${session.id}/refresh" class="inline">${csrfField(viewer)}<button type="submit" class="secondary">Refresh</button></form>`
      : ''
  }
    <a class="button danger" href="/dashboard/sessions/${session.id}/delete">Delete</a></td>
</tr>`;
}

function forms(viewer: DashboardViewer, view: SessionsView): Html {
  const common = (prefix: string) => html`<label for="${prefix}-name">Name</label>
  <input type="text" id="${prefix}-name" name="name" maxlength="100" required placeholder="e.g. Shop">
  <label for="${prefix}-selector">Logged-in selector (optional)</label>
  <input type="text" id="${prefix}-selector" name="logged_in_selector" maxlength="1024" placeholder="#account-menu">
  <p class="muted small">Only a logged-in page has it. Missing after load: a login session logs in again once; a cookie session fails “logged out”.</p>`;
  return html`<div class="form-pair">
<form class="card" method="post" action="/dashboard/sessions" id="session-from-scenario">
  ${csrfField(viewer)}<input type="hidden" name="from" value="scenario">
  <h2>From a login scenario</h2>
  ${common('scenario')}
  <label for="scenario-id">Login scenario</label>
  ${
    view.scenarios.length
      ? html`<select id="scenario-id" name="scenario_id">${view.scenarios.map((s) => html`<option value="${s.id}">${s.name}</option>`)}</select>`
      : html`<p class="muted">No scenarios yet: <a href="/dashboard/scenarios">write one</a> that fills the login form (password as a secret fill).</p>`
  }
  <p><button type="submit"${view.scenarios.length ? '' : html` disabled aria-disabled="true"`}>Save and log in</button></p>
</form>
<form class="card" method="post" action="/dashboard/sessions" id="session-from-cookies">
  ${csrfField(viewer)}<input type="hidden" name="from" value="cookies_txt">
  <h2>From cookies</h2>
  ${common('cookies')}
  <label for="cookies-txt">cookies.txt (Netscape format, as browser extensions export it)</label>
  <textarea id="cookies-txt" name="cookies_txt" rows="5" class="mono" spellcheck="false" required placeholder="# Netscape HTTP Cookie File&#10;.shop.example.com&#9;TRUE&#9;/&#9;TRUE&#9;1799999999&#9;sid&#9;…"></textarea>
  <p><button type="submit">Save session</button></p>
</form>
</div>`;
}

export function sessionsPage(viewer: DashboardViewer, view: SessionsView): Html {
  return layout(
    viewer,
    'scenarios',
    'Sessions',
    html`${noticeBox(view.notice)}
${view.error ? html`<p class="notice error" role="alert" id="session-error">${view.error}</p>` : ''}
<p class="muted">A saved session is a logged-in browser state: captures that name it (<code>session_id</code>, or “Saved session” in a website’s, the playground’s, a scenario’s or a schedule’s options) start logged in. Cookie values are sealed and never shown. <a href="/docs#/Sessions">API docs</a></p>
${forms(viewer, view)}
<h2>Your sessions</h2>
${
  view.sessions.length
    ? tableBox(
        'Sessions',
        dataTable(
          ['Session', 'Status', 'Made from', 'Cookies', 'Refreshed', 'Used by', hiddenHeading('Actions')],
          view.sessions.map((r) => row(viewer, r, view.scenarios)),
        ),
        'session-cards',
      )
    : html`<p class="muted">No sessions yet.</p>`
}`,
  );
}

export function deleteSessionPage(viewer: DashboardViewer, session: SavedSessionProps, use: SessionUsers): Html {
  // What refuses a delete: the websites, scenarios and schedules naming it (a schedule through its website goes with the website).
  const naming: SessionUsers = { websites: use.websites, scenarios: use.scenarios, schedules: use.schedules.filter((s) => s.direct) };
  const named = naming.websites.length + naming.scenarios.length + naming.schedules.length > 0;
  return layout(
    viewer,
    'scenarios',
    'Delete session?',
    html`<div class="card">
  ${
    named
      ? html`<p class="notice error">The session <strong>${session.name}</strong> is used by ${usersList(naming)}<br>remove it from their ${
          naming.scenarios.length + naming.schedules.length ? 'capture options, scenario and schedule settings' : 'capture options'
        } first.</p>
  <a class="button secondary" href="/dashboard/sessions">Back</a>`
      : html`<p>Delete the session <strong>${session.name}</strong>? Captures that name it fail from then on. This cannot be undone.</p>
  <form method="post" action="/dashboard/sessions/${session.id}/delete">${csrfField(viewer)}
    <button class="danger" type="submit" id="confirm-delete">Delete session</button>
    <a class="button secondary" href="/dashboard/sessions">Cancel</a>
  </form>`
  }
</div>`,
  );
}
