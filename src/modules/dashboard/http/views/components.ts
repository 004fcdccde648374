import { Html, html } from './html';

/**
 * Messages shown after a redirect (`?notice=<key>`). Only these fixed texts can appear, so a crafted link
 * cannot put words on our page.
 */
const NOTICES: Record<string, { kind: 'ok' | 'info' | 'warn'; text: string }> = {
  'screenshot-queued': { kind: 'ok', text: 'Screenshot job queued. This page refreshes until it has finished.' },
  'screenshot-deleted': { kind: 'ok', text: 'Screenshot deleted.' },
  'screenshots-deleted': { kind: 'ok', text: 'The selected screenshots were deleted.' },
  'token-revoked': { kind: 'ok', text: 'Token revoked. Every request using it is now refused.' },
  'render-key-deleted': { kind: 'ok', text: 'Render key deleted. Every link it signed is now refused.' },
  'session-created': { kind: 'ok', text: 'Session saved.' },
  'session-login-queued': { kind: 'ok', text: 'Logging in: the session is pending until its login scenario ran.' },
  'session-deleted': { kind: 'ok', text: 'Session deleted.' },
  'scenario-started': { kind: 'ok', text: 'Scenario run queued.' },
  'schedule-enabled': { kind: 'ok', text: 'Schedule enabled.' },
  'schedule-disabled': { kind: 'ok', text: 'Schedule disabled.' },
  'nothing-selected': { kind: 'warn', text: 'Select at least one screenshot first.' },
  'signed-out': { kind: 'info', text: 'You have signed out.' },
  'session-expired': { kind: 'warn', text: 'Your session expired — sign in again.' },
  'session-expired-kept': { kind: 'warn', text: 'Your session expired — sign in again; what you typed is kept.' },
  'website-created': { kind: 'ok', text: 'Website created.' },
  'website-created-capturing': { kind: 'ok', text: 'Website created. Its first screenshot is being taken: this page refreshes until it has finished.' },
  'website-created-paused': { kind: 'ok', text: 'Website created, paused: no screenshot was taken (Take screenshot takes one).' },
  'website-created-not-captured': { kind: 'warn', text: 'Website created, but its first screenshot could not be queued: use Take screenshot.' },
  'website-saved': { kind: 'ok', text: 'Website saved.' },
  'monitor-created': { kind: 'ok', text: 'Monitoring started: the first capture is being taken, then the page is checked on its schedule.' },
  'website-paused': { kind: 'ok', text: 'Website paused: schedules skip it until it is resumed.' },
  'website-resumed': { kind: 'ok', text: 'Website resumed.' },
  'website-deleted': { kind: 'ok', text: 'Website deleted, with its screenshots, scenarios and schedules.' },
};

/**
 * What the notices that promise "this page refreshes until it has finished" become once that job has ended: the
 * page reloads itself with the same `?notice=` and must not keep saying a job is queued (issue 31).
 */
const ONCE_ENDED: Record<string, { kind: 'ok' | 'info' | 'warn'; text: string }> = {
  'screenshot-queued': { kind: 'info', text: 'The screenshot job has ended: the Last job column shows how it went.' },
  'run-started': { kind: 'info', text: 'The scenario run has ended: how it went is below.' },
  'website-created-capturing': { kind: 'info', text: 'Website created. Its first screenshot job has ended: the Last job column shows how it went.' },
};

/** The notice a page shows once its job has ended, when its `?notice=` key was about that job. */
export function endedNotice(key: string | undefined): Html | undefined {
  const notice = key ? ONCE_ENDED[key] : undefined;
  return notice ? html`<div class="notice ${notice.kind}" role="status">${notice.text}</div>` : undefined;
}

/** The notice of `?notice=<key>`; `jobEnded` when the job a "queued" notice speaks of is no longer running. */
export function noticeBox(key: string | undefined, jobEnded = false): Html {
  const ended = jobEnded ? endedNotice(key) : undefined;
  if (ended) return ended;
  const notice = key ? NOTICES[key] : undefined;
  return notice ? html`<div class="notice ${notice.kind}" role="status">${notice.text}</div>` : html``;
}

export interface PageInfo {
  page: number;
  lastPage: number;
  total: number;
}

/** Previous / next links that keep the page's other query parameters. */
export function pager(basePath: string, info: PageInfo, params: Record<string, string | number | undefined> = {}): Html {
  if (info.lastPage <= 1) return html``;
  const link = (page: number) => {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') query.set(k, String(v));
    query.set('page', String(page));
    return `${basePath}?${query.toString()}`;
  };
  return html`<nav class="pager" aria-label="Pages">
  ${info.page > 1 ? html`<a class="button secondary" href="${link(info.page - 1)}" rel="prev">← Newer</a>` : ''}
  <span class="muted">Page ${info.page} of ${info.lastPage} (${info.total} in all)</span>
  ${info.page < info.lastPage ? html`<a class="button secondary" href="${link(info.page + 1)}" rel="next">Older →</a>` : ''}
</nav>`;
}

/** Why an account without an active paid plan cannot use an action, in one sentence. */
export function accessNotice(hasAccess: boolean, plan: string, status: string): Html {
  if (hasAccess) return html``;
  const why = plan === 'free' ? 'The Free plan has no API access.' : status === 'active' ? 'Your subscription has expired.' : `Your subscription is ${status}.`;
  return html`<div class="notice warn" role="note"><strong>${why}</strong> Screenshots, scenario runs and new API tokens need an active Starter, Pro or Business subscription. Your existing screenshots stay available here.</div>`;
}

/** A column heading only screen readers announce (action buttons, thumbnails). */
export function hiddenHeading(text: string): Html {
  return html`<span class="sr-only">${text}</span>`;
}

/** A data table with column headings; `rows` are the <tr> elements. */
export function dataTable(columns: Array<string | Html>, rows: Html[]): Html {
  return html`<table><thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead><tbody>${rows}</tbody></table>`;
}

/**
 * Content that may be wider than a phone (a table), scrolling sideways inside its own box rather than the page;
 * focusable and named so a keyboard can scroll it too.
 */
export function tableBox(label: string, content: Html, extraClass = ''): Html {
  return html`<div class="table-box${extraClass ? ` ${extraClass}` : ''}" tabindex="0" role="region" aria-label="${label}">${content}</div>`;
}

/** How many websites a picker offers at most; more are reached by its search field. */
export const PICKER_LIMIT = 50;

/** The button of a website chooser in a POST form: it re-renders the form with what was typed instead of saving. */
export const FIND_WEBSITE_FIELD = 'find_website';

/**
 * A website chooser inside a POST editor form (schedule, scenario): the same server-side search as websitePicker,
 * but its Find button posts the form back to be drawn again with the narrowed choices and everything typed kept (a
 * POST, so nothing typed, a secret fill value least of all, lands in a URL), rather than saving it. With script the
 * choices follow the search as it is typed (dashboard.js, GET /dashboard/website-choices). The editor's form must
 * start with its hidden default submit button, so Enter in another field still saves.
 */
export function websiteChooser(
  ids: { select: string; search: string },
  choices: { websites: Array<{ id: number; name: string }>; more: boolean },
  selected: string,
  search: string,
  selectAttrs: Html,
  /** The first option when choosing no website is allowed (the playground: "the URL above"); else one must be chosen. */
  none?: string,
): Html {
  const known = choices.websites.some((w) => String(w.id) === selected);
  const note = choices.more
    ? html`<small class="muted" id="${ids.search}-note">Showing the newest ${PICKER_LIMIT} matches: type part of a name or URL to narrow.</small>`
    : '';
  return html`<div class="picker-search"><label class="sr-only" for="${ids.search}">Find a website</label><input type="search" id="${ids.search}" name="site" maxlength="200" value="${search}" placeholder="Find a website by name or URL" data-website-choices="${ids.select}" aria-controls="${ids.select}">
    <button type="submit" class="secondary small" name="${FIND_WEBSITE_FIELD}" value="1" formnovalidate>Find</button></div>
  <select id="${ids.select}" name="website_id"${selectAttrs}>
    ${none !== undefined ? html`<option value=""${known ? '' : html` selected`}>${none}</option>` : known ? '' : html`<option value="" selected>Choose a website</option>`}
    ${choices.websites.map((w) => html`<option value="${w.id}"${String(w.id) === selected ? html` selected` : ''}>${w.name}</option>`)}
  </select>${note}`;
}

/**
 * A website picker inside a GET filter form (issue 45: not 10,000 options a page): a search field (`site`) that
 * narrows the choices on the server — submitting the form is the search, no script needed — and a select of the
 * matching websites (at most PICKER_LIMIT, the selected one always among them).
 */
export function websitePicker(
  ids: { select: string; search: string },
  choices: { websites: Array<{ id: number; name: string }>; more: boolean },
  selectedId: number | undefined,
  search: string | undefined,
  anyLabel: string,
): Html {
  const note = choices.more
    ? html`<small class="muted" id="${ids.search}-note">Showing the newest ${PICKER_LIMIT} matches: type part of a name or URL and filter to narrow.</small>`
    : '';
  return html`<div><label for="${ids.search}">Find a website</label><input type="search" id="${ids.search}" name="site" maxlength="200" value="${search ?? ''}" aria-describedby="${ids.select}" data-website-choices="${ids.select}"></div>
  <div><label for="${ids.select}">Website</label><select id="${ids.select}" name="website_id">
    <option value="">${anyLabel}</option>
    ${choices.websites.map((w) => html`<option value="${w.id}"${w.id === selectedId ? html` selected` : ''}>${w.name}</option>`)}
  </select>${note}</div>`;
}

/**
 * Shown on the Alerts page and the overview while PUBLIC_URL is unset (issue 46): the links in alerts then point
 * to `http://localhost:<PORT>`, which opens only on the server's own machine (and a dashboard opened at
 * 127.0.0.1 or another name has no session there). `linksBase` is that address; null (PUBLIC_URL set): nothing.
 */
export function publicUrlWarning(linksBase: string | null): Html {
  if (linksBase === null) return html``;
  return html`<div class="notice warn" role="note" id="public-url-warning"><strong>Links in alerts point to <code>${linksBase}</code>.</strong>
PUBLIC_URL is not set, so e-mails, Slack, Discord, Teams and ntfy messages link to this server's own machine, where
nobody else can open them. Set <code>PUBLIC_URL</code> to the address people open this dashboard at (for example
<code>https://shots.example.com</code>) and restart the service (see <code>docs/configuration.md</code>).</div>`;
}

/** A saved session as a pick-list offers it (at most 100 per account: a plain select, no search needed). */
export interface SessionChoice {
  id: number;
  name: string;
  status: string;
}

/**
 * A select of the account's saved sessions (`session_id`): "None" first (`noneLabel`), then each session by name with
 * its status. A value that is none of them (a session deleted since, or typed into an address) stays chosen, shown
 * by its id, so saving the form does not drop it silently: the API's rule then names it. No script needed.
 */
export function sessionSelect(
  ids: { id: string; name: string },
  sessions: readonly SessionChoice[],
  selected: string,
  noneLabel: string,
  selectAttrs: Html = html``,
): Html {
  const known = selected === '' || sessions.some((s) => String(s.id) === selected);
  return html`<select id="${ids.id}" name="${ids.name}" data-session-select${selectAttrs}>
    <option value=""${selected === '' ? html` selected` : ''}>${noneLabel}</option>
    ${sessions.map((s) => html`<option value="${s.id}"${String(s.id) === selected ? html` selected` : ''}>${s.name} (${s.status})</option>`)}
    ${known ? '' : html`<option value="${selected}" selected>Session #${selected} (not one of your sessions)</option>`}
  </select>`;
}
