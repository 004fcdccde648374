import type { ApiToken } from '../../../../accounts/domain/api-token';
import type { DashboardViewer } from '../../dashboard-request';
import { accessNotice, dataTable, hiddenHeading, noticeBox, tableBox } from '../components';
import { badge, Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';
import { settingsTabs } from './render-keys.page';

export interface ApiKeysView {
  tokens: ApiToken[];
  hasAccess: boolean;
  /** Set only on the response to "Generate API Token": the one time the secret is ever shown. */
  newSecret?: { name: string; secret: string };
  notice?: string;
  nameError?: string;
  /** Where this service answers, for the curl example (PUBLIC_URL, else the address the browser used). */
  origin: string;
}

/** Stands for the token in the example until one has just been generated. */
export const TOKEN_PLACEHOLDER = 'YOUR_API_TOKEN';

/** A first request to try, ready to paste into a shell: the account's websites. */
export function curlExample(origin: string, token: string): string {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  return `curl -sS ${quote(`${origin}/websites`)} \\\n  -H ${quote(`Authorization: Bearer ${token}`)}`;
}

function curlCard(view: ApiKeysView): Html {
  const token = view.newSecret?.secret ?? TOKEN_PLACEHOLDER;
  const command = curlExample(view.origin, token);
  return html`<section class="card curl-example" aria-labelledby="curl-title">
  <h2 id="curl-title">Try it with curl</h2>
  <p class="muted">${view.newSecret ? 'With the token you just generated:' : html`Replace <code>${TOKEN_PLACEHOLDER}</code> with one of your tokens:`} lists your websites.</p>
  <label class="sr-only" for="curl-command">curl command</label>
  <textarea id="curl-command" class="curl" rows="2" readonly spellcheck="false">${command}</textarea>
  <p><button type="button" class="secondary" data-copy="curl-command">Copy command</button> <a href="/docs">All endpoints (API docs)</a></p>
</section>`;
}

function tokenTable(rows: Html[], label: string): Html {
  return tableBox(label, dataTable(['Name', 'Prefix', 'Created', 'Last used', 'Status', hiddenHeading('Actions')], rows), 'token-cards');
}

function generateForm(viewer: DashboardViewer, view: ApiKeysView): Html {
  return html`<form class="card" method="post" action="/dashboard/settings/api-keys">
  ${csrfField(viewer)}
  <label for="token-name">Token name</label>
  <input type="text" id="token-name" name="name" maxlength="255" placeholder="e.g. ci, production" ${view.nameError ? html`aria-invalid="true" aria-describedby="name-error"` : ''}>
  ${view.nameError ? html`<p class="notice error" id="name-error">${view.nameError}</p>` : ''}
  <p><button type="submit" id="generate-token"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>Generate API Token</button></p>
</form>`;
}

export function apiKeysPage(viewer: DashboardViewer, view: ApiKeysView): Html {
  const row = (token: ApiToken) => {
    const t = token.props;
    return html`<tr data-token-id="${t.id}">
  <td>${t.name}</td>
  <td class="mono">${t.displayPrefix}…</td>
  <td>${utcTime(t.createdAt)}</td>
  <td>${utcTime(t.lastUsedAt, 'never')}</td>
  <td>${t.revokedAt ? html`${badge('revoked')} ${utcTime(t.revokedAt)}` : badge('active')}</td>
  <td>${t.revokedAt ? '' : html`<a class="button danger" href="/dashboard/settings/api-keys/${t.id}/revoke">Revoke Token</a>`}</td>
</tr>`;
  };
  const active = view.tokens.filter((t) => !t.props.revokedAt);
  const revoked = view.tokens.filter((t) => t.props.revokedAt);
  return layout(
    viewer,
    'api-keys',
    'Settings · API Keys',
    html`${settingsTabs('api-keys')}
${noticeBox(view.notice)}
${
  view.newSecret
    ? html`<div class="notice ok" role="alert" id="new-token">
  <p><strong>Your new API token “${view.newSecret.name}”.</strong> Copy it now: it is shown only this once and cannot be shown again (only its SHA-256 hash is kept).</p>
  <div class="secret"><label class="sr-only" for="new-token-value">New API token</label>
    <input type="text" id="new-token-value" readonly value="${view.newSecret.secret}">
    <button type="button" class="secondary" data-copy="new-token-value">Copy</button></div>
  <p class="muted">Send it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
</div>`
    : ''
}
${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
${generateForm(viewer, view)}
<h2>Your tokens</h2>
${active.length ? tokenTable(active.map(row), 'Active tokens') : html`<p class="muted">${revoked.length ? 'No active tokens.' : 'No tokens yet.'}</p>`}
${
  revoked.length
    ? html`<details class="revoked-tokens"><summary>Revoked tokens (${revoked.length})</summary>
${tokenTable(revoked.map(row), 'Revoked tokens')}
</details>`
    : ''
}
${curlCard(view)}`,
  );
}

export function revokeConfirmPage(viewer: DashboardViewer, token: ApiToken): Html {
  const t = token.props;
  return layout(
    viewer,
    'api-keys',
    'Revoke API token?',
    html`<div class="card">
  <p>Revoke <strong>${t.name}</strong> (<span class="mono">${t.displayPrefix}…</span>)? Every request that uses it is refused from that moment on. This cannot be undone.</p>
  <form method="post" action="/dashboard/settings/api-keys/${t.id}/revoke">${csrfField(viewer)}
    <button class="danger" type="submit" id="confirm-revoke">Revoke Token</button>
    <a class="button secondary" href="/dashboard/settings/api-keys">Cancel</a>
  </form>
</div>`,
  );
}
