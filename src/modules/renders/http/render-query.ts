import { optionsSetOn, type OptionValueType } from '../../../shared/domain/capture-option-table';

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
  const body: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(query)) {
    const kind = KINDS.get(name);
    // Unknown names pass as they are: the DTO names them ("x is not allowed").
    if (!kind) body[name] = raw;
    else if (Array.isArray(raw)) body[name] = kind === 'selectors' || kind === 'choices' ? raw : raw.map((v) => scalar(kind, String(v)));
    else body[name] = typeof raw === 'string' ? scalar(kind, raw) : raw;
  }
  return body;
}
