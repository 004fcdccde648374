import { optionsSetOn, type OptionValueType } from '../../../shared/domain/capture-option-table';
import type { FieldError } from '../../../shared/domain/domain-error';

/** The secret options (capture-option table: `secret`), never taken from a query string (see secretsInQuery). */
export const SECRET_OPTIONS: readonly string[] = optionsSetOn('render')
  .filter((spec) => spec.secret)
  .map((spec) => spec.wire);

/**
 * The secret options a query string carries, each a 422 detail. A URL is no place for a secret: it lands in
 * access logs, browser histories, Referer headers and CDN keys, and a signed link is public by design (its
 * answer is `Cache-Control: public`). A bearer request sends them in a POST body; a page that needs a login,
 * from a link too, uses a saved session (`session_id`).
 */
export function secretsInQuery(query: Record<string, unknown>, signed: boolean): FieldError[] {
  const where = signed ? 'a signed link: the link is public' : 'a query string: URLs end up in logs and histories';
  return SECRET_OPTIONS.filter((name) => Object.prototype.hasOwnProperty.call(query, name)).map((field) => ({
    field,
    message: `${field} must not be sent in ${where}. Use a saved session: create one with POST /sessions and pass its id as session_id (docs/sessions.md), or send it in a POST /render body with a bearer token`,
  }));
}

/**
 * GET /render's query as the typed object POST /render's body would be: each capture option converted by its
 * type in the capture-option table (never a hand-kept list), the render's own fields by theirs. A value that does
 * not convert stays the string it was, so the DTO's rules refuse it with Take Screenshot's wording.
 *
 * Lists: repeat the parameter (`hide_selectors=.a&hide_selectors=.b`) or send a JSON array; choice lists also take
 * commas (`block_resources=image,font`). Objects (clip, headers, cookies, http_auth) are JSON.
 */
type Kind = OptionValueType['kind'];

const RENDER_FIELDS: Record<string, Kind> = { url: 'text', response_type: 'choice', cache_ttl: 'integer', cache_key: 'text', fresh: 'boolean' };

const KINDS: ReadonlyMap<string, Kind> = new Map([
  ...optionsSetOn('render').map((spec) => [spec.wire, spec.type.kind] as const),
  ...Object.entries(RENDER_FIELDS),
]);

/** Kinds whose repeated parameter is the list itself (`hide_selectors=.a&hide_selectors=.b`). */
const LIST_KINDS: readonly Kind[] = ['selectors', 'choices', 'urlPatterns'];

function json(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function scalar(kind: Kind, value: string): unknown {
  switch (kind) {
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'integer':
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    case 'selectors':
    case 'urlPatterns':
      return value.startsWith('[') ? json(value) : [value];
    case 'choices':
      return value.startsWith('[') ? json(value) : value === '' ? [] : value.split(',');
    case 'statuses':
      if (value === 'true' || value === 'false') return value === 'true';
      if (value.startsWith('[')) return json(value);
      return /^\d+(,\d+)*$/.test(value) ? value.split(',').map(Number) : value;
    case 'clip':
    case 'headers':
    case 'cookies':
    case 'httpAuth':
      return json(value);
    default:
      return value;
  }
}

export function renderQueryToBody(query: Record<string, unknown>): Record<string, unknown> {
  // Without a prototype, as Fastify's own query object: `__proto__=x` stays a field the DTO names (422), instead
  // of an assignment to the prototype that made it vanish.
  const body = Object.create(null) as Record<string, unknown>;
  for (const [name, raw] of Object.entries(query)) {
    const kind = KINDS.get(name);
    // Unknown names pass as they are: the DTO names them ("x is not allowed").
    if (!kind) body[name] = raw;
    else if (Array.isArray(raw)) body[name] = LIST_KINDS.includes(kind) ? raw : raw.map((v) => scalar(kind, String(v)));
    else body[name] = typeof raw === 'string' ? scalar(kind, raw) : raw;
  }
  return body;
}
