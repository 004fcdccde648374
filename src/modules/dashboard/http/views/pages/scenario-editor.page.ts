import type { JobProps } from '../../../../jobs/domain/job';
import type { ScenarioProps } from '../../../../scenarios/domain/scenario';
import { MAX_STEPS, PRESS_NAMED_KEYS, SCROLL_TO_BOTTOM, STEP_DEFINITIONS, STEP_TYPES, StepFieldSpec } from '../../../../scenarios/domain/steps';
import type { DashboardViewer } from '../../dashboard-request';
import { fieldsOf, isSecretDraft, newDraft, SECRET_FIELD, StepDraft } from '../../step-form';
import type { WebsiteChoices } from '../../../application/dashboard-queries';
import { accessNotice, dataTable, hiddenHeading, SessionChoice, sessionSelect, websiteChooser } from '../components';
import { badge, Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';
import { automationNotice, errorSummary, executionHref, fieldError, invalidAttrs, jobErrorText, jobLink, scrollBox } from './automation-parts';

export interface ScenarioForm {
  name: string;
  description: string;
  websiteId: string;
  /** '' = no session of its own (the website's capture options decide). */
  sessionId: string;
  steps: StepDraft[];
}

export interface ScenarioEditorView {
  /** null: a new scenario. */
  scenario: ScenarioProps | null;
  form: ScenarioForm;
  /** The website chooser's choices (at most PICKER_LIMIT matches of `site`, the chosen one always among them). */
  websites: WebsiteChoices;
  /** What the website chooser's search holds. */
  site: string;
  /** The account's saved sessions, for session_id. */
  sessions: readonly SessionChoice[];
  /** Messages by the API's field names (`name`, `steps[2].selector`). */
  errors: Map<string, string>;
  /** The step to scroll to after an add / remove / move (its anchor). */
  focusStep: number | null;
  recentRuns: JobProps[];
  hasAccess: boolean;
  notice?: string;
}

const stepId = (i: number, key: string) => `step-${i}-${key}`;

/** A step field's label; the few whose key is not a word people use get their own. */
const LABELS: Record<string, string> = { url: 'URL', to: 'Scroll to' };

function label(key: string): string {
  return LABELS[key] ?? key.charAt(0).toUpperCase() + key.slice(1).replace(/_/g, ' ');
}

function hint(spec: StepFieldSpec): string {
  switch (spec.kind) {
    case 'url':
      return 'An http or https address.';
    case 'selector':
      return 'A CSS selector, e.g. #login or button[type=submit].';
    case 'value':
      return 'Text to type or choose; may be empty.';
    case 'integer':
      return `${spec.description}, ${spec.min} to ${spec.max}${spec.default !== undefined ? `; empty: ${spec.default}` : ''}.`;
    case 'key':
      return 'One printable character, or a named key such as Enter, Tab, Escape, ArrowDown.';
    case 'scrollTarget':
      return `"${SCROLL_TO_BOTTOM}" for the end of the page, or a CSS selector to scroll into view.`;
    case 'boolean':
      return spec.description;
  }
}

/**
 * One input of a step, generated from its field's definition. A fill step's `secret` is a checkbox; its value,
 * when secret, a password input that only ever holds "********" (the typed value travels sealed in `carry`).
 */
function stepField(i: number, key: string, spec: StepFieldSpec, draft: StepDraft, error: string | undefined): Html {
  const id = stepId(i, key);
  const name = `steps[${i}].${key}`;
  const value = draft.values[key] ?? '';
  const optional = 'optional' in spec && spec.optional === true;
  const bad = invalidAttrs(id, error);
  let input: Html;
  switch (spec.kind) {
    case 'boolean':
      if (draft.type === 'fill' && key === SECRET_FIELD) {
        return html`<div class="field">
  <label for="${id}"><input type="checkbox" id="${id}" name="${name}" value="true"${value === 'true' ? html` checked` : ''}${bad}> Secret value</label>
  <p class="hint">Stored encrypted and shown as ********; saved with ******** the stored value is kept.</p>
  ${fieldError(id, error)}
</div>`;
      }
      input = html`<select id="${id}" name="${name}"${bad}>
  <option value=""${value === '' ? html` selected` : ''}>Default</option>
  <option value="true"${value === 'true' ? html` selected` : ''}>Yes</option>
  <option value="false"${value === 'false' ? html` selected` : ''}>No</option>
  ${value !== '' && value !== 'true' && value !== 'false' ? html`<option value="${value}" selected>${value}</option>` : ''}
</select>`;
      break;
    case 'integer':
      input = html`<input type="number" inputmode="numeric" id="${id}" name="${name}" value="${value}" min="${spec.min}" max="${spec.max}" step="1"${spec.default !== undefined ? html` placeholder="${spec.default}"` : ''}${bad}>`;
      break;
    case 'key':
      input = html`<input type="text" class="mono" id="${id}" name="${name}" value="${value}" list="press-keys" autocomplete="off"${bad}>`;
      break;
    case 'scrollTarget':
      input = html`<input type="text" class="mono" id="${id}" name="${name}" value="${value}" list="scroll-targets" autocomplete="off"${bad}>`;
      break;
    case 'url':
      input = html`<input type="text" inputmode="url" class="mono" id="${id}" name="${name}" value="${value}" autocomplete="off" spellcheck="false"${bad}>`;
      break;
    case 'selector':
      input = html`<input type="text" class="mono" id="${id}" name="${name}" value="${value}" autocomplete="off" spellcheck="false"${bad}>`;
      break;
    case 'value':
      input = isSecretDraft(draft)
        ? html`<input type="password" id="${id}" name="${name}" value="${value}" autocomplete="new-password"${bad}>${draft.carry ? html`<input type="hidden" name="steps[${i}].carry" value="${draft.carry}">` : ''}`
        : html`<input type="text" id="${id}" name="${name}" value="${value}" autocomplete="off"${bad}>`;
      break;
  }
  return html`<div class="field">
  <label for="${id}">${label(key)}${optional ? html` <span class="muted">(optional)</span>` : ''}</label>
  ${input}
  <p class="hint">${hint(spec)}</p>
  ${fieldError(id, error)}
</div>`;
}

function stepBox(draft: StepDraft, i: number, count: number, errors: Map<string, string>): Html {
  const known = (STEP_TYPES as readonly string[]).includes(draft.type);
  const definition = known ? STEP_DEFINITIONS[draft.type as keyof typeof STEP_DEFINITIONS] : null;
  const stepErrors = [errors.get(`steps[${i}]`), errors.get(`steps[${i}].type`)].filter((m): m is string => m !== undefined);
  // Errors of this step the inputs do not show (a field this form never sends, named by a crafted post).
  const shown = new Set([`steps[${i}]`, `steps[${i}].type`, ...fieldsOf(draft.type).map(([key]) => `steps[${i}].${key}`)]);
  for (const [field, message] of errors) if (field.startsWith(`steps[${i}]`) && !shown.has(field)) stepErrors.push(message);
  const n = i + 1;
  return html`<li class="step${stepErrors.length || fieldsOf(draft.type).some(([key]) => errors.has(`steps[${i}].${key}`)) ? ' has-error' : ''}" id="step-${i}" data-step-index="${i}">
<fieldset>
  <legend>Step ${n} <code>${draft.type || '(no type)'}</code></legend>
  <input type="hidden" name="steps[${i}].type" value="${draft.type}">
  ${definition ? html`<p class="muted step-what">${definition.description}.</p>` : ''}
  ${stepErrors.map((m) => html`<p class="field-error" id="step-${i}-error">${m}</p>`)}
  <div class="step-fields">${fieldsOf(draft.type).map(([key, spec]) => stepField(i, key, spec, draft, errors.get(`steps[${i}].${key}`)))}</div>
  <div class="step-actions">
    <button type="submit" class="secondary small" name="op" value="up:${i}"${i === 0 ? html` disabled` : ''} aria-label="Move step ${n} up">↑ Up</button>
    <button type="submit" class="secondary small" name="op" value="down:${i}"${i === count - 1 ? html` disabled` : ''} aria-label="Move step ${n} down">↓ Down</button>
    <button type="submit" class="secondary small danger-text" name="op" value="remove:${i}" aria-label="Remove step ${n}">Remove</button>
  </div>
</fieldset>
</li>`;
}

/** Every problem of the form, linked to its input, for the summary at the top. */
function summary(view: ScenarioEditorView): Html {
  const anchors: Record<string, string> = {
    name: 'scenario-name',
    description: 'scenario-description',
    website_id: 'scenario-website',
    session_id: 'scenario-session',
    steps: 'steps',
  };
  return errorSummary(
    [...view.errors].map(([field, message]) => {
      const step = /^steps\[(\d+)\](?:\.([a-z_]+))?/.exec(field);
      if (step) {
        const i = Number(step[1]);
        const key = step[2];
        const anchor = key && fieldsOf(view.form.steps[i]?.type ?? '').some(([k]) => k === key) ? stepId(i, key) : `step-${i}`;
        // The message names its step already ("Step 1: the selector must not be empty.", form-messages.ts).
        return { message, anchor };
      }
      return { message, anchor: anchors[field] ?? null };
    }),
  );
}

function recentRuns(runs: JobProps[]): Html {
  if (runs.length === 0) return html`<p class="muted">Not run yet.</p>`;
  const rows = runs.map(
    (run) => html`<tr data-execution-id="${run.id}">
  <td><a href="${executionHref(run.id)}">${utcTime(run.createdAt)}</a></td>
  <td>${badge(run.status)}</td>
  <td>${jobLink(run.id)}</td>
  <td>${jobErrorText(run) ?? ''}</td>
  <td><a href="${executionHref(run.id)}">Run details</a></td>
</tr>`,
  );
  return scrollBox(dataTable(['Started', 'Status', 'Job', 'Error', hiddenHeading('Details')], rows), 'runs');
}

/** The scenario editor: name, description, website and the steps, each step's inputs generated from STEP_DEFINITIONS. */
export function scenarioEditorPage(viewer: DashboardViewer, view: ScenarioEditorView): Html {
  const s = view.scenario;
  const action = s ? `/dashboard/scenarios/${s.id}/edit` : '/dashboard/scenarios/new';
  const e = view.errors;
  const count = view.form.steps.length;
  const content = html`${automationNotice(view.notice)}${summary(view)}
${
  s
    ? html`<div class="page-actions">
  <form class="inline" method="post" action="/dashboard/scenarios/${s.id}/run">${csrfField(viewer)}<input type="hidden" name="then" value="details"><button type="submit" id="run-scenario"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>Run now</button></form>
  <a class="button danger" href="/dashboard/scenarios/${s.id}/delete" id="delete-scenario">Delete…</a>
</div>`
    : ''
}${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
<form method="post" action="${action}" class="editor" id="scenario-form" data-live-steps data-max-steps="${MAX_STEPS}" novalidate>
${csrfField(viewer)}
<button type="submit" name="op" value="save" class="default-submit" tabindex="-1" aria-hidden="true">Save</button>
<div class="card">
  <div class="field">
    <label for="scenario-name">Name</label>
    <input type="text" id="scenario-name" name="name" value="${view.form.name}" maxlength="255" required${invalidAttrs('scenario-name', e.get('name'))}>
    ${fieldError('scenario-name', e.get('name'))}
  </div>
  <div class="field">
    <label for="scenario-description">Description <span class="muted">(optional)</span></label>
    <textarea id="scenario-description" name="description" rows="2" maxlength="2000"${invalidAttrs('scenario-description', e.get('description'))}>${view.form.description}</textarea>
    ${fieldError('scenario-description', e.get('description'))}
  </div>
  <div class="field">
    <label for="scenario-website">Website</label>
    ${websiteChooser({ select: 'scenario-website', search: 'scenario-website-search' }, view.websites, view.form.websiteId, view.site, invalidAttrs('scenario-website', e.get('website_id')))}
    <p class="hint">A run opens this website's address at its viewport, then performs the steps, then takes a final screenshot.</p>
    ${fieldError('scenario-website', e.get('website_id'))}
  </div>
  <div class="field">
    <label for="scenario-session">Saved session</label>
    ${sessionSelect({ id: 'scenario-session', name: 'session_id' }, view.sessions, view.form.sessionId, 'None: the website’s', invalidAttrs('scenario-session', e.get('session_id')))}
    <p class="hint">A run starts logged in with it (a schedule’s own session wins). See <a href="/dashboard/sessions">Sessions</a>.</p>
    ${fieldError('scenario-session', e.get('session_id'))}
  </div>
</div>
<h2 id="steps">Steps <span class="muted">(<span id="step-count">${count}</span> of at most ${MAX_STEPS})</span></h2>
${fieldError('steps', e.get('steps'))}
<p class="muted" id="no-steps"${count === 0 ? '' : html` hidden`}>No steps yet: add one below.</p>
<ol class="steps">${view.form.steps.map((draft, i) => stepBox(draft, i, count, e))}</ol>
${
  // An empty step of each type, for the page's script: with it, add / remove / move happen in the page (no post);
  // it renumbers every step's names and ids as the server would. Without script the buttons post the form.
  STEP_TYPES.map((type) => html`<template id="step-template-${type}">${stepBox(newDraft(type), 0, 1, new Map())}</template>`)
}
<div class="card add-steps" id="add-step">
  <h3>Add a step</h3>
  <div class="add-step-buttons">
  ${STEP_TYPES.map(
    (type) =>
      html`<button type="submit" class="secondary small" name="op" value="add:${type}" title="${STEP_DEFINITIONS[type].description}"${count >= MAX_STEPS ? html` disabled` : ''}>+ ${type}</button>`,
  )}
  </div>
</div>
<datalist id="press-keys">${PRESS_NAMED_KEYS.map((k) => html`<option value="${k}">`)}</datalist>
<datalist id="scroll-targets"><option value="${SCROLL_TO_BOTTOM}"></datalist>
<div class="form-actions">
  <button type="submit" name="op" value="save" id="save-scenario"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>${s ? 'Save scenario' : 'Create scenario'}</button>
  <a href="/dashboard/scenarios">Cancel</a>
</div>
${view.focusStep !== null ? html`<input type="hidden" id="focus-step" value="step-${view.focusStep}">` : ''}
</form>
${s ? html`<h2>Recent runs</h2>${recentRuns(view.recentRuns)}` : ''}`;
  // Never refreshed while runs are under way: a reload would throw away what is being typed (Run details refresh instead).
  return layout(viewer, 'scenarios', s ? `Edit scenario “${s.name}”` : 'New scenario', content);
}

export function deleteScenarioPage(viewer: DashboardViewer, scenario: ScenarioProps): Html {
  return layout(
    viewer,
    'scenarios',
    'Delete scenario?',
    html`<div class="card">
  <p>Delete the scenario <strong>${scenario.name}</strong> and its ${scenario.steps.length} ${scenario.steps.length === 1 ? 'step' : 'steps'}? Screenshots its runs took stay in the gallery. This cannot be undone.</p>
  <form method="post" action="/dashboard/scenarios/${scenario.id}/delete">${csrfField(viewer)}
    <button class="danger" type="submit" id="confirm-delete">Delete scenario</button>
    <a class="button secondary" href="/dashboard/scenarios/${scenario.id}/edit">Cancel</a>
  </form>
</div>`,
  );
}
