import { isSecretFill, SECRET_MASK } from '../../scenarios/domain/step-secrets';
import { isStepType, MAX_STEPS, Step, STEP_DEFINITIONS, StepFieldSpec, StepType } from '../../scenarios/domain/steps';

/**
 * The scenario editor's steps as an HTML form carries them: indexed fields named as the API's validation errors
 * name them (`steps[2].selector`), so an error lands next to its input by name. A draft keeps what the person
 * typed, as typed, until the API's own parser (parseSteps, through the same DTO pipe as POST /scenarios) judges it.
 * Which fields a step has, and how a typed string becomes a JSON value, comes from STEP_DEFINITIONS alone.
 */

export interface StepDraft {
  /** As posted; possibly not a known type (then the parser says so, next to the step). */
  type: string;
  /** Field → the text in its input ('' for an empty or missing input). */
  values: Record<string, string>;
  /**
   * A secret fill value typed but not saved yet, sealed for this session (SecretCarry): the page shows
   * "********" in its place and never the value, and the next post of the form brings it back.
   */
  carry?: string;
}

/** The field of a fill step that marks its value secret (step-secrets.ts): a checkbox in the editor. */
export const SECRET_FIELD = 'secret';

/** Whether the draft is a fill step marked secret (its value input is masked). */
export function isSecretDraft(draft: StepDraft): boolean {
  return draft.type === 'fill' && draft.values[SECRET_FIELD] === 'true';
}

/** What a submit button of the editor asks for: save, or change the list of steps and show the form again. */
export type EditorOp =
  { kind: 'save' } | { kind: 'add'; type: StepType } | { kind: 'remove'; index: number } | { kind: 'up'; index: number } | { kind: 'down'; index: number };

/** More than a form with MAX_STEPS steps can hold is never read (the parser reports the count anyway). */
const MAX_READ_INDEX = MAX_STEPS * 2;
const FIELD_NAME = /^steps\[(\d{1,4})\]\.([a-z_]{1,32})$/;

export function fieldsOf(type: string): ReadonlyArray<[string, StepFieldSpec]> {
  return isStepType(type) ? (Object.entries(STEP_DEFINITIONS[type].fields) as Array<[string, StepFieldSpec]>) : [];
}

/** The steps of a posted editor form, in index order (gaps closed). */
export function draftsFromForm(form: URLSearchParams): StepDraft[] {
  const byIndex = new Map<number, StepDraft>();
  for (const [name, value] of form) {
    const match = FIELD_NAME.exec(name);
    if (!match) continue;
    const index = Number(match[1]);
    if (index > MAX_READ_INDEX) continue;
    const draft = byIndex.get(index) ?? { type: '', values: {} };
    if (match[2] === 'type') draft.type = value;
    else if (match[2] === 'carry') draft.carry = value;
    else draft.values[match[2]] = value;
    byIndex.set(index, draft);
  }
  return [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, draft]) => ({
      type: draft.type,
      values: Object.fromEntries(fieldsOf(draft.type).map(([key]) => [key, draft.values[key] ?? ''])),
      ...(draft.carry ? { carry: draft.carry } : {}),
    }));
}

/**
 * A saved scenario's steps, as the form shows them: a secret fill value as "********", which saved again keeps
 * the stored value (keepStepSecrets), so the page never holds it.
 */
export function draftsFromSteps(steps: readonly Step[]): StepDraft[] {
  return steps.map((step) => {
    const raw = (isSecretFill(step) ? { ...step, value: SECRET_MASK } : step) as unknown as Record<string, unknown>;
    const values: Record<string, string> = {};
    for (const [key] of fieldsOf(step.type)) {
      const value = raw[key];
      values[key] = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
    }
    return { type: step.type, values };
  });
}

/**
 * Seals and opens the secret values a re-shown form carries (bound to the viewer's session, so a carry is
 * worthless in another one). The controller implements it with the SecretBox.
 */
export interface SecretCarry {
  seal(value: string): string;
  /** The value, or null for a carry this session did not seal. */
  open(sealed: string): string | null;
}

/** The drafts as posted, with each carried secret put back where the form showed "********". */
export function uncarrySecrets(drafts: readonly StepDraft[], carry: SecretCarry): StepDraft[] {
  return drafts.map((draft) => {
    if (draft.carry === undefined) return draft;
    const { carry: sealed, ...rest } = draft;
    const value = draft.values.value === SECRET_MASK ? carry.open(sealed) : null;
    return value === null ? rest : { ...rest, values: { ...rest.values, value } };
  });
}

/** The drafts as the page may show them: a typed secret value replaced by "********" and carried sealed. */
export function carrySecrets(drafts: readonly StepDraft[], carry: SecretCarry): StepDraft[] {
  return drafts.map((draft) => {
    const { carry: _old, ...rest } = draft;
    if (!isSecretDraft(draft) || draft.values.value === SECRET_MASK) return rest;
    return { ...rest, values: { ...rest.values, value: SECRET_MASK }, carry: carry.seal(draft.values.value ?? '') };
  });
}

/** An empty step of `type`. */
export function newDraft(type: StepType): StepDraft {
  return { type, values: Object.fromEntries(fieldsOf(type).map(([key]) => [key, ''])) };
}

/**
 * The JSON a client of the API would have sent for these inputs: an empty optional field is left out, a number
 * field holding digits becomes a number, a yes/no field a boolean. Anything else stays the text it was, so the
 * parser's message ("must be an integer from 0 to 30000") is the API's.
 */
export function rawSteps(drafts: readonly StepDraft[]): Array<Record<string, unknown>> {
  return drafts.map((draft) => {
    const raw: Record<string, unknown> = { type: draft.type };
    for (const [key, spec] of fieldsOf(draft.type)) {
      const text = draft.values[key] ?? '';
      if (spec.kind === 'integer') {
        const trimmed = text.trim();
        if (trimmed === '') continue;
        raw[key] = /^-?\d{1,15}$/.test(trimmed) ? Number(trimmed) : text;
      } else if (spec.kind === 'boolean') {
        if (text === '') continue;
        raw[key] = text === 'true' ? true : text === 'false' ? false : text;
      } else {
        raw[key] = text;
      }
    }
    return raw;
  });
}

/** The editor's `op` button value; anything unknown counts as save (the Enter key submits the first button). */
export function parseOp(value: string | null | undefined): EditorOp {
  const match = /^(add|remove|up|down):(.+)$/.exec(value ?? '');
  if (!match) return { kind: 'save' };
  if (match[1] === 'add') return isStepType(match[2]) ? { kind: 'add', type: match[2] } : { kind: 'save' };
  if (!/^\d{1,4}$/.test(match[2])) return { kind: 'save' };
  return { kind: match[1] as 'remove' | 'up' | 'down', index: Number(match[2]) };
}

/** The steps after an add / remove / move (out-of-range moves change nothing). Never more than MAX_STEPS by adding. */
export function applyOp(drafts: readonly StepDraft[], op: Exclude<EditorOp, { kind: 'save' }>): StepDraft[] {
  const out = [...drafts];
  switch (op.kind) {
    case 'add':
      if (out.length < MAX_STEPS) out.push(newDraft(op.type));
      return out;
    case 'remove':
      if (op.index < out.length) out.splice(op.index, 1);
      return out;
    case 'up':
      if (op.index > 0 && op.index < out.length) [out[op.index - 1], out[op.index]] = [out[op.index], out[op.index - 1]];
      return out;
    case 'down':
      if (op.index + 1 < out.length) [out[op.index], out[op.index + 1]] = [out[op.index + 1], out[op.index]];
      return out;
  }
}

/** Where the focus belongs after an op (the step it touched), for the re-rendered form's anchor. */
export function focusAfter(op: Exclude<EditorOp, { kind: 'save' }>, count: number): number | null {
  if (count === 0) return null;
  switch (op.kind) {
    case 'add':
      return count - 1;
    case 'remove':
      return Math.min(op.index, count - 1);
    case 'up':
      return Math.max(op.index - 1, 0);
    case 'down':
      return Math.min(op.index + 1, count - 1);
  }
}
