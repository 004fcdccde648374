import type { LastDelivery } from '../../../../notifications/domain/channel';
import { CHANNEL_EVENTS, CHANNEL_TYPES, type ChannelProps, maskedTarget } from '../../../../notifications/domain/channel';
import { REDACTED } from '../../../../../shared/domain/capture-secrets';
import type { DashboardViewer } from '../../dashboard-request';
import type { WebsiteChoices } from '../../../application/dashboard-queries';
import { dataTable, FIND_WEBSITE_FIELD, hiddenHeading, PICKER_LIMIT, publicUrlWarning, tableBox } from '../components';
import { badge, Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';

/** This page's own notices (`?notice=`): fixed texts only, so a crafted link cannot put words on the page. */
const NOTICES: Record<string, { kind: 'ok' | 'info'; text: string }> = {
  'channel-created': { kind: 'ok', text: 'Channel added. Send it a test message to check it.' },
  'channel-deleted': { kind: 'ok', text: 'Channel removed.' },
  'channel-enabled': { kind: 'ok', text: 'Channel enabled again: new events reach it. Send it a test message to check it.' },
  'channel-updated': { kind: 'ok', text: 'Channel saved.' },
  'test-queued': { kind: 'info', text: 'Test message queued: it is on its way. Reload to see how it went (Last message).' },
  'draft-restored': {
    kind: 'info',
    text: 'Restored what you typed before your session expired. Nothing has been sent yet: check it and add the channel again (a webhook address is never kept — paste it again).',
  },
};

const TYPE_LABELS: Record<string, string> = { email: 'E-mail', slack: 'Slack', discord: 'Discord', teams: 'Microsoft Teams', ntfy: 'ntfy' };
const EVENT_LABELS: Record<string, string> = {
  'screenshot.changed': 'A page changed',
  'screenshot.failed': 'A screenshot failed',
  'screenshot.succeeded': 'A screenshot was taken',
  'execution.failed': 'A scenario run failed',
  'execution.succeeded': 'A scenario run succeeded',
  'batch.completed': 'A batch finished',
};

export interface ChannelFormValues {
  name: string;
  type: string;
  target: string;
  events: string[];
  websiteIds: string[];
}

/**
 * The websites a channel may be limited to, as the form offers them (issue 45: not every website of the account): the
 * matches of the search typed in `site` (at most PICKER_LIMIT, newest first), and the names of the websites already
 * ticked and of those the listed channels name.
 */
export interface ChannelWebsites {
  matches: WebsiteChoices;
  names: Map<number, string>;
  site: string;
}

export interface NotificationsView {
  channels: ChannelProps[];
  last: Map<number, LastDelivery>;
  websites: ChannelWebsites;
  values: ChannelFormValues;
  errors: Map<string, string>;
  notice?: string;
  smtpConfigured: boolean;
  /** ALERT_LINK_DAYS: how long the links in messages open. */
  alertLinkDays: number;
  /** Where alert links point while PUBLIC_URL is unset (a warning is shown); null when it is set. */
  alertLinksBase: string | null;
}

export const EMPTY_CHANNEL_FORM: ChannelFormValues = {
  name: '',
  type: 'email',
  target: '',
  events: ['screenshot.changed', 'screenshot.failed'],
  websiteIds: [],
};

function fieldError(errors: Map<string, string>, field: string): Html {
  const message = errors.get(field);
  return message ? html`<p class="notice error" id="${field}-error">${message}</p>` : html``;
}

function invalid(errors: Map<string, string>, field: string): Html {
  return errors.has(field) ? html` aria-invalid="true" aria-describedby="${field}-error"` : html``;
}

function addForm(viewer: DashboardViewer, view: NotificationsView): Html {
  const v = view.values;
  const e = view.errors;
  return html`<form class="card" method="post" action="/dashboard/notifications" id="add-channel">
  ${csrfField(viewer)}
  <button type="submit" class="default-submit" tabindex="-1" aria-hidden="true">Add channel</button>
  <h2>Add a channel</h2>
  <label for="channel-name">Name</label>
  <input type="text" id="channel-name" name="name" maxlength="255" required value="${v.name}" placeholder="e.g. Ops on Slack"${invalid(e, 'name')}>
  ${fieldError(e, 'name')}
  <label for="channel-type">Type</label>
  <select id="channel-type" name="type"${invalid(e, 'type')}>
    ${CHANNEL_TYPES.map((t) => html`<option value="${t}"${v.type === t ? ' selected' : ''}>${TYPE_LABELS[t]}</option>`)}
  </select>
  ${fieldError(e, 'type')}
  ${view.smtpConfigured ? '' : html`<p class="muted">E-mail needs <code>SMTP_URL</code> set on the server.</p>`}
  <label for="channel-target">E-mail address, webhook URL or ntfy topic URL</label>
  <input type="text" id="channel-target" name="target" maxlength="2048" required value="${v.target}" autocomplete="off" spellcheck="false"
    placeholder="ops@example.com, https://hooks.slack.com/services/… or https://ntfy.sh/my-alerts"${invalid(e, 'target')}>
  ${fieldError(e, 'target')}
  <p class="muted">Teams: the URL of a Workflows "When a Teams webhook request is received" flow. ntfy: <code>https://ntfy.sh/&lt;topic&gt;</code> or your own server's topic URL.</p>
  ${eventsAndWebsites(view, v, e)}
  <p><button type="submit" id="add-channel-button">Add channel</button></p>
</form>`;
}

/** The events and websites a channel listens to (the add and edit forms alike). */
function eventsAndWebsites(view: Pick<NotificationsView, 'websites'>, v: Pick<ChannelFormValues, 'events' | 'websiteIds'>, e: Map<string, string>): Html {
  return html`<fieldset${invalid(e, 'events')}><legend>Tell it when</legend>
    ${CHANNEL_EVENTS.map(
      (ev) =>
        html`<label class="check"><input type="checkbox" name="events" value="${ev}"${v.events.includes(ev) ? ' checked' : ''}> ${EVENT_LABELS[ev]}</label>`,
    )}
  </fieldset>
  ${fieldError(e, 'events')}
  ${websiteChecks(view.websites, v.websiteIds, e)}`;
}

/**
 * "Only for these websites" as a searchable list of ticks (issue 45): the ticked websites first, then the newest
 * matches of the search (PICKER_LIMIT at most), never every website. Without script Find posts the form back to be
 * drawn again with the new matches, everything typed and ticked kept (nothing saved); with script the matches follow
 * the search as it is typed (dashboard.js, GET /dashboard/website-choices), the ticked ones staying.
 */
function websiteChecks(websites: ChannelWebsites, tickedIds: string[], e: Map<string, string>): Html {
  const ticked = [...new Set(tickedIds)];
  const { matches, names, site } = websites;
  if (ticked.length === 0 && matches.websites.length === 0 && site === '') return html``;
  const untickedMatches = matches.websites.filter((w) => !ticked.includes(String(w.id)));
  const check = (id: string, name: string, on: boolean) =>
    html`<label class="check"><input type="checkbox" name="website_ids" value="${id}"${on ? ' checked' : ''}> ${name}</label>`;
  return html`<fieldset class="website-checks"${invalid(e, 'website_ids')}><legend>Only for these websites (none ticked: every website)</legend>
  <div class="picker-search"><label class="sr-only" for="channel-website-search">Find a website</label><input type="search" id="channel-website-search" name="site" maxlength="200" value="${site}" placeholder="Find a website by name or URL" data-website-checks="channel-websites" aria-controls="channel-websites">
    <button type="submit" class="secondary small" name="${FIND_WEBSITE_FIELD}" value="1" formnovalidate>Find</button></div>
  <div class="check-list" id="channel-websites">
    ${ticked.map((id) => check(id, names.get(Number(id)) ?? `#${id}`, true))}
    ${untickedMatches.map((w) => check(String(w.id), w.name, false))}
  </div>
  <small class="muted" id="channel-website-search-note"${matches.more ? '' : ' hidden'}>Showing the newest ${PICKER_LIMIT} matches: type part of a name or URL to narrow.</small>
  ${untickedMatches.length === 0 && site !== '' ? html`<small class="muted" id="channel-website-search-none">No other website matches “${site}”.</small>` : ''}
</fieldset>
${fieldError(e, 'website_ids')}`;
}

/**
 * Where the channel sends, its secret part masked. The address is one unbreakable line cut with an ellipsis when
 * the column is narrow (a phone: a long Teams host broke anywhere, a lone "*" wrapped off read as a typo); the mask
 * stays whole at its end, and the full text is the title.
 */
function targetCell(c: ChannelProps): Html {
  const shown = maskedTarget(c.type, c.target);
  const mask = `/${REDACTED}`;
  const cut = shown.endsWith(mask) ? shown.length - mask.length : shown.length;
  return html`<span class="target" title="${shown}"><span class="target-host">${shown.slice(0, cut)}</span><span class="target-mask">${shown.slice(cut)}</span></span>`;
}

function lastCell(last: LastDelivery | undefined): Html {
  if (!last) return html`<span class="muted">none yet</span>`;
  return html`${badge(last.status)} ${utcTime(last.at, '')}${last.error ? html`<br><span class="muted">${last.error}</span>` : ''}`;
}

/**
 * A disabled channel says so beside its name, with why and since when (the service disables one whose every
 * message failed for 3 days, as it does webhooks; API `disabled_reason`, `disabled_at`).
 */
function nameCell(c: ChannelProps): Html {
  if (c.enabled) return html`${c.name}`;
  if (!c.disabledReason) return html`${c.name} ${badge('disabled')}<br><span class="muted">Disabled: nothing is sent until you enable it again.</span>`;
  // Disabled by the service: in the colour of a failure (the word says it too), with why and since when.
  return html`${c.name} <span class="badge badge-failed">disabled</span><br><span class="channel-disabled"
    >Disabled ${utcTime(c.disabledAt, '')}: ${c.disabledReason}. Nothing is sent until you enable it again.</span>`;
}

export function notificationsPage(viewer: DashboardViewer, view: NotificationsView): Html {
  const names = view.websites.names;
  const notice = view.notice ? NOTICES[view.notice] : undefined;
  const row = (c: ChannelProps) => html`<tr data-channel-id="${c.id}">
  <td>${nameCell(c)}</td>
  <td>${TYPE_LABELS[c.type]}</td>
  <td class="mono target-cell">${targetCell(c)}</td>
  <td>${c.events.map((ev) => EVENT_LABELS[ev] ?? ev).join(', ')}</td>
  <td>${c.websiteIds ? c.websiteIds.map((id) => names.get(id) ?? `#${id}`).join(', ') : 'All'}</td>
  <td>${lastCell(view.last.get(c.id))}</td>
  <td class="actions">
    ${
      c.enabled
        ? ''
        : html`<form method="post" action="/dashboard/notifications/${c.id}/enable">${csrfField(viewer)}<button type="submit">Enable again</button></form>`
    }
    <form method="post" action="/dashboard/notifications/${c.id}/test">${csrfField(viewer)}<button type="submit" class="secondary">Send test</button></form>
    <a class="button secondary" href="/dashboard/notifications/${c.id}/edit">Edit</a>
    <a class="button danger" href="/dashboard/notifications/${c.id}/delete">Remove</a>
  </td>
</tr>`;
  return layout(
    viewer,
    'notifications',
    'Notifications',
    html`${notice ? html`<div class="notice ${notice.kind}" role="status">${notice.text}</div>` : ''}
${publicUrlWarning(view.alertLinksBase)}
<p class="muted">Get an e-mail, a Slack, Discord or Teams message or an ntfy push when a page changes or a capture fails. Messages name the website, say what happened and link the picture and the comparison (links that open without signing in, for ${view.alertLinkDays} days).</p>
<h2>Your channels</h2>
${
  view.channels.length
    ? tableBox(
        'Notification channels',
        dataTable(['Name', 'Type', 'Sends to', 'When', 'Websites', 'Last message', hiddenHeading('Actions')], view.channels.map(row)),
        'channel-cards',
      )
    : html`<p class="muted">No channels yet.</p>`
}
${addForm(viewer, view)}`,
  );
}

export function removeConfirmPage(viewer: DashboardViewer, channel: ChannelProps): Html {
  return layout(
    viewer,
    'notifications',
    'Remove channel?',
    html`<div class="card">
  <p>Remove <strong>${channel.name}</strong> (${TYPE_LABELS[channel.type]})? Messages not sent yet are dropped.</p>
  <form method="post" action="/dashboard/notifications/${channel.id}/delete">${csrfField(viewer)}
    <button class="danger" type="submit" id="confirm-remove">Remove channel</button>
    <a class="button secondary" href="/dashboard/notifications">Cancel</a>
  </form>
</div>`,
  );
}

export interface ChannelEditValues {
  name: string;
  /** What was typed; empty keeps the current target (a webhook URL is never shown back). */
  target: string;
  events: string[];
  websiteIds: string[];
}

/** Editing a channel: name, target (left empty: unchanged, the current one shown masked), events and websites. */
export function editChannelPage(
  viewer: DashboardViewer,
  channel: ChannelProps,
  view: { websites: ChannelWebsites; values: ChannelEditValues; errors: Map<string, string> },
): Html {
  const v = view.values;
  const e = view.errors;
  const current = maskedTarget(channel.type, channel.target);
  return layout(
    viewer,
    'notifications',
    `Edit ${channel.name}`,
    html`<form class="card" method="post" action="/dashboard/notifications/${channel.id}/edit" id="edit-channel">
  ${csrfField(viewer)}
  <button type="submit" class="default-submit" tabindex="-1" aria-hidden="true">Save</button>
  <p class="muted">${TYPE_LABELS[channel.type]} channel. To send to another kind of place, add a new channel.</p>
  <label for="channel-name">Name</label>
  <input type="text" id="channel-name" name="name" maxlength="255" required value="${v.name}"${invalid(e, 'name')}>
  ${fieldError(e, 'name')}
  <label for="channel-target">${channel.type === 'email' ? 'E-mail address' : 'New URL'}</label>
  <p class="muted" id="current-target">Now: <span class="mono target" title="${current}"><span class="target-host">${current.endsWith(`/${REDACTED}`) ? current.slice(0, -REDACTED.length - 1) : current}</span><span class="target-mask">${current.endsWith(`/${REDACTED}`) ? `/${REDACTED}` : ''}</span></span></p>
  <input type="text" id="channel-target" name="target" maxlength="2048" value="${v.target}" autocomplete="off" spellcheck="false"
    placeholder="${channel.type === 'email' ? 'ops@example.com' : 'Leave empty to keep the current URL'}"${invalid(e, 'target')}>
  ${fieldError(e, 'target')}
  ${channel.type === 'email' ? '' : html`<p class="muted">The URL is a secret: it is never shown again. Leave the field empty to keep it.</p>`}
  ${eventsAndWebsites(view, v, e)}
  <p><button type="submit" id="save-channel-button">Save</button> <a class="button secondary" href="/dashboard/notifications">Cancel</a></p>
</form>`,
  );
}
