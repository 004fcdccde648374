import { DEVICES } from '../../../../../shared/domain/devices';
import { DEFAULT_FORMAT } from '../../../../../shared/domain/output-format';
import { resolveOutput } from '../../../../../shared/domain/capture-option-rules';
import type { JobProps } from '../../../../jobs/domain/job';
import type { ScreenshotProps } from '../../../../screenshots/domain/screenshot';
import type { WebsiteProps } from '../../../../websites/domain/website';
import type { DashboardViewer } from '../../dashboard-request';
import { controlNames, FieldSection, FormField, WEBSITE_FIELDS } from '../../website-form';
import { accessNotice, SessionChoice, sessionSelect } from '../components';
import { badge, Html, html } from '../html';
import { csrfField, layout } from '../layout';
import { jobErrorCell } from './automation-parts';
import { isImageFormat } from '../../../../../shared/domain/output-format';
import { captureReportSection } from './screenshots.page';

/** A form's state: what was typed (or saved), and the errors of the last post by field ('' = the whole form). */
export interface FormState {
  values: URLSearchParams;
  errors: Map<string, string[]>;
  /** Sealed secrets typed into this form before (website-form.ts, "Secrets typed into a form"). */
  carry?: string;
  /** The values are a draft kept when the session expired on submit (form-drafts.ts): the form says so. */
  restored?: boolean;
  /**
   * The account's saved sessions, offered by a `session` field (session_id) as a select (SessionChoices). Left out,
   * the field is a number box, as a form that never loaded them can still send what was typed.
   */
  sessions?: readonly SessionChoice[];
}

/** Above a form filled from a draft: nothing was sent, and the secrets must be typed again. */
export function restoredNotice(restored: boolean | undefined): Html {
  return restored
    ? html`<div class="notice info" role="status" id="draft-restored">Restored what you typed before your session expired. Nothing has been sent yet: check it and send it again (passwords, tokens, headers, cookies and credentials are never kept — type them again).</div>`
    : html``;
}

const SECTION_TITLES: Record<FieldSection, string> = {
  website: 'Website',
  capture: 'This capture',
  output: 'Output format',
  page: 'Page and device',
  blocking: 'Blocking',
  secrets: 'Headers, cookies and credentials (never shown again once saved)',
  changes: 'Change history',
};

const controlId = (name: string) => `f-${name.replace(/[^a-z0-9_-]/gi, '-')}`;

function errorList(state: FormState, field: FormField): Html {
  const messages = state.errors.get(field.name);
  if (!messages?.length) return html``;
  return html`<p class="field-error" id="e-${field.name}">${messages.join(' · ')}</p>`;
}

/** aria attributes of a control whose field has an error. */
function invalid(state: FormState, field: FormField): Html {
  return state.errors.get(field.name)?.length ? html` aria-invalid="true" aria-describedby="e-${field.name}"` : html``;
}

/** A device's name with the viewport it sets (as GET /devices lists it); other choices as they are. */
function choiceLabel(field: FormField, choice: string): string {
  const device = field.name === 'device' ? DEVICES[choice] : undefined;
  return device ? `${choice} — ${device.width}×${device.height}` : choice;
}

/** A group of controls (fieldset) names its error; aria-invalid belongs to single controls. */
function describedBy(state: FormState, field: FormField): Html {
  return state.errors.get(field.name)?.length ? html` aria-describedby="e-${field.name}"` : html``;
}

function defaultLabel(field: FormField): string {
  return field.placeholder ? `default (${field.placeholder})` : 'default';
}

function control(field: FormField, state: FormState): Html {
  const v = state.values;
  const id = controlId(field.name);
  const value = v.get(field.name) ?? '';
  const placeholder = field.placeholder ? html` placeholder="${field.placeholder}"` : html``;
  const label = html`<label for="${id}">${field.label}${field.required ? '' : html` <span class="muted">(optional)</span>`}</label>`;
  switch (field.kind) {
    case 'statuses':
    case 'text': {
      const list = field.suggestions ? html` list="dl-${field.name}" autocomplete="off"` : html``;
      const options = field.suggestions
        ? html`<datalist id="dl-${field.name}">${field.suggestions.map((o) => html`<option value="${o}">`)}</datalist>`
        : html``;
      return html`${label}<input type="text" id="${id}" name="${field.name}" value="${value}"${placeholder}${field.required ? html` required` : ''}${list}${invalid(state, field)}>${options}`;
    }
    case 'session':
      if (state.sessions)
        return html`${label}${sessionSelect({ id, name: field.name }, state.sessions, value.trim(), state.sessions.length ? 'None' : 'None (no saved sessions yet)', invalid(state, field))}`;
      return html`${label}<input type="text" class="short" inputmode="numeric" id="${id}" name="${field.name}" value="${value}"${placeholder}${invalid(state, field)}>`;
    case 'int':
    case 'decimal':
      return html`${label}<input type="text" class="short" inputmode="${field.kind === 'int' ? 'numeric' : 'decimal'}" id="${id}" name="${field.name}" value="${value}"${placeholder}${invalid(state, field)}>`;
    case 'checkbox':
    case 'flag':
      return html`<label class="check" for="${id}"><input type="checkbox" id="${id}" name="${field.name}" value="on"${v.has(field.name) ? html` checked` : ''}${invalid(state, field)}> ${field.label}</label>`;
    case 'tristate':
      return html`${label}<select id="${id}" name="${field.name}"${invalid(state, field)}>
  <option value=""${value === '' ? html` selected` : ''}>${defaultLabel(field)}</option>
  <option value="true"${value === 'true' ? html` selected` : ''}>yes</option>
  <option value="false"${value === 'false' ? html` selected` : ''}>no</option></select>`;
    case 'select':
      return html`${label}<select id="${id}" name="${field.name}"${invalid(state, field)}>
  ${field.required || field.name === 'status' ? '' : html`<option value="">${defaultLabel(field)}</option>`}
  ${(field.choices ?? []).map((c) => html`<option value="${c}"${c === value ? html` selected` : ''}>${choiceLabel(field, c)}</option>`)}</select>`;
    case 'textarea':
    case 'lines':
    case 'scripts':
    case 'headers':
    case 'cookies':
      return html`${label}<textarea id="${id}" name="${field.name}" rows="3"${field.kind === 'textarea' ? '' : html` class="mono"`}${placeholder}${invalid(state, field)}>${value}</textarea>`;
    case 'choices': {
      const chosen = new Set(v.getAll(field.name));
      return html`<fieldset class="choices"${describedBy(state, field)}><legend>${field.label}</legend>
  ${(field.choices ?? []).map(
    (c) => html`<label class="check"><input type="checkbox" name="${field.name}" value="${c}"${chosen.has(c) ? html` checked` : ''}> ${c}</label>`,
  )}</fieldset>`;
    }
    case 'clip':
      return html`<fieldset class="clip"${describedBy(state, field)}><legend>${field.label} <span class="muted">(optional)</span></legend>
  ${controlNames(field).map((name) => {
    const part = name.split('.')[1];
    return html`<label for="${controlId(name)}">${part}<input type="text" class="short" inputmode="numeric" id="${controlId(name)}" name="${name}" value="${v.get(name) ?? ''}"></label>`;
  })}</fieldset>`;
    case 'http_auth':
      return html`<fieldset class="clip"${describedBy(state, field)}><legend>${field.label} <span class="muted">(optional)</span></legend>
  <label for="${controlId('http_auth.username')}">username<input type="text" autocomplete="off" id="${controlId('http_auth.username')}" name="http_auth.username" value="${v.get('http_auth.username') ?? ''}"></label>
  <label for="${controlId('http_auth.password')}">password<input type="password" autocomplete="new-password" id="${controlId('http_auth.password')}" name="http_auth.password" value="${v.get('http_auth.password') ?? ''}"></label>
</fieldset>`;
  }
}

export function fieldBlock(field: FormField, state: FormState): Html {
  const wide = ['textarea', 'lines', 'scripts', 'headers', 'cookies', 'choices', 'clip', 'http_auth'].includes(field.kind) || field.name === 'url';
  const formats = field.formats ? html` data-formats="${field.formats.join(' ')}"` : html``;
  return html`<div class="field${wide ? ' wide' : ''}" data-field="${field.name}"${formats}>${control(field, state)}${
    field.hint ? html`<p class="hint">${field.hint}</p>` : ''
  }${errorList(state, field)}</div>`;
}

/**
 * The fields grouped by section: the first section open, the others folded (<details>, no script needed)
 * unless one of their fields is set or has an error.
 */
export function formFields(fields: readonly FormField[], state: FormState, openSections: FieldSection[] = []): Html {
  const sections = [...new Set(fields.map((f) => f.section))];
  return html`${sections.map((section, i) => {
    const inSection = fields.filter((f) => f.section === section);
    const used = inSection.some((f) => state.errors.has(f.name) || controlNames(f).some((n) => (state.values.get(n) ?? '') !== ''));
    const grid = html`<div class="form-grid">${inSection.map((f) => fieldBlock(f, state))}</div>`;
    if (i === 0 || openSections.includes(section)) return html`<fieldset class="section"><legend>${SECTION_TITLES[section]}</legend>${grid}</fieldset>`;
    return html`<details class="section"${used ? html` open` : ''}><summary>${SECTION_TITLES[section]}</summary>${grid}</details>`;
  })}`;
}

/**
 * The summary above a form: the errors that name no field shown on the page, listed; the others are beside their
 * fields, which it points to only when there is one (`shown`: the names of the fields this page draws; all when
 * left out). Never "see the fields marked below" with nothing marked.
 */
export function formErrors(state: FormState, shown?: readonly string[]): Html {
  if (state.restored) return restoredNotice(true);
  const general: string[] = [];
  let marked = 0;
  for (const [name, messages] of state.errors) {
    if (name !== '' && (shown === undefined || shown.includes(name))) marked += messages.length;
    else general.push(...messages);
  }
  const count = general.length + marked;
  if (count === 0) return html``;
  const fields = marked === 1 ? 'the field' : 'the fields';
  return html`<div class="notice error" role="alert" id="form-errors"><strong>Please correct ${count === 1 ? 'this' : `these ${count}`}:</strong>${
    general.length ? html`<ul>${general.map((m) => html`<li>${m}</li>`)}</ul>` : ''
  }${marked === 0 ? '' : general.length ? html`<p>… and ${fields} marked below.</p>` : html` see ${fields} marked below.`}</div>`;
}

function carryField(state: FormState): Html {
  return state.carry ? html`<input type="hidden" name="_carry" value="${state.carry}">` : html``;
}

/** Create or edit a website: every field of POST/PUT /websites, capture options included. */
export function websiteFormPage(viewer: DashboardViewer, website: WebsiteProps | null, state: FormState, hasAccess: boolean): Html {
  const action = website ? `/dashboard/websites/${website.id}/edit` : '/dashboard/websites';
  const title = website ? `Edit ${website.name}` : 'New website';
  return layout(
    viewer,
    'websites',
    title,
    html`${accessNotice(hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
${formErrors(state)}
<form class="wform" method="post" action="${action}" data-default-format="${DEFAULT_FORMAT}" novalidate>${csrfField(viewer)}${carryField(state)}
${formFields(WEBSITE_FIELDS, state)}
<p class="hint">Options left at “default” use the service’s defaults; a capture request can override each of them.</p>
<div class="form-actions">
  <button type="submit" id="save-website"${hasAccess ? '' : html` disabled aria-disabled="true"`}>${website ? 'Save changes' : 'Create website'}</button>
  <a class="button secondary" href="/dashboard/websites">Cancel</a>
  ${website ? html`<a class="button danger" href="/dashboard/websites/${website.id}/delete">Delete…</a>` : ''}
</div>
${
  website
    ? html`<p class="hint"><a href="/dashboard/websites/${website.id}/screenshot">Take a screenshot with options</a> ·
  <a href="/dashboard/playground?website_id=${website.id}">Try options in the playground</a> (saved changes first)</p>`
    : ''
}
</form>`,
  );
}

export function deleteConfirmPage(viewer: DashboardViewer, website: WebsiteProps): Html {
  return layout(
    viewer,
    'websites',
    'Delete website?',
    html`<div class="card">
  <p>Delete <strong>${website.name}</strong> (<span class="mono wrap">${website.url}</span>)? Its screenshots (files included), scenarios and
  schedules are deleted with it, and its queued jobs fail. This cannot be undone.</p>
  <form method="post" action="/dashboard/websites/${website.id}/delete">${csrfField(viewer)}
    <button class="danger" type="submit" id="confirm-delete">Delete website</button>
    <a class="button secondary" href="/dashboard/websites">Cancel</a>
  </form>
</div>`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// A capture's live result (the take-screenshot page and the playground)

export interface CaptureResult {
  job: JobProps;
  shot: ScreenshotProps | null;
}

/** Where the page's script reads a job's progress (JSON with this same panel's markup). */
export const jobStatusPath = (jobId: string) => `/dashboard/playground/jobs/${jobId}`;

/** The inside of the result panel: the job's state, then the picture once there is one. */
export function captureResultBody(result: CaptureResult): Html {
  const { job, shot } = result;
  const waiting = job.status === 'queued' || job.status === 'running';
  const took = job.startedAt && job.finishedAt ? ` in ${((job.finishedAt.getTime() - job.startedAt.getTime()) / 1000).toFixed(1)} s` : '';
  return html`<p class="job-line">Job <a href="/dashboard/jobs/${job.id}"><code>${job.id}</code></a> ${badge(job.status)}${
    waiting ? html` <span class="muted">${job.status === 'queued' ? 'waiting for a browser…' : 'capturing…'}</span>` : html` <span class="muted">${took}</span>`
  }</p>
${waiting ? html`<progress class="job-progress" aria-label="Capture in progress"></progress><noscript><p><a href="">Reload</a> to see the result (this page also reloads by itself).</p></noscript>` : ''}
${job.status === 'failed' ? html`<p class="notice error">${job.error === null ? 'The capture failed.' : jobErrorCell(job)}</p>` : ''}
${
  shot
    ? html`<figure class="capture-shot">
  <a href="/dashboard/screenshots/${shot.id}"><img id="capture-image" src="/dashboard/screenshots/${shot.id}/${!isImageFormat(shot.format) ? 'thumbnail' : 'image'}" alt="The capture" width="${shot.width}" height="${shot.height}"></a>
  <figcaption>${shot.format.toUpperCase()} · ${shot.width}×${shot.height} px · ${Math.ceil(shot.fileSize / 1024)} KB ·
    <a href="/dashboard/screenshots/${shot.id}">Open</a> · <a href="/dashboard/screenshots/${shot.id}/download">Download</a></figcaption>
</figure>
${captureReportSection(shot.capture)}`
    : ''
}`;
}

/**
 * The result panel; while the job runs, pages reload by themselves without script, and poll with it. `whileWaiting`
 * (the playground's Cancel) stands under the job's state while it waits, outside the part the polling redraws;
 * `notice` (what a cancel did) above it.
 */
export function captureResultPanel(result: CaptureResult | null, whileWaiting: Html = html``, notice: Html = html``): Html {
  if (!result) return html``;
  const waiting = result.job.status === 'queued' || result.job.status === 'running';
  return html`<section class="card capture-result" id="capture-result" aria-live="polite"${waiting ? html` data-job-poll="${jobStatusPath(result.job.id)}"` : ''}>
<h2>Result</h2>
${waiting ? html`<noscript><meta http-equiv="refresh" content="2"></noscript>` : ''}
${notice}<div class="capture-result-body">${captureResultBody(result)}</div>
${waiting ? whileWaiting : ''}
</section>`;
}

/** "Take screenshot" with options: one capture of the website, its saved options filling what is left at default. */
export function takeScreenshotPage(
  viewer: DashboardViewer,
  website: WebsiteProps,
  fields: readonly FormField[],
  state: FormState,
  hasAccess: boolean,
  result: CaptureResult | null,
): Html {
  return layout(
    viewer,
    'websites',
    `Screenshot of ${website.name}`,
    html`${accessNotice(hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
<p class="muted wrap"><a href="${website.url}" rel="noopener noreferrer nofollow">${website.url}</a> · ${website.viewportWidth}×${website.viewportHeight}${
      website.fullPage ? ', full page' : ''
    } · <a href="/dashboard/websites/${website.id}/edit">Edit the website’s saved options</a></p>
${captureResultPanel(result)}
${formErrors(state)}
<form class="wform" method="post" action="/dashboard/websites/${website.id}/screenshot" data-default-format="${resolveOutput({}, website.captureOptions).format}" data-in-place novalidate>${csrfField(viewer)}
<input type="hidden" name="_options" value="1">
${formFields(fields, state)}
<p class="hint">Left at “default”, an option is the website’s saved one (or the service’s default).</p>
<div class="form-actions"><button type="submit" id="take-screenshot"${hasAccess ? '' : html` disabled aria-disabled="true"`}>Take screenshot</button>
<a class="button secondary" href="/dashboard/websites">Back to websites</a></div>
</form>`,
  );
}
