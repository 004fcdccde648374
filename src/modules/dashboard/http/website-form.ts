import { REDACTED, redactSecrets } from '../../../shared/domain/capture-secrets';
import { FieldError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { CaptureOptionSpec, OptionFormHints, REQUEST_ONLY_OPTIONS, WEBSITE_OPTIONS } from '../../../shared/domain/capture-option-table';
import { OUTPUT_FORMATS, OutputFormat } from '../../../shared/domain/output-format';
import type { UrlPolicy } from '../../../shared/url-policy';
import { apiFieldErrors } from './api-form-validation';
import { inPeoplesWordsAll } from './form-messages';
import { WEBSITE_RULES, WEBSITE_STATUSES, WebsiteProps } from '../../websites/domain/website';

/**
 * The dashboard's website and capture forms, described once: each field says how it is shown and how its
 * text becomes the API's JSON body. The body then goes through the API's own DTO validation (the same
 * class-validator rules, messages and domain checks as POST/PUT /websites and POST /websites/{id}/screenshot),
 * so a form can never accept what the API refuses, nor word a rule differently.
 *
 * Adding a website field to the edit form is one entry in WEBSITE_FIELDS (its kind decides parsing and markup).
 */

export type FieldKind =
  /** One line of text; '' is "not set" (a `required` field sends '' so the API names it). */
  | 'text'
  /** A whole number; text that is not one is sent as it is, and the API's rule names it. */
  | 'int'
  | 'decimal'
  /** A checkbox that is false when unchecked (a website's full_page). */
  | 'checkbox'
  /** A checkbox that is "not set" when unchecked (block_ads: off is the default). */
  | 'flag'
  /** Default / yes / no, for an option whose default depends on others (pdf_print_background). */
  | 'tristate'
  | 'select'
  | 'textarea'
  /** One value a line (hide_selectors), sent as an array. */
  | 'lines'
  /** JavaScript (scripts): several scripts separated by a line `// ---`, sent as an array. */
  | 'scripts'
  /** Several checkboxes of one name (block_resources), sent as an array. */
  | 'choices'
  /** One of the account's saved sessions (session_id): a select, sent as its id; '' is "none". */
  | 'session'
  /** fail_on_status: "all" (true) or HTTP codes separated by commas or spaces (a list); '' is "not set". */
  | 'statuses'
  /** x, y, width, height. */
  | 'clip'
  /** Secrets (never shown: values are "********", which sent back keeps the saved value). */
  | 'headers'
  | 'cookies'
  | 'http_auth';

export type FieldSection = 'website' | 'changes' | OptionFormHints['section'];

export interface FormField {
  /** The control's name and the API body's key. */
  name: string;
  label: string;
  kind: FieldKind;
  section: FieldSection;
  /** Part of the website's `capture_options` (the website form nests it there; a capture request has it at the top). */
  option?: boolean;
  required?: boolean;
  /** select / choices: the values offered ('' = "default" is added for optional selects). */
  choices?: readonly string[];
  /** What "not set" means, shown as the placeholder or the default choice. */
  placeholder?: string;
  hint?: string;
  /** Only these output formats use it (the page's script disables it for the others). */
  formats?: readonly OutputFormat[];
  /**
   * Sent when the field is left empty, instead of leaving it out: a website field the edit form must be able to
   * clear (a list: `[]`), since a field left out of a PUT keeps its saved value.
   */
  emptyValue?: unknown;
  /** A field of this object of the body (`alert_when.text_only` is `{alert_when: {text_only}}`): its name is the path. */
  within?: 'alert_when';
  /** Values offered while typing (a <datalist>); any other value is still judged by the API's rule. */
  suggestions?: readonly string[];
}

const R = WEBSITE_RULES;

/** The control a row's type is shown with, unless its form hints name another. */
function controlOf(spec: CaptureOptionSpec): FieldKind {
  if (spec.form.control) return spec.form.control;
  switch (spec.type.kind) {
    case 'boolean':
      return 'flag';
    case 'integer':
      return 'int';
    case 'number':
      return 'decimal';
    case 'choice':
      return 'select';
    case 'selectors':
    case 'urlPatterns':
      return 'lines';
    case 'scripts':
      return 'scripts';
    case 'choices':
      return 'choices';
    case 'stylesheet':
      return 'textarea';
    case 'statuses':
      return 'statuses';
    case 'clip':
      return 'clip';
    case 'headers':
      return 'headers';
    case 'cookies':
      return 'cookies';
    case 'httpAuth':
      return 'http_auth';
    default:
      return 'text';
  }
}

/** What "not set" means, as a placeholder: the row's own, else its default ("yes"/"no" for a default/yes/no choice). */
function placeholderOf(spec: CaptureOptionSpec, kind: FieldKind): string | undefined {
  if (spec.form.placeholder !== undefined) return spec.form.placeholder;
  if (kind === 'tristate' && typeof spec.default === 'boolean') return spec.default ? 'yes' : 'no';
  if (kind === 'select' || kind === 'int' || kind === 'decimal')
    return typeof spec.default === 'string' || typeof spec.default === 'number' ? String(spec.default) : undefined;
  return undefined;
}

/** A capture option's form field, from its row in the capture-option table. */
function optionField(spec: CaptureOptionSpec): FormField {
  const kind = controlOf(spec);
  const placeholder = placeholderOf(spec, kind);
  const { type } = spec;
  return {
    name: spec.wire,
    label: spec.form.label,
    kind,
    section: spec.form.section,
    ...(spec.setOn.includes('website') ? { option: true } : {}),
    ...(type.kind === 'choice' || type.kind === 'choices' ? { choices: type.values } : {}),
    ...(placeholder !== undefined ? { placeholder } : {}),
    ...(spec.form.hint !== undefined ? { hint: spec.form.hint } : {}),
    ...(spec.formats.length < OUTPUT_FORMATS.length ? { formats: spec.formats } : {}),
    ...(spec.form.suggestions !== undefined ? { suggestions: spec.form.suggestions } : {}),
  };
}

/** Every capture option a website saves (API.md, Capture options), in the table's order. */
export const CAPTURE_OPTION_FIELDS: readonly FormField[] = WEBSITE_OPTIONS.map(optionField);

/**
 * The website form: its own fields, then its capture options. Add a website field here, one entry, e.g.
 * `{ name: 'change_ignore_selectors', label: 'Ignore these elements', kind: 'lines', section: 'website', emptyValue: [] }`:
 * its kind decides the markup and the parsing, the edit form reads the saved value from the website's camelCase
 * property, and the API's DTO judges it.
 */
export const WEBSITE_FIELDS: readonly FormField[] = [
  { name: 'name', label: 'Name', kind: 'text', section: 'website', required: true },
  { name: 'url', label: 'URL', kind: 'text', section: 'website', required: true, placeholder: 'https://example.com/' },
  { name: 'viewport_width', label: 'Viewport width', kind: 'int', section: 'website', placeholder: String(R.viewportWidth.default) },
  { name: 'viewport_height', label: 'Viewport height', kind: 'int', section: 'website', placeholder: String(R.viewportHeight.default) },
  { name: 'full_page', label: 'Full page', kind: 'checkbox', section: 'website' },
  { name: 'status', label: 'Status', kind: 'select', section: 'website', choices: WEBSITE_STATUSES },
  ...CAPTURE_OPTION_FIELDS,
  {
    name: 'change_threshold',
    label: 'Changed above (share of pixels, 0–1)',
    kind: 'decimal',
    section: 'changes',
    placeholder: String(R.changeThreshold.default),
    hint: 'A capture counts as changed when more than this share of its pixels differ from the previous one (0.001 = 0.1 %).',
  },
  {
    name: 'change_ignore_selectors',
    label: 'Ignore these elements (one CSS selector a line)',
    kind: 'lines',
    section: 'changes',
    placeholder: '#clock',
    emptyValue: [],
    hint: 'Dates, ads, counters: their boxes are left out of the comparison, from the next capture on.',
  },
  {
    name: 'ignore_text',
    label: 'Ignore lines matching (one regular expression a line)',
    kind: 'lines',
    section: 'changes',
    placeholder: '^Updated at \\d+:\\d+',
    emptyValue: [],
    hint: 'Lines of the page’s text that match (case-insensitive) are left out of the text diff; a capture whose only change is such a line is not a change. RE2 syntax, at most 20.',
  },
  {
    name: 'alert_when.text_contains',
    label: 'Alert only when this phrase appears',
    kind: 'text',
    section: 'changes',
    within: 'alert_when',
    placeholder: 'In stock',
    hint: 'Changed only when the new text has the phrase and the previous one did not (case-insensitive).',
  },
  {
    name: 'alert_when.text_missing',
    label: 'Alert only when this phrase disappears',
    kind: 'text',
    section: 'changes',
    within: 'alert_when',
    placeholder: 'Sold out',
    hint: 'Changed only when the previous text had the phrase and the new one does not.',
  },
  {
    name: 'alert_when.min_changed_ratio',
    label: 'Alert only when at least this share of pixels changed (0–1)',
    kind: 'decimal',
    section: 'changes',
    within: 'alert_when',
    placeholder: 'any',
    hint: 'For example 0.05: a change of 5 % of the picture or more.',
  },
  {
    name: 'alert_when.text_only',
    label: 'Text changes only (a picture-only change is not a change)',
    kind: 'flag',
    section: 'changes',
    within: 'alert_when',
  },
];

/** The website's conditions on a change (alert_when, ignore_text): the website form's, and the monitor form's too. */
export const CHANGE_CONDITION_FIELDS: readonly FormField[] = WEBSITE_FIELDS.filter((f) => f.name === 'ignore_text' || f.within === 'alert_when');

/** What one capture may set beyond the website's saved options (Take Screenshot body). */
export const CAPTURE_REQUEST_FIELDS: readonly FormField[] = [
  ...REQUEST_ONLY_OPTIONS.map(optionField),
  // Secrets stay the website's: a one-off capture form never asks for (nor shows) them. A saved session is no
  // secret (an id, picked from the account's sessions): a capture may start logged in with one.
  ...CAPTURE_OPTION_FIELDS.filter((f) => f.section !== 'secrets' || f.kind === 'session'),
];

/** The website a playground try of a bare URL captures: one per account, paused (schedules skip it), its URL set by each try. */
export const PLAYGROUND_WEBSITE_NAME = 'Playground (dashboard)';

/** The option fields a website can save, of a capture request (what "save as website" keeps). */
export const SAVABLE_OPTION_NAMES = new Set(CAPTURE_OPTION_FIELDS.map((f) => f.name));

/** The form controls a field owns (clip and http_auth have several). */
export function controlNames(field: FormField): string[] {
  if (field.kind === 'clip') return ['clip.x', 'clip.y', 'clip.width', 'clip.height'];
  if (field.kind === 'http_auth') return ['http_auth.username', 'http_auth.password'];
  return [field.name];
}

/** A form's typed values, exactly as typed (re-shown after an error), copied from a posted form or a query. */
export function pickValues(fields: readonly FormField[], source: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const field of fields) for (const name of controlNames(field)) for (const v of source.getAll(name)) out.append(name, v);
  return out;
}

/** The non-empty values as a query string's parameters (a page's address that reopens the form as it was). */
export function queryOf(values: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams();
  for (const [k, v] of values) if (v !== '' && !isSecretField(k)) query.append(k, v);
  return query;
}

/** The capture options whose values are secrets (headers, cookies, http_auth, proxy): never put in a page address. */
const SECRET_OPTIONS: readonly string[] = [...WEBSITE_OPTIONS, ...REQUEST_ONLY_OPTIONS].filter((spec) => spec.secret).map((spec) => spec.wire);

/**
 * Whether a form control holds a secret (`http_auth.password` is part of `http_auth`). A page address lands in the
 * browser's history, in proxies' and servers' logs and in Referer headers: a try's redirect leaves secrets out, and
 * the result page asks for them again.
 */
function isSecretField(name: string): boolean {
  return SECRET_OPTIONS.some((wire) => name === wire || name.startsWith(`${wire}.`));
}

// ---------------------------------------------------------------------------------------------------------------
// Text → JSON body

const INTEGER = /^[-+]?\d{1,15}$/;
const DECIMAL = /^[-+]?(\d{1,15}(\.\d{1,15})?|\.\d{1,15})$/;

function toNumber(raw: string, pattern: RegExp): number | string {
  const trimmed = raw.trim();
  return pattern.test(trimmed) ? Number(trimmed) : raw;
}

/** "all" → true, "404, 500" → [404, 500], '' → not set; anything else is sent as typed, for the API's rule to name. */
function statusesValue(raw: string): unknown {
  const trimmed = raw.trim();
  if (trimmed === '') return undefined;
  if (/^(all|true)$/i.test(trimmed)) return true;
  const parts = trimmed.split(/[\s,]+/).filter((p) => p !== '');
  return parts.every((p) => INTEGER.test(p)) ? parts.map(Number) : trimmed;
}

/** The line between two scripts in the scripts field (a comment, so one script pasted whole still runs as written). */
const SCRIPT_SEPARATOR = /^[ \t]*\/\/ ?---[ \t]*$/m;

function lines(raw: string): string[] {
  return raw
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

function parseHeaders(raw: string, errors: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  lines(raw).forEach((line, i) => {
    const colon = line.indexOf(':');
    if (colon <= 0) errors.push(`line ${i + 1}: write a header as "Name: value"`);
    else headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  });
  return headers;
}

function parseCookies(raw: string, errors: string[]): Array<Record<string, unknown>> {
  const cookies: Array<Record<string, unknown>> = [];
  lines(raw).forEach((line, i) => {
    const [pair, ...attributes] = line.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    if (eq <= 0) return errors.push(`line ${i + 1}: write a cookie as "name=value; Domain=…; Path=/"`);
    const cookie: Record<string, unknown> = { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim() };
    for (const attribute of attributes.filter((a) => a !== '')) {
      const [key, ...rest] = attribute.split('=');
      const value = rest.join('=').trim();
      const k = key.trim().toLowerCase();
      if (k === 'domain') cookie.domain = value;
      else if (k === 'path') cookie.path = value;
      else if (k === 'secure') cookie.secure = true;
      else if (k === 'httponly') cookie.http_only = true;
      else if (k === 'samesite') cookie.same_site = value;
      else errors.push(`line ${i + 1}: unknown cookie attribute "${key.trim()}" (Domain, Path, Secure, HttpOnly, SameSite)`);
    }
    cookies.push(cookie);
  });
  return cookies;
}

export interface ParsedForm {
  /** The API's JSON body. */
  body: Record<string, unknown>;
  /** Text the form could not turn into JSON at all (a header line without a colon), by field name. */
  errors: FieldError[];
}

/**
 * The API body a form's text stands for. `nestOptions`: capture options go under `capture_options` (the
 * website form) rather than at the top (a capture request).
 */
export function formToBody(fields: readonly FormField[], form: URLSearchParams, nestOptions: boolean): ParsedForm {
  const body: Record<string, unknown> = {};
  const options: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  const alertWhen: Record<string, unknown> = {};
  for (const field of fields) {
    const target = field.within ? alertWhen : nestOptions && field.option ? options : body;
    const key = field.within ? field.name.slice(field.within.length + 1) : field.name;
    const raw = form.get(field.name) ?? '';
    const problems: string[] = [];
    let value: unknown;
    switch (field.kind) {
      case 'text':
      case 'select':
      case 'textarea':
        value = raw === '' && !field.required ? undefined : raw;
        break;
      case 'int':
      case 'session':
        value = raw.trim() === '' ? undefined : toNumber(raw, INTEGER);
        break;
      case 'decimal':
        value = raw.trim() === '' ? undefined : toNumber(raw, DECIMAL);
        break;
      case 'checkbox':
        value = form.has(field.name);
        break;
      case 'flag':
        value = form.has(field.name) ? true : undefined;
        break;
      case 'tristate':
        value = raw === 'true' ? true : raw === 'false' ? false : raw === '' ? undefined : raw;
        break;
      case 'statuses':
        value = statusesValue(raw);
        break;
      case 'scripts': {
        const list = raw
          .split(SCRIPT_SEPARATOR)
          .map((script) => script.trim())
          .filter((script) => script !== '');
        value = list.length ? list : undefined;
        break;
      }
      case 'lines': {
        const list = lines(raw);
        value = list.length ? list : undefined;
        break;
      }
      case 'choices': {
        const list = form.getAll(field.name);
        value = list.length ? list : undefined;
        break;
      }
      case 'clip': {
        const parts = ['x', 'y', 'width', 'height'].map((k) => [k, (form.get(`clip.${k}`) ?? '').trim()] as const);
        if (parts.some(([, v]) => v !== '')) value = Object.fromEntries(parts.filter(([, v]) => v !== '').map(([k, v]) => [k, toNumber(v, INTEGER)]));
        break;
      }
      case 'headers': {
        const headers = parseHeaders(raw, problems);
        value = Object.keys(headers).length || problems.length ? headers : undefined;
        break;
      }
      case 'cookies': {
        const cookies = parseCookies(raw, problems);
        value = cookies.length || problems.length ? cookies : undefined;
        break;
      }
      case 'http_auth': {
        const username = form.get('http_auth.username') ?? '';
        const password = form.get('http_auth.password') ?? '';
        value = username === '' && password === '' ? undefined : { username, password };
        break;
      }
    }
    if (value === undefined && field.emptyValue !== undefined) value = field.emptyValue;
    if (problems.length) errors.push(...problems.map((message) => ({ field: field.name, message: `${field.name}: ${message}` })));
    else if (value !== undefined) target[key] = value;
  }
  if (nestOptions) body.capture_options = options;
  // Sent whole (PUT replaces it): the fields left empty are conditions taken away.
  if (fields.some((f) => f.within === 'alert_when')) body.alert_when = alertWhen;
  return { body, errors };
}

/** A form post that did not pass: its page again (422) with what was typed and these errors by field. */
export class FormRejected extends Error {
  constructor(readonly errors: FieldError[]) {
    super('form rejected');
  }
}

/** A service's own refusals (URL policy, options that contradict each other) as the form's field errors. */
export async function asFormErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ValidationFailedError) throw new FormRejected(err.details);
    throw err;
  }
}

/**
 * Runs a body through the API DTO's validation pipe (apiFieldErrors: the very pipe the API uses). A body that
 * passes is what the API's handler would get (the DTOs hold plain fields), typed as the DTO.
 */
export async function validateBody<T>(
  urlPolicy: UrlPolicy,
  metatype: new () => T,
  body: Record<string, unknown>,
): Promise<{ dto: T; errors: [] } | { dto: null; errors: FieldError[] }> {
  const errors = await apiFieldErrors(urlPolicy, metatype, body);
  return errors.length ? { dto: null, errors } : { dto: body as T, errors: [] };
}

// ---------------------------------------------------------------------------------------------------------------
// Errors → the field they belong to

/** Where a field sits in the API body (`capture_options.quality`, or `quality` in a capture request). */
function apiPath(field: FormField, nestOptions: boolean): string {
  return nestOptions && field.option ? `capture_options.${field.name}` : field.name;
}

/** Errors by form field name, in people's words (form-messages.ts); those naming no field of the form (or the whole body) under ''. */
export function errorsByField(fields: readonly FormField[], errors: FieldError[], nestOptions: boolean): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const error of inPeoplesWordsAll(errors)) {
    const field = fields.find((f) => {
      const path = apiPath(f, nestOptions);
      return error.field === f.name || error.field === path || error.field.startsWith(`${path}.`) || error.field.startsWith(`${path}[`);
    });
    const key = field?.name ?? '';
    out.set(key, [...(out.get(key) ?? []), error.message]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Saved values → form text

const camel = (name: string) => name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

/** A saved value as the form shows it. */
function valueText(form: URLSearchParams, field: FormField, value: unknown): void {
  if (value === undefined || value === null) return;
  if (field.kind === 'clip') {
    const clip = value as Record<string, number>;
    for (const k of ['x', 'y', 'width', 'height']) form.set(`clip.${k}`, String(clip[k]));
  } else if (field.kind === 'choices') {
    for (const v of value as string[]) form.append(field.name, v);
  } else if (field.kind === 'lines') {
    form.set(field.name, (value as string[]).join('\n'));
  } else if (field.kind === 'scripts') {
    form.set(field.name, (value as string[]).join('\n// ---\n'));
  } else if (field.kind === 'checkbox' || field.kind === 'flag') {
    if (value === true) form.set(field.name, 'on');
  } else if (field.kind === 'statuses') {
    if (value === true) form.set(field.name, 'all');
    else if (Array.isArray(value) && value.length > 0) form.set(field.name, value.join(', '));
  } else {
    form.set(field.name, typeof value === 'string' ? value : JSON.stringify(value));
  }
}

/** The edit form's text for a saved website: its secrets as "********" only. */
export function websiteValues(website: WebsiteProps): URLSearchParams {
  const form = new URLSearchParams();
  const o = website.captureOptions as Record<string, unknown>;
  for (const field of WEBSITE_FIELDS) {
    // Secret values are shown masked below; the other options of that section (a proxy pool, a saved session) as saved.
    if (isSecretField(field.name)) continue;
    const saved = field.within
      ? (website.alertWhen as Record<string, unknown>)[field.name.slice(field.within.length + 1)]
      : field.option
        ? o[camel(field.name)]
        : (website as unknown as Record<string, unknown>)[camel(field.name)];
    valueText(form, field, saved);
  }
  const secrets = website.captureOptions.secrets ? redactSecrets(website.captureOptions.secrets) : {};
  if (secrets.headers)
    form.set(
      'headers',
      Object.entries(secrets.headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n'),
    );
  if (secrets.cookies) {
    const cookieLine = (c: NonNullable<typeof secrets.cookies>[number]) =>
      [
        `${c.name}=${c.value}`,
        c.domain !== undefined ? `Domain=${c.domain}` : '',
        c.path !== undefined ? `Path=${c.path}` : '',
        c.secure ? 'Secure' : '',
        c.httpOnly ? 'HttpOnly' : '',
        c.sameSite ? `SameSite=${c.sameSite}` : '',
      ]
        .filter((p) => p !== '')
        .join('; ');
    form.set('cookies', secrets.cookies.map(cookieLine).join('\n'));
  }
  if (secrets.httpAuth) {
    form.set('http_auth.username', secrets.httpAuth.username);
    form.set('http_auth.password', secrets.httpAuth.password);
  }
  return form;
}

// ---------------------------------------------------------------------------------------------------------------
// Secrets typed into a form that is shown again (a validation error elsewhere) are never written back into the
// page: the page shows them as "********" and carries what was typed sealed (SecretBox) in a hidden field, so
// posting the form again keeps them. "********" is then resolved against that carry first, the saved website next.

export const SECRET_CONTROLS = ['headers', 'cookies', 'http_auth.username', 'http_auth.password'] as const;

/** A header line "Name: value" or a cookie line's "name=value" part, split; null when the line is neither. */
function secretLine(kind: 'headers' | 'cookies', line: string): { key: string; value: string; rest: string } | null {
  const head = kind === 'headers' ? line : line.split(';')[0];
  const at = head.indexOf(kind === 'headers' ? ':' : '=');
  if (at <= 0) return null;
  return { key: head.slice(0, at).trim(), value: head.slice(at + 1).trim(), rest: line.slice(head.length) };
}

function joinSecretLine(kind: 'headers' | 'cookies', key: string, value: string, rest: string): string {
  return kind === 'headers' ? `${key}: ${value}` : `${key}=${value}${rest}`;
}

/** The typed secrets with their values masked, as the page may show them. */
export function maskSecrets(form: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams(form);
  for (const kind of ['headers', 'cookies'] as const) {
    const raw = form.get(kind);
    if (!raw) continue;
    out.set(
      kind,
      lines(raw)
        .map((line) => {
          const parsed = secretLine(kind, line);
          return parsed ? joinSecretLine(kind, parsed.key, REDACTED, parsed.rest) : REDACTED;
        })
        .join('\n'),
    );
  }
  for (const name of ['http_auth.username', 'http_auth.password']) if (form.get(name)) out.set(name, REDACTED);
  return out;
}

/** Puts back values shown as "********" from the carried typed text (same header name, same cookie name). */
export function unmaskSecrets(form: URLSearchParams, carried: Record<string, string>): URLSearchParams {
  const out = new URLSearchParams(form);
  for (const kind of ['headers', 'cookies'] as const) {
    const now = form.get(kind);
    if (!now || carried[kind] === undefined) continue;
    const before = new Map<string, string>();
    for (const line of lines(carried[kind])) {
      const parsed = secretLine(kind, line);
      if (parsed) before.set(parsed.key.toLowerCase(), parsed.value);
    }
    out.set(
      kind,
      lines(now)
        .map((line) => {
          const parsed = secretLine(kind, line);
          const old = parsed ? before.get(parsed.key.toLowerCase()) : undefined;
          return parsed && parsed.value === REDACTED && old !== undefined ? joinSecretLine(kind, parsed.key, old, parsed.rest) : line;
        })
        .join('\n'),
    );
  }
  for (const name of ['http_auth.username', 'http_auth.password']) {
    if (form.get(name) === REDACTED && carried[name]) out.set(name, carried[name]);
  }
  return out;
}

/** Whether the typed form holds any secret text worth carrying. */
export function typedSecrets(form: URLSearchParams): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const name of SECRET_CONTROLS) {
    const v = form.get(name);
    if (v) out[name] = v;
  }
  return Object.keys(out).length ? out : null;
}
