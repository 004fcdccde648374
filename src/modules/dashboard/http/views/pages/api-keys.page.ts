import type { ApiToken } from '../../../../accounts/domain/api-token';
import type { DashboardViewer } from '../../dashboard-request';
import { accessNotice, dataTable, hiddenHeading, noticeBox } from '../components';
import { badge, Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';

export interface ApiKeysView {
  tokens: ApiToken[];
  hasAccess: boolean;
  /** Set only on the response to "Generate API Token": the one time the secret is ever shown. */
  newSecret?: { name: string; secret: string };
  notice?: string;
  nameError?: string;
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
  const rows = view.tokens.map((token) => {
    const t = token.props;
    return html`<tr data-token-id="${t.id}">
  <td>${t.name}</td>
  <td class="mono">${t.displayPrefix}…</td>
  <td>${utcTime(t.createdAt)}</td>
  <td>${utcTime(t.lastUsedAt, 'never')}</td>
  <td>${t.revokedAt ? html`${badge('revoked')} ${utcTime(t.revokedAt)}` : badge('active')}</td>
  <td>${t.revokedAt ? '' : html`<a class="button danger" href="/dashboard/settings/api-keys/${t.id}/revoke">Revoke Token</a>`}</td>
</tr>`;
  });
  return layout(
    viewer,
    'api-keys',
    'Settings · API Keys',
    html`${noticeBox(view.notice)}
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
${
  view.tokens.length
    ? dataTable(['Name', 'Prefix', 'Created', 'Last used', 'Status', hiddenHeading('Actions')], rows)
    : html`<p class="muted">No tokens yet.</p>`
}`,
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
