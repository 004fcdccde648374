import { captureTabs } from './batches.page';
import type { RenderProps } from '../../../../renders/domain/render';
import type { WebsiteProps } from '../../../../websites/domain/website';
import type { DashboardViewer } from '../../dashboard-request';
import { CAPTURE_REQUEST_FIELDS, FormField, SAVABLE_OPTION_NAMES } from '../../website-form';
import { accessNotice } from '../components';
import { Html, html } from '../html';
import { csrfField, layout } from '../layout';
import { CaptureResult, captureResultPanel, formErrors, formFields, FormState } from './website-form.page';
import { isImageFormat } from '../../../../../shared/domain/output-format';

/** The playground's own controls (shown by this page; listed so errors and values find them). */
export const PLAYGROUND_SOURCE_FIELDS: readonly FormField[] = [
  { name: 'website_id', label: 'Website', kind: 'select', section: 'website' },
  { name: 'url', label: 'URL', kind: 'text', section: 'website' },
  { name: 'name', label: 'Name for “Save as website”', kind: 'text', section: 'website' },
];

/** The signed `/render` link of a URL try, made with the account's newest render key; 'no-keys': offer to create one. */
export type SignedLinkView = { link: string; keyName: string | null; accessKey: string } | 'no-keys';

export interface PlaygroundView {
  websites: Array<{ id: number; name: string }>;
  state: FormState;
  hasAccess: boolean;
  result: CaptureResult | null;
  /** A URL try: the render it made (kept an hour). */
  rendered: RenderProps | null;
  curl: string;
  /** Only for a URL (a website's capture is no render). */
  signedLink: SignedLinkView | null;
}

/**
 * The `/render` query of a URL try: `url` first, then each option as GET /render reads it (lists repeated, objects
 * as JSON, the rest as strings).
 */
export function renderQuery(url: string, body: Record<string, unknown>): string {
  const query = new URLSearchParams({ url });
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) for (const v of value) query.append(name, v);
    else if (typeof value === 'object') query.append(name, JSON.stringify(value));
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') query.append(name, String(value));
  }
  return query.toString();
}

/** The one-line curl of a URL try: GET /render with the bearer token, the file saved as shot.<format>. */
export function renderCurl(origin: string, query: string, format: string): string {
  const extension = format === 'jpeg' ? 'jpg' : format;
  // URLSearchParams leaves no $, backquote, double quote or backslash in the query: safe inside double quotes.
  return `curl -H "Authorization: Bearer $TOKEN" "${origin}/render?${query}" -o shot.${extension}`;
}

/** The result of a URL try: the render's picture (or a link to its PDF), served by the dashboard from storage. */
export function renderedPanel(render: RenderProps): Html {
  const src = `/dashboard/playground/renders/${render.id}/image`;
  const size = render.fileSize === null ? '' : ` · ${Math.ceil(render.fileSize / 1024)} KB`;
  return html`<section class="card capture-result" id="capture-result" aria-live="polite">
<h2>Result</h2>
<div class="capture-result-body"><p class="job-line">Render <code>${render.id}</code> <span class="badge badge-succeeded">ready</span></p>
<figure class="capture-shot">
  ${!isImageFormat(render.format) ? html`<p><a href="${src}">Open the ${render.format === 'pdf' ? 'PDF' : render.format}</a></p>` : html`<a href="${src}"><img id="capture-image" src="${src}" alt="The capture" width="${render.width ?? ''}" height="${render.height ?? ''}"></a>`}
  <figcaption>${render.format.toUpperCase()}${render.width ? ` · ${render.width}×${render.height} px` : ''}${size} · <a href="${src}" download>Download</a> · kept an hour, not in your gallery</figcaption>
</figure></div>
</section>`;
}

function signedLinkCard(viewer: DashboardViewer, signed: SignedLinkView | null): Html {
  if (!signed) return html``;
  if (signed === 'no-keys') {
    return html`<div class="signed-link" id="signed-link">
  <p class="muted">A signed link shows this render in an <code>&lt;img src&gt;</code> without a token; it needs a render key.</p>
  <form method="post" action="/dashboard/settings/render-keys">${csrfField(viewer)}<input type="hidden" name="name" value="playground">
    <button type="submit" class="secondary" id="create-render-key">Create a render key</button></form>
</div>`;
  }
  return html`<div class="signed-link" id="signed-link">
  <label for="signed-link-value">Signed link <span class="muted">(render key ${signed.keyName ? html`“${signed.keyName}” ` : ''}<code>${signed.accessKey}</code>; no token needed)</span></label>
  <textarea id="signed-link-value" class="mono curl" readonly rows="4" spellcheck="false">${signed.link}</textarea>
  <p><button type="button" class="secondary" data-copy="signed-link-value" id="copy-signed-link">Copy signed link</button></p>
</div>`;
}

/** A string as one single-quoted shell word. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The API call a try of one of the account's websites stands for, copy-ready (the token is the $TOKEN placeholder). */
export function curlCommand(origin: string, website: WebsiteProps, body: Record<string, unknown>): string {
  const json = JSON.stringify(body);
  return [
    `# Capture "${website.name}" with these options (the website's saved options fill the rest)`,
    `curl -X POST ${shellQuote(`${origin}/websites/${website.id}/screenshot`)} \\`,
    `  -H "Authorization: Bearer $TOKEN" \\`,
    `  -H 'Content-Type: application/json'${json === '{}' ? '' : ` \\\n  -d ${shellQuote(json)}`}`,
  ].join('\n');
}

function fieldError(state: FormState, name: string): Html {
  const messages = state.errors.get(name);
  return messages?.length ? html`<p class="field-error" id="e-${name}">${messages.join(' · ')}</p>` : html``;
}

const invalid = (state: FormState, name: string) => (state.errors.get(name)?.length ? html` aria-invalid="true" aria-describedby="e-${name}"` : html``);

export function playgroundPage(viewer: DashboardViewer, view: PlaygroundView): Html {
  const { state } = view;
  const v = state.values;
  const chosen = v.get('website_id') ?? '';
  const notSaved = CAPTURE_REQUEST_FIELDS.filter(
    (f) => !SAVABLE_OPTION_NAMES.has(f.name) && !['viewport_width', 'viewport_height', 'full_page'].includes(f.name),
  );
  return layout(
    viewer,
    'playground',
    'Capture playground',
    html`${captureTabs('playground')}
${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
<p class="muted">Try a page with any capture option and see the result here. A URL is rendered as <code>GET /render</code> would
(no website is made, nothing lands in your gallery); <em>Save as website</em> keeps the URL and options.</p>
<div class="playground">
<div class="pg-result">${view.rendered ? renderedPanel(view.rendered) : view.result ? captureResultPanel(view.result) : html`<section class="card muted" id="capture-result"><h2>Result</h2><p>Press <strong>Try</strong>: the capture shows here.</p></section>`}</div>
<div class="pg-form">${formErrors(state)}
<form class="wform" id="playground-form" method="post" action="/dashboard/playground" data-default-format="png" data-in-place novalidate>${csrfField(viewer)}
<fieldset class="section"><legend>Page</legend><div class="form-grid">
  <div class="field wide" data-field="url"><label for="f-url">URL</label>
    <input type="text" id="f-url" name="url" value="${v.get('url') ?? ''}" placeholder="https://example.com/"${invalid(state, 'url')}>
    <p class="hint">Or pick one of your websites below (its saved options then fill what you leave at default).</p>${fieldError(state, 'url')}</div>
  <div class="field" data-field="website_id"><label for="f-website_id">Website</label>
    <select id="f-website_id" name="website_id"${invalid(state, 'website_id')}><option value="">— the URL above —</option>
    ${view.websites.map((w) => html`<option value="${w.id}"${String(w.id) === chosen ? html` selected` : ''}>${w.name}</option>`)}</select>${fieldError(state, 'website_id')}</div>
  <div class="field" data-field="name"><label for="f-name">Name for “Save as website” <span class="muted">(optional)</span></label>
    <input type="text" id="f-name" name="name" value="${v.get('name') ?? ''}" placeholder="the URL’s host"${invalid(state, 'name')}>${fieldError(state, 'name')}</div>
</div></fieldset>
${formFields(CAPTURE_REQUEST_FIELDS, state, ['capture'])}
<div class="form-actions">
  <button type="submit" name="action" value="try" id="try-capture"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>Try</button>
  <button type="submit" name="action" value="save" class="secondary" id="save-as-website" data-navigate${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>Save as website</button>
</div>
<p class="hint">A website keeps every option except ${notSaved.map((f, i) => html`${i ? ', ' : ''}<code>${f.name}</code>`)}, which apply to one capture only.</p>
</form></div>
<section class="card pg-curl">
  <h2>The same with the API</h2>
  <label class="sr-only" for="curl-command">curl command</label>
  <textarea id="curl-command" class="mono curl" readonly rows="${Math.max(3, view.curl.split('\n').length)}">${view.curl}</textarea>
  <p><button type="button" class="secondary" data-copy="curl-command">Copy</button> <span class="muted">Replace <code>$TOKEN</code> with an API token (Settings → API Keys).</span></p>
  ${signedLinkCard(viewer, view.signedLink)}
</section>
</div>`,
  );
}
