import type { WebsiteProps } from '../../../../websites/domain/website';
import type { DashboardViewer } from '../../dashboard-request';
import { CAPTURE_REQUEST_FIELDS, FormField, SAVABLE_OPTION_NAMES } from '../../website-form';
import { accessNotice } from '../components';
import { Html, html } from '../html';
import { csrfField, layout } from '../layout';
import { CaptureResult, captureResultPanel, formErrors, formFields, FormState } from './website-form.page';

/** The playground's own controls (shown by this page; listed so errors and values find them). */
export const PLAYGROUND_SOURCE_FIELDS: readonly FormField[] = [
  { name: 'website_id', label: 'Website', kind: 'select', section: 'website' },
  { name: 'url', label: 'URL', kind: 'text', section: 'website' },
  { name: 'name', label: 'Name for “Save as website”', kind: 'text', section: 'website' },
];

export interface PlaygroundView {
  websites: Array<{ id: number; name: string }>;
  state: FormState;
  hasAccess: boolean;
  result: CaptureResult | null;
  curl: string;
}

/** A string as one single-quoted shell word. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The API calls a try stands for, copy-ready: the token is always the $TOKEN placeholder (never a real one).
 * A URL-only try needs a website first, so it is two calls.
 */
export function curlCommand(origin: string, website: WebsiteProps | null, url: string, body: Record<string, unknown>, triedWebsiteId: number | null): string {
  const auth = `  -H "Authorization: Bearer $TOKEN" \\\n  -H 'Content-Type: application/json'`;
  const json = JSON.stringify(body);
  const capture = (id: string) =>
    `curl -X POST ${shellQuote(`${origin}/websites/${id}/screenshot`)} \\\n${auth}${json === '{}' ? '' : ` \\\n  -d ${shellQuote(json)}`}`;
  if (website) return `# Capture "${website.name}" with these options (the website's saved options fill the rest)\n${capture(String(website.id))}`;
  const create = `curl -X POST ${shellQuote(`${origin}/websites`)} \\\n${auth} \\\n  -d ${shellQuote(JSON.stringify({ name: hostName(url), url: url || 'https://example.com/' }))}`;
  return [
    "# 1. Register the page once: the answer's data.id is its WEBSITE_ID",
    create,
    `# 2. Capture it with these options${triedWebsiteId ? ` (the dashboard's try used website ${triedWebsiteId})` : ''}`,
    capture('$WEBSITE_ID').replace(shellQuote(`${origin}/websites/$WEBSITE_ID/screenshot`), `"${origin}/websites/$WEBSITE_ID/screenshot"`),
  ].join('\n');
}

function hostName(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'My page';
  }
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
    html`${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
<p class="muted">Try a page with any capture option and see the result here. A URL is captured through your account’s
<strong>Playground (dashboard)</strong> website (paused, so no schedule runs it); <em>Save as website</em> keeps the URL and options.</p>
<div class="playground">
<div class="pg-result">${view.result ? captureResultPanel(view.result) : html`<section class="card muted" id="capture-result"><h2>Result</h2><p>Press <strong>Try</strong>: the capture shows here.</p></section>`}</div>
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
  <textarea id="curl-command" class="mono curl" readonly rows="${view.curl.split('\n').length}">${view.curl}</textarea>
  <p><button type="button" class="secondary" data-copy="curl-command">Copy</button> <span class="muted">Replace <code>$TOKEN</code> with an API token (Settings → API Keys).</span></p>
</section>
</div>`,
  );
}
