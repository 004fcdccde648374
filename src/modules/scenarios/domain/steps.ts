import { FieldError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { UrlPolicy } from '../../../shared/url-policy';
import { isValidCssSelector } from '../../../shared/css-selector/css-selector';

/**
 * Scenario steps (spec: Scenario; API.md: Scenarios). A step is a plain JSON object discriminated by `type`.
 * Field names are the wire names (snake_case), because steps are stored and returned exactly as normalised here.
 */

export const STEP_TYPES = ['navigate', 'fill', 'click', 'wait', 'wait_for', 'hover', 'press', 'select', 'scroll', 'screenshot'] as const;
export type StepType = (typeof STEP_TYPES)[number];

/** Goes to `url` (must pass the URL policy, here synchronously and again at run time). */
export interface NavigateStep {
  type: 'navigate';
  url: string;
}
/**
 * Replaces the value of an input/textarea/contenteditable. `value` is never logged (redactStepForLogs); with
 * `secret: true` it is also sealed at rest and shown as "********" (step-secrets.ts).
 */
export interface FillStep {
  type: 'fill';
  selector: string;
  value: string;
  secret?: boolean;
}
export interface ClickStep {
  type: 'click';
  selector: string;
}
/** Sleeps `duration` milliseconds (0..MAX_WAIT_MS). */
export interface WaitStep {
  type: 'wait';
  duration: number;
}
/** Waits until `selector` matches, at most `timeout` ms (absent: DEFAULT_WAIT_FOR_TIMEOUT_MS, see waitForTimeoutOf). */
export interface WaitForStep {
  type: 'wait_for';
  selector: string;
  timeout?: number;
}
export interface HoverStep {
  type: 'hover';
  selector: string;
}
/** Presses one key: a printable ASCII character ("a", "A", "1", "/", " ") or one of PRESS_NAMED_KEYS. */
export interface PressStep {
  type: 'press';
  key: string;
}
/** Selects the option whose value is `value` in the <select> matched by `selector`. */
export interface SelectStep {
  type: 'select';
  selector: string;
  value: string;
}
/** Scrolls to the bottom of the page (`to: "bottom"`) or scrolls the element matched by the selector `to` into view. */
export interface ScrollStep {
  type: 'scroll';
  /** SCROLL_TO_BOTTOM or a CSS selector. */
  to: string;
}
/** Takes an extra screenshot. `full_page` absent: the website's own full_page setting applies. */
export interface ScreenshotStep {
  type: 'screenshot';
  full_page?: boolean;
}

export type Step = NavigateStep | FillStep | ClickStep | WaitStep | WaitForStep | HoverStep | PressStep | SelectStep | ScrollStep | ScreenshotStep;

export type StepOf<T extends StepType> = Extract<Step, { type: T }>;

// ---------------------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------------------

export const MIN_STEPS = 1;
export const MAX_STEPS = 50;
export const MAX_SELECTOR_LENGTH = 1000;
/** fill.value and select.value. */
export const MAX_VALUE_LENGTH = 10000;
export const MIN_WAIT_MS = 0;
export const MAX_WAIT_MS = 30000;
export const MIN_WAIT_FOR_TIMEOUT_MS = 1;
export const MAX_WAIT_FOR_TIMEOUT_MS = 30000;
export const DEFAULT_WAIT_FOR_TIMEOUT_MS = 10000;
export const SCROLL_TO_BOTTOM = 'bottom';
/**
 * At most this many details are listed for one body (a 1 MiB body of `[{},{},…]` must not produce a
 * multi-megabyte error); the 422's `details_total` gives the full count.
 */
export const MAX_REPORTED_ERRORS = 100;

/**
 * Named keys for `press` (KeyboardEvent.key spelling; matched case-insensitively and stored in this spelling).
 * "Space" is accepted as a readable alias of " ". Modifier keys are left out on purpose: pressed alone they
 * do nothing, and key chords ("Control+A") are not supported.
 */
export const PRESS_NAMED_KEYS = [
  'Enter',
  'Tab',
  'Escape',
  'Backspace',
  'Delete',
  'Insert',
  'Space',
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'F1',
  'F2',
  'F3',
  'F4',
  'F5',
  'F6',
  'F7',
  'F8',
  'F9',
  'F10',
  'F11',
  'F12',
] as const;
export type PressNamedKey = (typeof PRESS_NAMED_KEYS)[number];

// ---------------------------------------------------------------------------------------------------------
// The steps, declared once: this table drives the parser below and the OpenAPI schemas (http/openapi.ts)
// ---------------------------------------------------------------------------------------------------------

/** How one field of a step is checked (and documented). Every field is required unless `optional`. */
export type StepFieldSpec =
  | { kind: 'url' }
  | { kind: 'selector' }
  /** fill.value / select.value: any string up to MAX_VALUE_LENGTH, the empty string included (clears a field). */
  | { kind: 'value'; example: string }
  | { kind: 'integer'; min: number; max: number; optional?: true; default?: number; description: string; example?: number }
  /** A printable ASCII character or one of PRESS_NAMED_KEYS. */
  | { kind: 'key' }
  /** SCROLL_TO_BOTTOM (any case) or a CSS selector. */
  | { kind: 'scrollTarget' }
  | { kind: 'boolean'; optional: true; description: string };

export interface StepDefinition {
  /** What the step does, as documented. */
  description: string;
  /** The fields besides `type`, in the order they are checked and reported. */
  fields: Readonly<Record<string, StepFieldSpec>>;
}

/** Every step type: what it does and its fields. The interfaces above must match it (StepsMatchTable). */
export const STEP_DEFINITIONS = {
  navigate: { description: 'Go to a URL (it must pass the URL policy)', fields: { url: { kind: 'url' } } },
  fill: {
    description: 'Replace the value of an input, textarea or contenteditable (never logged)',
    fields: {
      selector: { kind: 'selector' },
      value: { kind: 'value', example: 'alice' },
      secret: {
        kind: 'boolean',
        optional: true,
        description:
          'The value is a secret (a password): stored encrypted, shown as "********" in every answer; sent back as "********" it keeps the stored value',
      },
    },
  },
  click: { description: 'Click an element (and follow the navigation it starts)', fields: { selector: { kind: 'selector' } } },
  wait: { description: 'Sleep', fields: { duration: { kind: 'integer', min: MIN_WAIT_MS, max: MAX_WAIT_MS, description: 'Milliseconds', example: 500 } } },
  wait_for: {
    description: 'Wait until a selector matches',
    fields: {
      selector: { kind: 'selector' },
      timeout: {
        kind: 'integer',
        min: MIN_WAIT_FOR_TIMEOUT_MS,
        max: MAX_WAIT_FOR_TIMEOUT_MS,
        optional: true,
        default: DEFAULT_WAIT_FOR_TIMEOUT_MS,
        description: 'Milliseconds',
      },
    },
  },
  hover: { description: 'Move the mouse over an element', fields: { selector: { kind: 'selector' } } },
  press: { description: 'Press one key', fields: { key: { kind: 'key' } } },
  select: {
    description: 'Choose the option with this value in a <select>',
    fields: { selector: { kind: 'selector' }, value: { kind: 'value', example: 'de' } },
  },
  scroll: { description: 'Scroll to the bottom of the page, or an element into view', fields: { to: { kind: 'scrollTarget' } } },
  screenshot: {
    description: 'Take an extra screenshot (a final one is always taken)',
    fields: { full_page: { kind: 'boolean', optional: true, description: 'Default: the website’s full_page' } },
  },
} as const satisfies { readonly [T in StepType]: StepDefinition };

/** Compile-time check: each step interface has exactly the table's fields, optional where the table says so. */
type FieldsOf<T extends StepType> = (typeof STEP_DEFINITIONS)[T]['fields'];
type RequiredKeys<F> = { [K in keyof F]: F[K] extends { optional: true } ? never : K }[keyof F];
type StepShapeOf<T extends StepType> = { type: T } & { [K in RequiredKeys<FieldsOf<T>>]: unknown } & {
  [K in Exclude<keyof FieldsOf<T>, RequiredKeys<FieldsOf<T>>>]?: unknown;
};
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type AllTrue<T extends { [K in StepType]: true }> = T;
/**
 * Does not compile when a step interface above and its definition disagree on the fields.
 * @public (exported so no linter takes the check for dead code)
 */
export type StepsMatchTable = AllTrue<{ [T in StepType]: Same<keyof StepOf<T>, keyof StepShapeOf<T>> }>;

/** The fields each step type accepts besides `type`, in the order they are checked and reported. */
export const STEP_FIELDS: { readonly [T in StepType]: readonly string[] } = Object.fromEntries(
  STEP_TYPES.map((type) => [type, Object.keys(STEP_DEFINITIONS[type].fields)]),
) as { [T in StepType]: string[] };

// ---------------------------------------------------------------------------------------------------------
// Helpers for the runner
// ---------------------------------------------------------------------------------------------------------

export function waitForTimeoutOf(step: WaitForStep): number {
  return step.timeout ?? DEFAULT_WAIT_FOR_TIMEOUT_MS;
}

/** Same shape as the capture port's ScrollTarget. */
export function scrollTargetOf(step: ScrollStep): 'bottom' | { selector: string } {
  return step.to === SCROLL_TO_BOTTOM ? 'bottom' : { selector: step.to };
}

export function isStepType(value: unknown): value is StepType {
  return typeof value === 'string' && (STEP_TYPES as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------------------

/** What parseSteps needs from the URL policy: its synchronous verdict, reason text kept as is. */
export interface StepUrlChecker {
  checkUrl(raw: string): { allowed: true } | { allowed: false; reason: string };
}

/** Adapts anything with UrlPolicy's synchronous `checkSyntax` (e.g. the app's configured policy). */
export function urlCheckerFromPolicy(policy: Pick<UrlPolicy, 'checkSyntax'>): StepUrlChecker {
  return {
    checkUrl(raw: string) {
      const verdict = policy.checkSyntax(raw);
      return verdict.allowed ? { allowed: true } : { allowed: false, reason: verdict.reason };
    },
  };
}

let syntaxOnlyChecker: StepUrlChecker | undefined;

/**
 * Used when parseSteps gets no policy: scheme (http/https), credentials, length and parse checks still apply;
 * literal private addresses are not refused (that needs the configured policy, which the runner applies anyway).
 */
function defaultUrlChecker(): StepUrlChecker {
  syntaxOnlyChecker ??= urlCheckerFromPolicy(new UrlPolicy({ allowPrivateNetworks: true, allowlist: [] }));
  return syntaxOnlyChecker;
}

const STEP_TYPE_LIST = STEP_TYPES.join(', ');
const NAMED_KEY_BY_LOWER: ReadonlyMap<string, PressNamedKey> = new Map(PRESS_NAMED_KEYS.map((k) => [k.toLowerCase(), k]));
const KEY_MESSAGE = `must be a single printable ASCII character or one of ${PRESS_NAMED_KEYS.join(', ')}`;

/** The first MAX_REPORTED_ERRORS problems, and how many there were (the walk is bounded: ≤ MAX_STEPS steps). */
class Problems {
  readonly list: FieldError[] = [];
  total = 0;

  add(field: string, message: string): void {
    this.total++;
    if (this.list.length < MAX_REPORTED_ERRORS) this.list.push({ field, message });
  }
}

type RawStep = Record<string, unknown>;

interface Ctx {
  readonly problems: Problems;
  readonly urls: StepUrlChecker;
}

/** `steps[1].foo`, or `steps[1]["odd key"]` when the key is not an identifier. */
function fieldPath(at: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;
}

function own(raw: RawStep, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(raw, key) ? raw[key] : undefined;
}

function isPlainObject(value: unknown): value is RawStep {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates the `steps` value of a Create/Update Scenario body and returns normalised steps (known fields
 * only; selectors trimmed; named keys in canonical spelling; `to: "bottom"` lower-cased). Throws
 * ValidationFailedError listing every problem, each with its exact place (`steps[3].selector`).
 * `policy` checks navigate URLs; without it only the policy's scheme/credentials/length/parse rules apply.
 */
export function parseSteps(input: unknown, policy?: StepUrlChecker): Step[] {
  const problems = new Problems();
  const ctx: Ctx = { problems, urls: policy ?? defaultUrlChecker() };
  const steps: Step[] = [];

  if (input === undefined) {
    problems.add('steps', 'steps is required');
  } else if (!Array.isArray(input)) {
    problems.add('steps', 'steps must be an array');
  } else if (input.length < MIN_STEPS || input.length > MAX_STEPS) {
    // Counted before any step is read: 100,000 steps are one problem, not a walk over them (issue 27).
    problems.add('steps', `steps must contain ${MIN_STEPS} to ${MAX_STEPS} steps`);
  } else {
    input.forEach((raw: unknown, index: number) => {
      const step = parseStep(raw, `steps[${index}]`, ctx);
      if (step !== undefined) steps.push(step);
    });
  }

  if (problems.total > 0) throw new ValidationFailedError(problems.list, problems.total);
  return steps;
}

function parseStep(raw: unknown, at: string, ctx: Ctx): Step | undefined {
  if (!isPlainObject(raw)) {
    ctx.problems.add(at, `${at} must be an object`);
    return undefined;
  }
  const type = own(raw, 'type');
  if (type === undefined || type === null) {
    ctx.problems.add(`${at}.type`, `${at}.type is required`);
    return undefined;
  }
  if (!isStepType(type)) {
    // Without a known type, no other field can be judged.
    ctx.problems.add(`${at}.type`, `${at}.type must be one of ${STEP_TYPE_LIST}`);
    return undefined;
  }

  const before = ctx.problems.list.length;
  const step = parseFields(type, raw, at, ctx);
  for (const key of Object.keys(raw)) {
    if (key !== 'type' && !STEP_FIELDS[type].includes(key)) {
      const field = fieldPath(at, key);
      ctx.problems.add(field, `${field} is not allowed`);
    }
  }
  return ctx.problems.list.length === before ? step : undefined;
}

/**
 * Checks one field as its spec says. Returns the normalised value; undefined for an optional field left out;
 * null when it was reported as a problem.
 */
function parseField(raw: RawStep, at: string, key: string, spec: StepFieldSpec, ctx: Ctx): unknown {
  const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);
  switch (spec.kind) {
    case 'url':
      return orNull(urlField(raw, at, ctx));
    case 'selector':
      return orNull(selectorField(raw, at, key, ctx));
    case 'value':
      return orNull(valueField(raw, at, key, ctx));
    case 'integer':
      return integerField(raw, at, key, spec.min, spec.max, spec.optional !== true, ctx);
    case 'key':
      return orNull(keyField(raw, at, ctx));
    case 'scrollTarget':
      return orNull(scrollTargetField(raw, at, ctx));
    case 'boolean': {
      const value = own(raw, key);
      if (value === undefined) return undefined;
      if (typeof value === 'boolean') return value;
      ctx.problems.add(`${at}.${key}`, `${at}.${key} must be a boolean`);
      return null;
    }
  }
}

/** Every field of the step's definition, in order; the step only when none was reported. */
function parseFields(type: StepType, raw: RawStep, at: string, ctx: Ctx): Step | undefined {
  const step: Record<string, unknown> = { type };
  let ok = true;
  for (const [key, spec] of Object.entries(STEP_DEFINITIONS[type].fields) as [string, StepFieldSpec][]) {
    const value = parseField(raw, at, key, spec, ctx);
    if (value === null) ok = false;
    else if (value !== undefined) step[key] = value;
  }
  return ok ? (step as unknown as Step) : undefined;
}

/** A required string field; `null` counts as missing. Reports and returns undefined when absent or not a string. */
function requiredString(raw: RawStep, at: string, key: string, ctx: Ctx): string | undefined {
  const field = `${at}.${key}`;
  const value = own(raw, key);
  if (value === undefined || value === null) {
    ctx.problems.add(field, `${field} is required`);
    return undefined;
  }
  if (typeof value !== 'string') {
    ctx.problems.add(field, `${field} must be a string`);
    return undefined;
  }
  return value;
}

function checkSelector(value: string, field: string, ctx: Ctx): string | undefined {
  if (value.length > MAX_SELECTOR_LENGTH) {
    ctx.problems.add(field, `${field} must be at most ${MAX_SELECTOR_LENGTH} characters`);
    return undefined;
  }
  const trimmed = value.trim();
  if (trimmed === '') {
    ctx.problems.add(field, `${field} must not be empty`);
    return undefined;
  }
  if (!isValidCssSelector(trimmed)) {
    ctx.problems.add(field, `${field} is not a valid CSS selector`);
    return undefined;
  }
  return trimmed;
}

function selectorField(raw: RawStep, at: string, key: string, ctx: Ctx): string | undefined {
  const value = requiredString(raw, at, key, ctx);
  return value === undefined ? undefined : checkSelector(value, `${at}.${key}`, ctx);
}

/** fill.value / select.value: any string up to MAX_VALUE_LENGTH, the empty string included (clears a field). */
function valueField(raw: RawStep, at: string, key: string, ctx: Ctx): string | undefined {
  const value = requiredString(raw, at, key, ctx);
  if (value === undefined) return undefined;
  if (value.length > MAX_VALUE_LENGTH) {
    const field = `${at}.${key}`;
    ctx.problems.add(field, `${field} must be at most ${MAX_VALUE_LENGTH} characters`);
    return undefined;
  }
  return value;
}

/**
 * Integer in [min, max]. Returns the number, undefined when the field is absent and optional, or null when
 * it was reported as a problem. Strings ("100"), fractions, booleans and explicit null are refused.
 */
function integerField(raw: RawStep, at: string, key: string, min: number, max: number, required: boolean, ctx: Ctx): number | null | undefined {
  const field = `${at}.${key}`;
  const value = own(raw, key);
  if (value === undefined || (required && value === null)) {
    if (!required) return undefined;
    ctx.problems.add(field, `${field} is required`);
    return null;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    ctx.problems.add(field, `${field} must be an integer from ${min} to ${max}`);
    return null;
  }
  return value;
}

function urlField(raw: RawStep, at: string, ctx: Ctx): string | undefined {
  const url = requiredString(raw, at, 'url', ctx);
  if (url === undefined) return undefined;
  const verdict = ctx.urls.checkUrl(url);
  if (!verdict.allowed) {
    // The policy's reason is part of the API ("url scheme must be http or https"): passed on verbatim.
    ctx.problems.add(`${at}.url`, verdict.reason);
    return undefined;
  }
  return url;
}

function keyField(raw: RawStep, at: string, ctx: Ctx): string | undefined {
  const key = requiredString(raw, at, 'key', ctx);
  if (key === undefined) return undefined;
  if (key.length === 1) {
    const code = key.charCodeAt(0);
    if (code >= 0x20 && code <= 0x7e) return key;
  } else {
    const named = NAMED_KEY_BY_LOWER.get(key.toLowerCase());
    if (named !== undefined) return named;
  }
  ctx.problems.add(`${at}.key`, `${at}.key ${KEY_MESSAGE}`);
  return undefined;
}

/** "bottom" (any case, surrounding spaces ignored) or a CSS selector. */
function scrollTargetField(raw: RawStep, at: string, ctx: Ctx): string | undefined {
  const to = requiredString(raw, at, 'to', ctx);
  if (to === undefined) return undefined;
  if (to.trim().toLowerCase() === SCROLL_TO_BOTTOM) return SCROLL_TO_BOTTOM;
  return checkSelector(to, `${at}.to`, ctx);
}
