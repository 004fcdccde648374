import type { RenderKeyProps } from '../../../../render-keys/domain/render-key';
import type { DashboardViewer } from '../../dashboard-request';
import { accessNotice, dataTable, hiddenHeading, noticeBox, tableBox } from '../components';
import { Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';

export interface RenderKeysView {
  keys: RenderKeyProps[];
  hasAccess: boolean;
  /** Set only on the page right after "Create render key": the one time the secret is ever shown. */
  created?: { name: string | null; accessKey: string; secret: string };
  notice?: string;
  nameError?: string;
  /** Where this service answers, for the example link (PUBLIC_URL, else the address the browser used). */
  origin: string;
}

/** The two kinds of keys, one tab each: tokens call the API, render keys sign links. */
export function settingsTabs(current: 'api-keys' | 'render-keys'): Html {
  const tab = (key: typeof current, label: string) =>
    html`<a href="/dashboard/settings/${key}"${key === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="subnav" aria-label="Keys">${tab('api-keys', 'API tokens')}${tab('render-keys', 'Render keys')}</nav>`;
}

/** A shell recipe that signs a link with the new key, ready to paste (the secret in it only while it is shown). */
export function signingExample(origin: string, accessKey: string, secret: string): string {
  return [
    `query='url=https%3A%2F%2Fexample.com&access_key=${accessKey}'`,
    `sig=$(printf '%s' "$query" | openssl dgst -sha256 -hmac '${secret}' | awk '{print $2}')`,
    `echo "${origin}/render?$query&signature=$sig"`,
  ].join('\n');
}

function createdNotice(view: RenderKeysView): Html {
  const created = view.created;
  if (!created) return html``;
  return html`<div class="notice ok" role="alert" id="new-render-key">
  <p><strong>Your new render key${created.name ? html` “${created.name}”` : ''}.</strong> Copy its secret now: it is shown only this once and cannot be shown again.</p>
  <p>Access key (public, goes in every link): <code class="mono" id="new-render-key-access">${created.accessKey}</code></p>
  <div class="secret"><label class="sr-only" for="new-render-key-secret">Secret of the new render key</label>
    <input type="text" id="new-render-key-secret" readonly value="${created.secret}">
    <button type="button" class="secondary" data-copy="new-render-key-secret">Copy</button></div>
  <label for="signing-example">Sign a link with it (shell):</label>
  <textarea id="signing-example" class="curl" rows="3" readonly spellcheck="false">${signingExample(view.origin, created.accessKey, created.secret)}</textarea>
  <p><button type="button" class="secondary" data-copy="signing-example">Copy example</button></p>
</div>`;
}

function createForm(viewer: DashboardViewer, view: RenderKeysView): Html {
  return html`<form class="card" method="post" action="/dashboard/settings/render-keys">
  ${csrfField(viewer)}
  <label for="render-key-name">Key name (optional)</label>
  <input type="text" id="render-key-name" name="name" maxlength="100" placeholder="e.g. blog thumbnails" ${view.nameError ? html`aria-invalid="true" aria-describedby="name-error"` : ''}>
  ${view.nameError ? html`<p class="notice error" id="name-error">${view.nameError}</p>` : ''}
  <p><button type="submit" id="create-render-key"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>Create render key</button></p>
</form>`;
}

export function renderKeysPage(viewer: DashboardViewer, view: RenderKeysView): Html {
  const row = (k: RenderKeyProps) => html`<tr data-render-key-id="${k.id}">
  <td>${k.name ?? html`<span class="muted">unnamed</span>`}</td>
  <td class="mono">${k.accessKey}</td>
  <td>${utcTime(k.createdAt)}</td>
  <td><a class="button danger" href="/dashboard/settings/render-keys/${k.id}/delete">Delete</a></td>
</tr>`;
  return layout(
    viewer,
    'api-keys',
    'Settings · Render keys',
    html`${settingsTabs('render-keys')}
${noticeBox(view.notice)}
${createdNotice(view)}
<p class="muted">A render key signs <code>/render</code> links, so a capture can sit in an <code>&lt;img src&gt;</code> without your API token: the link carries <code>access_key</code> and, last, <code>signature</code> = the hex HMAC-SHA256 of the query before it, keyed with the secret. <a href="/docs#/Render%20keys">API docs</a></p>
${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
${createForm(viewer, view)}
<h2>Your render keys</h2>
${
  view.keys.length
    ? tableBox('Render keys', dataTable(['Name', 'Access key', 'Created', hiddenHeading('Actions')], view.keys.map(row)), 'render-key-cards')
    : html`<p class="muted">No render keys yet.</p>`
}`,
  );
}

export function deleteRenderKeyPage(viewer: DashboardViewer, key: RenderKeyProps): Html {
  return layout(
    viewer,
    'api-keys',
    'Delete render key?',
    html`<div class="card">
  <p>Delete ${key.name ? html`<strong>${key.name}</strong> ` : ''}(<span class="mono">${key.accessKey}</span>)? Every link it signed stops working at once. This cannot be undone.</p>
  <form method="post" action="/dashboard/settings/render-keys/${key.id}/delete">${csrfField(viewer)}
    <button class="danger" type="submit" id="confirm-delete">Delete render key</button>
    <a class="button secondary" href="/dashboard/settings/render-keys">Cancel</a>
  </form>
</div>`,
  );
}
