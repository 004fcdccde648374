import { CAPTURE_OPTION_TABLE, type CaptureOptionSpec } from '../../../shared/domain/capture-option-table';
import type { FieldError } from '../../../shared/domain/domain-error';

/**
 * The API's validation messages in people's words, for the dashboard's forms only: the API's 422 bodies keep their
 * own wording (clients and tests quote them), a form says "Viewport width must be at most 3840." where the API says
 * "viewport_width must not be greater than 3840", and "Step 1: the selector must not be empty." where it says
 * "steps[0].selector must not be empty". Every form error goes through here (errorsByField of api-form-validation
 * and of website-form), so no page shows a field's wire name or an index counted from 0.
 *
 * The `field` of an error stays the API's path: it is how the error finds its input.
 */

/** How people call a field; a name missing here is said from its wire name ("some_option" → "Some option"). */
const FIELD_NAMES: Record<string, string> = {
  // Capture options: their names come from the capture-option table (form.name), so a new option brings its own.
  ...Object.fromEntries(
    (CAPTURE_OPTION_TABLE as readonly CaptureOptionSpec[]).flatMap((spec) => (spec.form.name === undefined ? [] : [[spec.wire, spec.form.name]])),
  ),
  name: 'name',
  url: 'URL',
  description: 'description',
  status: 'status',
  website_id: 'website',
  scenario_id: 'scenario',
  username: 'username',
  password: 'password',
  domain: 'domain',
  change_threshold: 'change threshold',
  change_ignore_selectors: 'elements to ignore',
  ignore_text: 'lines to ignore',
  alert_when: 'alert condition',
  text_contains: 'phrase that must appear',
  text_missing: 'phrase that must disappear',
  min_changed_ratio: 'smallest change',
  text_only: 'text only',
  // scenario steps
  steps: 'steps',
  type: 'type',
  value: 'value',
  secret: 'secret value',
  duration: 'duration',
  timeout: 'time limit',
  key: 'key',
  to: 'scroll target',
  // schedules
  frequency: 'frequency',
  time: 'time',
  day_of_week: 'day of the week',
  enabled: 'enabled',
  // notification channels and webhooks
  target: 'target',
  events: 'events',
  website_ids: 'websites',
  secret_key: 'secret',
};

/** A list's items as people count them: `steps[0]` is "Step 1", `cookies[2]` "Cookie 3". */
const ITEM_NAMES: Record<string, string> = {
  steps: 'Step',
  cookies: 'Cookie',
  headers: 'Header',
  hide_selectors: 'Line',
  change_ignore_selectors: 'Line',
  ignore_text: 'Line',
};

/** Fields typed one value a line. */
const LINE_LISTS = new Set(['hide_selectors', 'change_ignore_selectors', 'ignore_text']);

/** Whether the text reads as an acronym at its start (URL, PDF, CSS, HTTP): not lower-cased mid-sentence. */
const ACRONYM = /^[A-Z]{2,}\b/;

function nameOf(key: string): string {
  return FIELD_NAMES[key] ?? key.replace(/_/g, ' ');
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const midSentence = (text: string) => (ACRONYM.test(text) ? text : text.charAt(0).toLowerCase() + text.slice(1));

/** `capture_options.clip.x` → ['clip', 'x']; `steps[0].selector` → ['steps', 0, 'selector']. */
function segments(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const part of path.split('.')) {
    const match = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!match) {
      out.push(part);
      continue;
    }
    if (match[1] !== '') out.push(match[1]);
    for (const index of match[2].matchAll(/\[(\d+)\]/g)) out.push(Number(index[1]));
  }
  // capture_options is how the website's API body nests its options; the form shows them flat.
  return out[0] === 'capture_options' ? out.slice(1) : out;
}

/**
 * How a field path reads: a prefix naming the list item ("Step 1: ") and the subject of the sentence ("the
 * selector"). `clip.x` is "x of the rectangle to capture"; `http_auth.username` "the username of the HTTP Basic
 * credentials".
 */
function subjectOf(path: string): { prefix: string; subject: string } {
  const parts = segments(path);
  let prefix = '';
  const words: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (typeof part === 'number') continue;
    const next = parts[i + 1];
    if (typeof next === 'number') {
      const item = ITEM_NAMES[part] ?? capitalised(nameOf(part));
      prefix += `${item} ${next + 1}: `;
      i++;
      continue;
    }
    words.unshift(nameOf(part));
  }
  if (words.length === 0) return { prefix: prefix.replace(/: $/, ''), subject: '' };
  const [own, ...owners] = words;
  const subject = owners.length ? `${own} of the ${owners.join(' of the ')}` : own;
  return { prefix, subject: prefix ? `the ${midSentence(subject)}` : subject };
}

/** class-validator's and the domain's phrasings → plain ones (applied after the subject is put in words). */
const PHRASES: Array<[RegExp, string | ((...groups: string[]) => string)]> = [
  [/ must not be greater than (-?[\d.]+)/, ' must be at most $1'],
  [/ must not be less than (-?[\d.]+)/, ' must be at least $1'],
  [/ must be an integer number/, ' must be a whole number'],
  [/ must be an integer from /, ' must be a whole number from '],
  [/ must be a number conforming to the specified constraints/, ' must be a number'],
  [/ should not be empty/, ' must not be empty'],
  [/ must be a boolean( value)?/, ' must be yes or no'],
  [/ must be a string/, ' must be text'],
  [/ must be shorter than or equal to (\d+) characters/, ' must be at most $1 characters long'],
  [/ must be longer than or equal to (\d+) characters/, ' must be at least $1 characters long'],
  [/ must contain no more than (\d+) elements/, ' can have at most $1 entries'],
  [/ must contain valid CSS selectors/, ' must be a valid CSS selector'],
  [/ must be true, false or a list of HTTP status codes from (\d+) to (\d+)/, ' must be “all” or HTTP status codes from $1 to $2'],
  [/ must be the id of one of your websites/, ' must be one of your websites'],
  [/ must be the id of one of your scenarios/, ' must be one of your scenarios'],
  [/ is not allowed$/, ' is not a field of this form'],
  [/ cannot be combined with selector/, ' cannot be combined with a selector'],
  [
    / must be one of(?: the following values)?: (.*)$/,
    (_all: string, list: string) => (list.split(', ').length > 12 ? ' must be one of the choices offered' : ` must be one of: ${list.replace(/_/g, ' ')}`),
  ],
];

/** Wire names left in the sentence (`viewport_width cannot be combined with device`) in words; values stay. */
function wordsForNames(text: string): string {
  return text.replace(/\b(?:capture_options\.)?([a-z]+(?:_[a-z]+)+)\b/g, (whole, name: string) =>
    name in FIELD_NAMES ? midSentence(FIELD_NAMES[name]) : whole,
  );
}

function plain(rest: string): string {
  let out = rest;
  for (const [pattern, replacement] of PHRASES) out = out.replace(pattern, replacement as string);
  // An index left in the text (`cookies[1].domain must be …` inside another field's message) counts from 1.
  return wordsForNames(out).replace(/\[(\d+)\]/g, (_, i: string) => ` ${Number(i) + 1}`);
}

/** One API message as the form shows it. */
export function inPeoplesWords(error: FieldError): string {
  const { field } = error;
  let message = error.message.trim();
  // "each value in block_resources must be …": the field leads in the dashboard's sentence.
  const each = /^each value in (\S+) (.*)$/.exec(message);
  if (each) message = `${each[1]}: each choice ${each[2]}`;
  const { prefix, subject } = subjectOf(field);
  // A website is chosen from a list: whatever the API says about its id, the person has one thing to do.
  if (field === 'website_id' && !/one of your websites/.test(message)) return 'Choose one of your websites.';
  // A list of selectors, one a line: the API judges them as one field.
  if (LINE_LISTS.has(field.replace(/^capture_options\./, '')))
    message = message.replace(/ must contain valid CSS selectors/, ': each line must be a valid CSS selector');
  const names = segments(field).filter((p): p is string => typeof p === 'string');
  // The API names the field first: its full path (`steps[0].selector`), without capture_options, or its last part (`x`, `url`).
  const heads = [field, field.replace(/^capture_options\./, ''), names[names.length - 1] ?? ''].filter((h) => h !== '');
  const head = heads.find((h) => message === h || message.startsWith(`${h} `) || message.startsWith(`${h}:`));
  let sentence: string;
  if (head === undefined && /^[A-Z]/.test(message)) {
    // Already a sentence for people (the playground's "The previous try is still running; …").
    sentence = `${prefix ? `${prefix.replace(/:? ?$/, ':')} ` : ''}${plain(message)}`;
  } else {
    const rest = plain(head === undefined ? ` ${message}` : message.slice(head.length));
    if (subject === '') sentence = `${prefix.replace(/: $/, '')}${rest}`;
    else sentence = prefix ? `${prefix}${subject}${rest}` : `${capitalised(subject)}${rest}`;
  }
  const trimmed = sentence.replace(/\s+/g, ' ').trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** A message about the kind of value (not a number at all, empty) says more than a bound the value cannot be held to. */
const KIND_FIRST = / (must be an integer number|must be a number|must be a boolean|must be a string|should not be empty|must not be empty)/;

/**
 * The errors with their messages in people's words (fields unchanged), one a field: class-validator names every
 * rule a value breaks ("must be at most 16384", "must be at least 0", "must be a whole number" for one empty box);
 * the one about the kind of value comes first, else the first.
 */
export function inPeoplesWordsAll(errors: readonly FieldError[]): FieldError[] {
  const chosen = new Map<string, FieldError>();
  for (const error of errors) {
    const held = chosen.get(error.field);
    if (!held || (!KIND_FIRST.test(held.message) && KIND_FIRST.test(error.message))) chosen.set(error.field, error);
  }
  return [...chosen.values()].map((error) => ({ field: error.field, message: inPeoplesWords(error) }));
}
