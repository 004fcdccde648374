import type { LastDelivery } from '../../../../notifications/domain/channel';
import { CHANNEL_EVENTS, CHANNEL_TYPES, type ChannelProps, maskedTarget } from '../../../../notifications/domain/channel';
import { REDACTED } from '../../../../../shared/domain/capture-secrets';
import type { DashboardViewer } from '../../dashboard-request';
import { dataTable, hiddenHeading, tableBox } from '../components';
import { badge, Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';

/** This page's own notices (`?notice=`): fixed texts only, so a crafted link cannot put words on the page. */
const NOTICES: Record<string, { kind: 'ok' | 'info'; text: string }> = {
  'channel-created': { kind: 'ok', text: 'Channel added. Send it a test message to check it.' },
  'channel-deleted': { kind: 'ok', text: 'Channel removed.' },
  'channel-enabled': { kind: 'ok', text: 'Channel enabled again: new events reach it. Send it a test message to check it.' },
  'test-queued': { kind: 'info', text: 'Test message queued: it is on its way. Reload to see how it went (Last message).' },
};

const TYPE_LABELS: Record<string, string> = { email: 'E-mail', slack: 'Slack', discord: 'Discord' };
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

export interface NotificationsView {
  channels: ChannelProps[];
  last: Map<number, LastDelivery>;
  websites: Array<{ id: number; name: string }>;
  values: ChannelFormValues;
  errors: Map<string, string>;
  notice?: string;
  smtpConfigured: boolean;
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
  <label for="channel-target">E-mail address or incoming-webhook URL</label>
  <input type="text" id="channel-target" name="target" maxlength="2048" required value="${v.target}" autocomplete="off" spellcheck="false"
    placeholder="ops@example.com or https://hooks.slack.com/services/…"${invalid(e, 'target')}>
  ${fieldError(e, 'target')}
  <fieldset${invalid(e, 'events')}><legend>Tell it when</legend>
    ${CHANNEL_EVENTS.map(
      (ev) =>
        html`<label class="check"><input type="checkbox" name="events" value="${ev}"${v.events.includes(ev) ? ' checked' : ''}> ${EVENT_LABELS[ev]}</label>`,
    )}
  </fieldset>
  ${fieldError(e, 'events')}
  ${
    view.websites.length
      ? html`<fieldset${invalid(e, 'website_ids')}><legend>Only for these websites (none ticked: every website)</legend>
    ${view.websites.map(
      (w) =>
        html`<label class="check"><input type="checkbox" name="website_ids" value="${w.id}"${v.websiteIds.includes(String(w.id)) ? ' checked' : ''}> ${w.name}</label>`,
    )}
  </fieldset>
  ${fieldError(e, 'website_ids')}`
      : ''
  }
  <p><button type="submit" id="add-channel-button">Add channel</button></p>
</form>`;
}

/** Where the channel sends, its secret part masked; the mask is kept on one line (a lone "*" wrapped off it read as a typo). */
function targetCell(c: ChannelProps): Html {
  const shown = maskedTarget(c.type, c.target);
  const mask = `/${REDACTED}`;
  const cut = shown.endsWith(mask) ? shown.length - mask.length : shown.length;
  return html`${shown.slice(0, cut)}<span class="nowrap">${shown.slice(cut)}</span>`;
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
  const names = new Map(view.websites.map((w) => [w.id, w.name]));
  const notice = view.notice ? NOTICES[view.notice] : undefined;
  const row = (c: ChannelProps) => html`<tr data-channel-id="${c.id}">
  <td>${nameCell(c)}</td>
  <td>${TYPE_LABELS[c.type]}</td>
  <td class="mono wrap">${targetCell(c)}</td>
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
    <a class="button danger" href="/dashboard/notifications/${c.id}/delete">Remove</a>
  </td>
</tr>`;
  return layout(
    viewer,
    'notifications',
    'Notifications',
    html`${notice ? html`<div class="notice ${notice.kind}" role="status">${notice.text}</div>` : ''}
<p class="muted">Get an e-mail, a Slack or a Discord message when a page changes or a capture fails. Messages name the website, say what happened and link the comparison.</p>
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
