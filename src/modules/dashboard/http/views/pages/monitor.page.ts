import { MONITOR_EVERY, MONITOR_EVERY_VALUES } from '../../../../monitors/domain/monitor';
import type { ChannelProps } from '../../../../notifications/domain/channel';
import type { DashboardViewer } from '../../dashboard-request';
import { accessNotice } from '../components';
import { CHANGE_CONDITION_FIELDS } from '../../website-form';
import { Html, html } from '../html';
import { fieldBlock } from './website-form.page';
import { csrfField, layout } from '../layout';

/** How often, in words (the `every` values of a monitor). */
export const EVERY_LABELS: Record<string, string> = {
  '5m': 'Every 5 minutes',
  '15m': 'Every 15 minutes',
  '30m': 'Every 30 minutes',
  '1h': 'Every hour',
  '1d': 'Every day',
  '1w': 'Every week',
};

export interface MonitorFormValues {
  url: string;
  name: string;
  every: string;
  channelIds: string[];
  /** The change conditions' controls as typed (CHANGE_CONDITION_FIELDS: ignore_text, alert_when.*). */
  conditions: URLSearchParams;
}

export const EMPTY_MONITOR_FORM: MonitorFormValues = { url: '', name: '', every: '1h', channelIds: [], conditions: new URLSearchParams() };

export interface MonitorFormView {
  values: MonitorFormValues;
  errors: Map<string, string>;
  /** The change conditions' errors by control name, beside their fields. */
  conditionErrors: Map<string, string[]>;
  channels: ChannelProps[];
  hasAccess: boolean;
}

function fieldError(errors: Map<string, string>, field: string): Html {
  const message = errors.get(field);
  return message ? html`<p class="notice error" id="${field.replace(/\./g, '-')}-error">${message}</p>` : html``;
}

function invalid(errors: Map<string, string>, field: string): Html {
  return errors.has(field) ? html` aria-invalid="true" aria-describedby="${field.replace(/\./g, '-')}-error"` : html``;
}

const TYPE_LABELS: Record<string, string> = { email: 'e-mail', slack: 'Slack', discord: 'Discord' };

/** A channel as a checkbox: its name, its kind, and whether it already hears of every website. */
function channelChoice(c: ChannelProps, checked: boolean): Html {
  const scope = c.websiteIds === null ? 'every website' : `${c.websiteIds.length} website${c.websiteIds.length === 1 ? '' : 's'}`;
  return html`<label class="check"><input type="checkbox" name="channel_ids" value="${c.id}"${checked ? ' checked' : ''}> ${c.name}
    <span class="muted">(${TYPE_LABELS[c.type] ?? c.type}, now for ${scope}${c.enabled ? '' : ', disabled'})</span></label>`;
}

/**
 * "Monitor a page" (issue 46): the one-step monitor of POST /websites with `monitor` — a URL, how often, where to
 * alert — made by the same service as the API's call, all or nothing.
 */
export function monitorFormPage(viewer: DashboardViewer, view: MonitorFormView): Html {
  const v = view.values;
  const e = view.errors;
  const alerts = view.channels.length
    ? html`<fieldset${invalid(e, 'monitor.channel_ids')}><legend>Where to alert</legend>
    ${view.channels.map((c) => channelChoice(c, v.channelIds.includes(String(c.id))))}
    <p class="muted">A channel set for every website alerts about this page whether ticked or not.</p>
  </fieldset>`
    : html`<fieldset><legend>Where to alert</legend><p class="muted" id="no-channels">No notification channels yet: <a href="/dashboard/notifications">add one</a> (e-mail, Slack or
    Discord), or watch the page without alerts and read its history.</p></fieldset>`;
  return layout(
    viewer,
    'websites',
    'Monitor a page',
    html`${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
<p class="muted">The page is captured now, then on the rhythm you choose; each capture is compared with the previous one, and a change is sent
  to the channels you tick.</p>
<form class="card monitor-form" method="post" action="/dashboard/monitors/new" id="monitor-form">
  ${csrfField(viewer)}
  <label for="monitor-url">Page URL</label>
  <input type="text" inputmode="url" id="monitor-url" name="url" maxlength="2048" required value="${v.url}" placeholder="https://example.com/pricing" spellcheck="false"${invalid(e, 'url')}>
  ${fieldError(e, 'url')}
  <label for="monitor-name">Name <span class="muted">(optional: the page's host)</span></label>
  <input type="text" id="monitor-name" name="name" maxlength="255" value="${v.name}" placeholder="e.g. Competitor pricing"${invalid(e, 'name')}>
  ${fieldError(e, 'name')}
  <label for="monitor-every">How often</label>
  <select id="monitor-every" name="every"${invalid(e, 'monitor.every')}>
    ${MONITOR_EVERY_VALUES.map((every) => html`<option value="${every}"${v.every === every ? ' selected' : ''}>${EVERY_LABELS[every] ?? MONITOR_EVERY[every]}</option>`)}
  </select>
  ${fieldError(e, 'monitor.every')}
  ${alerts}
  ${fieldError(e, 'monitor.channel_ids')}
  <fieldset id="change-rules"><legend>What counts as a change</legend>
    <p class="muted">Left empty: any change of the visible text, or of more than 0.1% of the pixels (the website's change threshold, which
      its Edit page changes). The same conditions as the website's Edit page (docs: change history, conditions).</p>
    <div class="form-grid">${CHANGE_CONDITION_FIELDS.map((f) => fieldBlock(f, { values: v.conditions, errors: view.conditionErrors }))}</div>
  </fieldset>
  <p><button type="submit" id="monitor-button"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>Start monitoring</button>
    <a class="button secondary" href="/dashboard/websites">Cancel</a></p>
</form>`,
  );
}
