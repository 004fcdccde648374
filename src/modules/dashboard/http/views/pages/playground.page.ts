import { captureTabs } from './batches.page';
import type { RenderProps } from '../../../../renders/domain/render';
import type { DashboardViewer } from '../../dashboard-request';
import { CAPTURE_REQUEST_FIELDS, FormField, SAVABLE_OPTION_NAMES } from '../../website-form';
import type { WebsiteChoices } from '../../../application/dashboard-queries';
import { accessNotice, websiteChooser } from '../components';
import { Html, html, utcTime } from '../html';
import { ApiSnippets, SNIPPET_LANGUAGES } from '../api-snippets';
import { captureReportView } from '../../../../screenshots/domain/capture-report';
import { captureReportSection } from './screenshots.page';
import { csrfField, layout } from '../layout';
import { CaptureResult, captureResultPanel, formErrors, formFields, FormState } from './website-form.page';
import { isImageFormat } from '../../../../../shared/domain/output-format';

/** The playground's own controls (shown by this page; listed so errors and values find them). */
export const PLAYGROUND_SOURCE_FIELDS: readonly FormField[] = [
  { name: 'website_id', label: 'Website', kind: 'select', section: 'website' },
  { name: 'url', label: 'URL', kind: 'text', section: 'website' },
  { name: 'name', label: 'Name for “Save as website”', kind: 'text', section: 'website' },
  { name: 'link_expires', label: 'Signed link expires', kind: 'select', section: 'website' },
];

/** How long a signed link of the playground lives (`expires`); 7 days unless another choice is made. */
export const LINK_LIFETIMES: ReadonlyArray<{ value: string; label: string; seconds: number | null }> = [
  { value: '1h', label: '1 hour', seconds: 3600 },
  { value: '1d', label: '1 day', seconds: 86_400 },
  { value: '7d', label: '7 days', seconds: 7 * 86_400 },
  { value: '30d', label: '30 days', seconds: 30 * 86_400 },
  { value: 'never', label: 'never (until the key is deleted)', seconds: null },
];
export const DEFAULT_LINK_LIFETIME = '7d';

/** The lifetime chosen in the form (the default for anything else). */
export function linkLifetime(value: string | null): (typeof LINK_LIFETIMES)[number] {
  return LINK_LIFETIMES.find((l) => l.value === value) ?? LINK_LIFETIMES.find((l) => l.value === DEFAULT_LINK_LIFETIME)!;
}

/** The signed `/render` link of a URL try, made with the account's newest render key; 'no-keys': offer to create one. */
export type SignedLinkView = { link: string; keyName: string | null; accessKey: string; expiresAt: Date | null; lifetime: string } | 'no-keys';

/** What a Cancel during the wait did (`?cancel=`): fixed texts only, so a crafted link cannot put words here. */
export const CANCEL_OUTCOMES = {
  cancelled: { kind: 'ok', text: 'Cancelled. The capture had not started and never will: no screenshot is taken, nothing is added to your gallery.' },
  running: {
    kind: 'warn',
    text: 'It had already started, so it cannot be stopped now: it will finish (within the capture’s time limit) and its screenshot will be in your gallery.',
  },
  ended: { kind: 'info', text: 'It had already finished: there was nothing left to cancel.' },
} as const;
export type CancelOutcome = keyof typeof CANCEL_OUTCOMES;

/** The message of a cancel's outcome (the page without script, and the script's "Cancelled"). */
export function cancelNotice(outcome: string | undefined): Html {
  const found = outcome && Object.hasOwn(CANCEL_OUTCOMES, outcome) ? CANCEL_OUTCOMES[outcome as CancelOutcome] : undefined;
  return found ? html`<p class="notice ${found.kind}" role="status" id="cancel-notice">${found.text}</p>` : html``;
}

/**
 * Cancel, under a capture that waits: a plain form (CSRF token, the page's options carried back in `back`), so it
 * works without script; with script it is posted in place, the polling stops and the panel says "Cancelled".
 */
export function cancelForm(viewer: DashboardViewer, jobId: string, back: string): Html {
  return html`<form method="post" action="/dashboard/playground/jobs/${jobId}/cancel" class="cancel-capture" id="cancel-capture-form" data-cancel-job>${csrfField(viewer)}
<input type="hidden" name="back" value="${back}">
<button type="submit" class="secondary" id="cancel-capture">Cancel</button> <span class="hint">Stops the capture if it has not started yet.</span></form>`;
}

export interface PlaygroundView {
  websites: WebsiteChoices;
  /** What was typed in the website chooser's search. */
  site: string;
  /** `?cancel=`: what a Cancel did, shown over the result. */
  cancelled?: string;
  /** The page's options as a query, carried by Cancel back to this page. */
  back: string;
  state: FormState;
  hasAccess: boolean;
  result: CaptureResult | null;
  /** A URL try: the render it made (kept an hour). */
  rendered: RenderProps | null;
  snippets: ApiSnippets;
  /** Only for a URL (a website's capture is no render). */
  signedLink: SignedLinkView | null;
}

/** The capture report beside a render's picture: in words (as a screenshot's page shows it), then as the API's JSON. */
function reportBlock(report: RenderProps['capture']): Html {
  const view = captureReportView(report);
  if (!view) return html``;
  return html`${captureReportSection(report)}
<details class="report-json" id="report-json"><summary>The report as JSON <span class="muted">(<code>capture</code> of <code>response_type=json</code>; headers <code>X-Capture-*</code>)</span></summary>
<pre class="mono">${JSON.stringify(view, null, 2)}</pre></details>`;
}

/** The result of a URL try: the render's picture (or a link to its PDF), served by the dashboard from storage. */
export function renderedPanel(render: RenderProps): Html {
  const src = `/dashboard/playground/renders/${render.id}/image`;
  const size = render.fileSize === null ? '' : ` · ${Math.ceil(render.fileSize / 1024)} KB`;
  const took = render.finishedAt
    ? html` <span class="muted">in ${((render.finishedAt.getTime() - render.createdAt.getTime()) / 1000).toFixed(1)} s</span>`
    : '';
  return html`<section class="card capture-result" id="capture-result" aria-live="polite">
<h2>Result</h2>
<div class="capture-result-body"><p class="job-line">Render <code>${render.id}</code> <span class="badge badge-succeeded">ready</span>${took}</p>
<figure class="capture-shot">
  ${!isImageFormat(render.format) ? html`<p><a href="${src}">Open the ${render.format === 'pdf' ? 'PDF' : render.format}</a></p>` : html`<a href="${src}"><img id="capture-image" src="${src}" alt="The capture" width="${render.width ?? ''}" height="${render.height ?? ''}"></a>`}
  <figcaption>${render.format.toUpperCase()}${render.width ? ` · ${render.width}×${render.height} px` : ''}${size} · <a href="${src}" download>Download</a> · kept an hour, not in your gallery</figcaption>
</figure>
${reportBlock(render.capture)}</div>
</section>`;
}

function signedLinkCard(viewer: DashboardViewer, signed: SignedLinkView | null, state: FormState): Html {
  if (!signed) return html``;
  if (signed === 'no-keys') {
    return html`<div class="signed-link" id="signed-link">
  <p class="muted">A signed link shows this render in an <code>&lt;img src&gt;</code> without a token; it needs a render key.</p>
  <form method="post" action="/dashboard/settings/render-keys">${csrfField(viewer)}<input type="hidden" name="name" value="playground">
    <button type="submit" class="secondary" id="create-render-key">Create a render key</button></form>
</div>`;
  }
  const chosen = linkLifetime(state.values.get('link_expires'));
  return html`<div class="signed-link" id="signed-link">
  <label for="signed-link-value">Signed link <span class="muted">(render key ${signed.keyName ? html`“${signed.keyName}” ` : ''}<code>${signed.accessKey}</code>; no token needed)</span></label>
  <textarea id="signed-link-value" class="mono curl" readonly rows="4" spellcheck="false">${signed.link}</textarea>
  <p class="link-expiry" id="link-expiry">${
    signed.expiresAt
      ? html`Expires ${utcTime(signed.expiresAt)} (in ${chosen.label}); after that it answers <code>link_expired</code>.`
      : html`<strong>Never expires</strong>: it works until the render key is deleted.`
  } <span class="muted">Change it with “Signed link expires” in the form.</span></p>
  <p><button type="button" class="secondary" data-copy="signed-link-value" id="copy-signed-link">Copy signed link</button></p>
</div>`;
}

/** The four snippets: without script one under the other, with it as tabs (dashboard.js). */
function snippetsBlock(snippets: ApiSnippets): Html {
  return html`<div class="snippets" data-tabs>
  <div class="tab-list" role="tablist" hidden>${SNIPPET_LANGUAGES.map(
    (l, i) =>
      html`<button type="button" role="tab" id="tab-${l.key}" aria-controls="snippet-${l.key}" aria-selected="${i === 0 ? 'true' : 'false'}">${l.label}</button>`,
  )}</div>
  ${SNIPPET_LANGUAGES.map(
    (l) => html`<div class="snippet" id="snippet-${l.key}" role="tabpanel" aria-labelledby="tab-${l.key}">
    <h3 class="snippet-title">${l.label}</h3>
    <label class="sr-only" for="${l.key === 'curl' ? 'curl-command' : `code-${l.key}`}">${l.label} code</label>
    <textarea id="${l.key === 'curl' ? 'curl-command' : `code-${l.key}`}" class="mono curl" readonly spellcheck="false" rows="${Math.min(24, Math.max(3, Math.ceil(snippets[l.key].split('\n').length * 1.4)))}">${snippets[l.key]}</textarea>
    <p><button type="button" class="secondary" data-copy="${l.key === 'curl' ? 'curl-command' : `code-${l.key}`}">Copy ${l.label}</button></p>
  </div>`,
  )}
</div>`;
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
  const lifetime = linkLifetime(v.get('link_expires')).value;
  const notSaved = CAPTURE_REQUEST_FIELDS.filter(
    (f) => !SAVABLE_OPTION_NAMES.has(f.name) && !['viewport_width', 'viewport_height', 'full_page'].includes(f.name),
  );
  const shown = [...PLAYGROUND_SOURCE_FIELDS, ...CAPTURE_REQUEST_FIELDS].map((f) => f.name);
  return layout(
    viewer,
    'playground',
    'Capture playground',
    html`${captureTabs('playground')}
${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
<p class="muted">Try a page with any capture option and see the result here. A URL is rendered as <code>GET /render</code> would
(no website is made, nothing lands in your gallery); <em>Save as website</em> keeps the URL and options.</p>
<div class="playground">
<div class="pg-result">${view.rendered ? renderedPanel(view.rendered) : view.result ? captureResultPanel(view.result, view.cancelled === 'running' ? html`` : cancelForm(viewer, view.result.job.id, view.back), cancelNotice(view.cancelled)) : html`<section class="card muted" id="capture-result"><h2>Result</h2><p>Press <strong>Try</strong>: the capture shows here.</p></section>`}</div>
<div class="pg-form">${formErrors(state, shown)}
<form class="wform" id="playground-form" method="post" action="/dashboard/playground" data-default-format="png" data-in-place data-progress novalidate>${csrfField(viewer)}
<button type="submit" name="action" value="try" class="default-submit" tabindex="-1" aria-hidden="true"${view.hasAccess ? '' : html` disabled`}>Try</button>
<fieldset class="section"><legend>Page</legend><div class="form-grid">
  <div class="field wide" data-field="url"><label for="f-url">URL</label>
    <input type="text" id="f-url" name="url" value="${v.get('url') ?? ''}" placeholder="https://example.com/"${invalid(state, 'url')}>
    <p class="hint">Or pick one of your websites below (its saved options then fill what you leave at default).</p>${fieldError(state, 'url')}</div>
  <div class="field" data-field="website_id"><label for="f-website_id">Website</label>
    ${websiteChooser({ select: 'f-website_id', search: 'f-website-search' }, view.websites, chosen, view.site, invalid(state, 'website_id'), '— the URL above —')}${fieldError(state, 'website_id')}</div>
  <div class="field" data-field="name"><label for="f-name">Name for “Save as website” <span class="muted">(optional)</span></label>
    <input type="text" id="f-name" name="name" value="${v.get('name') ?? ''}" placeholder="the URL’s host"${invalid(state, 'name')}>${fieldError(state, 'name')}</div>
  <div class="field" data-field="link_expires"><label for="f-link_expires">Signed link expires</label>
    <select id="f-link_expires" name="link_expires">${LINK_LIFETIMES.map((l) => html`<option value="${l.value}"${l.value === lifetime ? html` selected` : ''}>${l.label}</option>`)}</select>
    <p class="hint">For the signed <code>/render</code> link beside the result (a URL try).</p></div>
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
  <p class="muted">Exactly the options above, in four languages. Each reads the token from <code>SCREENSHOT_TOKEN</code> (curl: <code>$TOKEN</code>); make one in Settings → API Keys.</p>
  ${snippetsBlock(view.snippets)}
  ${signedLinkCard(viewer, view.signedLink, state)}
</section>
</div>`,
  );
}
