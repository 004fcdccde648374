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
/** Replaces the value of an input/textarea/contenteditable. `value` may be a secret: see redactStepForLogs. */
export interface FillStep {
  type: 'fill';
  selector: string;
  value: string;
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
 * At most this many details are reported for one body (a 1 MiB body of `[{},{},…]` must not produce a
 * multi-megabyte error); when more problems exist, the last detail says so.
 */
export const MAX_REPORTED_ERRORS = 200;

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

/** The fields each step type accepts besides `type`, in the order they are checked and reported. */
export const STEP_FIELDS: { readonly [T in StepType]: readonly string[] } = {
  navigate: ['url'],
  fill: ['selector', 'value'],
  click: ['selector'],
  wait: ['duration'],
  wait_for: ['selector', 'timeout'],
  hover: ['selector'],
  press: ['key'],
  select: ['selector', 'value'],
  scroll: ['to'],
  screenshot: ['full_page'],
};

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

class TooManyErrors extends Error {}

class Problems {
  readonly list: FieldError[] = [];
  private truncated = false;

  add(field: string, message: string): void {
    if (this.list.length >= MAX_REPORTED_ERRORS) {
      this.truncated = true;
      throw new TooManyErrors();
    }
    this.list.push({ field, message });
  }

  /** Problems of the whole body, including the truncation notice. */
  details(): FieldError[] {
    if (!this.truncated) return this.list;
    return [...this.list, { field: 'steps', message: `too many errors; only the first ${MAX_REPORTED_ERRORS} are reported` }];
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

  try {
    if (input === undefined) {
      problems.add('steps', 'steps is required');
    } else if (!Array.isArray(input)) {
      problems.add('steps', 'steps must be an array');
    } else {
      if (input.length < MIN_STEPS || input.length > MAX_STEPS) {
        problems.add('steps', `steps must contain ${MIN_STEPS} to ${MAX_STEPS} steps`);
      }
      input.forEach((raw: unknown, index: number) => {
        const step = parseStep(raw, `steps[${index}]`, ctx);
        if (step !== undefined) steps.push(step);
      });
    }
  } catch (err) {
    if (!(err instanceof TooManyErrors)) throw err;
  }

  const details = problems.details();
  if (details.length > 0) throw new ValidationFailedError(details);
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
  const step = STEP_PARSERS[type](raw, at, ctx);
  for (const key of Object.keys(raw)) {
    if (key !== 'type' && !STEP_FIELDS[type].includes(key)) {
      const field = fieldPath(at, key);
      ctx.problems.add(field, `${field} is not allowed`);
    }
  }
  return ctx.problems.list.length === before ? step : undefined;
}

type StepParser<T extends StepType> = (raw: RawStep, at: string, ctx: Ctx) => StepOf<T> | undefined;

/** Each parser reports its own problems and returns undefined when any field is bad. */
const STEP_PARSERS: { readonly [T in StepType]: StepParser<T> } = {
  navigate(raw, at, ctx) {
    const url = urlField(raw, at, ctx);
    return url === undefined ? undefined : { type: 'navigate', url };
  },
  fill(raw, at, ctx) {
    const selector = selectorField(raw, at, 'selector', ctx);
    const value = valueField(raw, at, 'value', ctx);
    return selector === undefined || value === undefined ? undefined : { type: 'fill', selector, value };
  },
  click(raw, at, ctx) {
    const selector = selectorField(raw, at, 'selector', ctx);
    return selector === undefined ? undefined : { type: 'click', selector };
  },
  wait(raw, at, ctx) {
    const duration = integerField(raw, at, 'duration', MIN_WAIT_MS, MAX_WAIT_MS, true, ctx);
    return duration === undefined || duration === null ? undefined : { type: 'wait', duration };
  },
  wait_for(raw, at, ctx) {
    const selector = selectorField(raw, at, 'selector', ctx);
    const timeout = integerField(raw, at, 'timeout', MIN_WAIT_FOR_TIMEOUT_MS, MAX_WAIT_FOR_TIMEOUT_MS, false, ctx);
    if (selector === undefined || timeout === null) return undefined;
    return timeout === undefined ? { type: 'wait_for', selector } : { type: 'wait_for', selector, timeout };
  },
  hover(raw, at, ctx) {
    const selector = selectorField(raw, at, 'selector', ctx);
    return selector === undefined ? undefined : { type: 'hover', selector };
  },
  press(raw, at, ctx) {
    const key = keyField(raw, at, ctx);
    return key === undefined ? undefined : { type: 'press', key };
  },
  select(raw, at, ctx) {
    const selector = selectorField(raw, at, 'selector', ctx);
    const value = valueField(raw, at, 'value', ctx);
    return selector === undefined || value === undefined ? undefined : { type: 'select', selector, value };
  },
  scroll(raw, at, ctx) {
    const to = scrollTargetField(raw, at, ctx);
    return to === undefined ? undefined : { type: 'scroll', to };
  },
  screenshot(raw, at, ctx) {
    const fullPage = own(raw, 'full_page');
    if (fullPage === undefined) return { type: 'screenshot' };
    if (typeof fullPage !== 'boolean') {
      ctx.problems.add(`${at}.full_page`, `${at}.full_page must be a boolean`);
      return undefined;
    }
    return { type: 'screenshot', full_page: fullPage };
  },
};

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
