import { BadRequestError } from '../domain/domain-error';
import {
  CrowdedBody,
  jsonShape,
  ManyFieldsBody,
  MAX_JSON_DEPTH,
  MAX_PARSED_ENTRIES,
  MAX_PARSED_FIELDS,
  parseJson,
  PROTOTYPE_KEYS,
  RejectedFields,
  screenJson,
  UnparsableBody,
} from './body-parsing';

describe('jsonShape', () => {
  it('measures nesting from the text, ignoring brackets inside strings and escaped quotes', () => {
    expect(jsonShape('[[[1]]]', 3).tooDeep).toBe(false);
    expect(jsonShape('[[[[1]]]]', 3).tooDeep).toBe(true);
    expect(jsonShape('{"a":"[[[[[[\\"{{{{"}', 2).tooDeep).toBe(false);
    expect(jsonShape('['.repeat(200_000), 32).tooDeep).toBe(true);
  });

  it('lists the top-level keys only when there are more than MAX_PARSED_FIELDS of them', () => {
    expect(jsonShape('{"a":1,"b":{"c":2}}', 32).manyKeys).toBeNull();
    const entries = Array.from({ length: MAX_PARSED_FIELDS + 1 }, (_, i) => `"k${i}":{"nested":[1,"x,y"],"s":"{\\"q\\":1}"}`);
    const names = jsonShape(`{${entries.join(',')}}`, 32).manyKeys!;
    expect(names).toHaveLength(MAX_PARSED_FIELDS + 1);
    expect(names.slice(0, 3)).toEqual(['k0', 'k1', 'k2']);
  });

  it('decodes escaped key names and counts no keys in a top-level array', () => {
    const keys = Array.from({ length: MAX_PARSED_FIELDS + 1 }, (_, i) => `"\\u0041${i}":1`);
    expect(jsonShape(`{${keys.join(',')}}`, 32).manyKeys![0]).toBe('A0');
    expect(jsonShape(`[${Array.from({ length: 2000 }, () => '"x"').join(',')}]`, 32).manyKeys).toBeNull();
  });
});

describe('jsonShape: crowded nested objects (issue 27)', () => {
  const many = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',')}}`;

  const items = (n: number) => `[${Array.from({ length: n }, () => '""').join(',')}]`;

  it('names the path of the first nested object over MAX_PARSED_ENTRIES keys or array over as many items, without parsing', () => {
    const fields = (field: string) => ({ field, kind: 'fields' });
    expect(jsonShape(`{"a":1,"capture_options":{"headers":${many(MAX_PARSED_ENTRIES + 1)}}}`, 32).crowded).toEqual(fields('capture_options.headers'));
    expect(jsonShape(`{"steps":[{"type":"wait"},${many(MAX_PARSED_ENTRIES + 1)}]}`, 32).crowded).toEqual(fields('steps[1]'));
    expect(jsonShape(`{"a\\u0062":${many(MAX_PARSED_ENTRIES + 1)}}`, 32).crowded).toEqual(fields('ab'));
    expect(jsonShape(`[1,[2,${many(MAX_PARSED_ENTRIES + 1)}]]`, 32).crowded).toEqual(fields('[1][1]'));
    expect(jsonShape(`{"hide_selectors":${items(MAX_PARSED_ENTRIES + 1)}}`, 32).crowded).toEqual({ field: 'hide_selectors', kind: 'items' });
    expect(jsonShape(items(MAX_PARSED_ENTRIES + 1), 32).crowded).toEqual({ field: '', kind: 'items' });
  });

  it('leaves objects and arrays at the bound, and keys or commas inside strings, alone', () => {
    expect(jsonShape(`{"x":${many(MAX_PARSED_ENTRIES)},"y":${items(MAX_PARSED_ENTRIES)}}`, 32).crowded).toBeUndefined();
    expect(jsonShape(`{"x":${JSON.stringify(many(5000))}}`, 32).crowded).toBeUndefined();
    expect(jsonShape(`{"x":[${many(600)},${many(600)}]}`, 32).crowded).toBeUndefined();
  });

  it('parseJson keeps such a body as a CrowdedBody (never parsed), whose own 422 names the field', () => {
    const body = parseJson(Buffer.from(`{"capture_options":{"headers":${many(66_666)}}}`));
    expect(body).toBeInstanceOf(CrowdedBody);
    expect((body as CrowdedBody).error().extra).toEqual({
      details: [{ field: 'capture_options.headers', message: `capture_options.headers must have at most ${MAX_PARSED_ENTRIES} fields` }],
    });
  });
});

describe('screenJson', () => {
  it('passes a body without a NUL escape through untouched', () => {
    const value = { a: 'x' };
    expect(screenJson(value, '{"a":"x"}')).toBe(value);
  });

  it('names every field and field name holding a NUL', () => {
    const text = '{"a":"x\\u0000","b":[{"c\\u0000":1}]}';
    const screened = screenJson(JSON.parse(text), text);
    expect(screened).toBeInstanceOf(RejectedFields);
    expect((screened as RejectedFields).details.map((d) => d.field)).toEqual(['a', 'b[0].c\u0000']);
  });

  it('names every field and field name holding a lone surrogate; a pair (an emoji) is fine', () => {
    const text = '{"name":"a\\ud800b","list":["\\udc00"],"ok":"\\ud83d\\ude00","k\\udbff":1,"end":"x\\ud83d"}';
    const screened = screenJson(JSON.parse(text), text);
    expect(screened).toBeInstanceOf(RejectedFields);
    // Field names are named as their object is walked, before its values.
    expect((screened as RejectedFields).details).toEqual([
      { field: 'k\udbff', message: 'Field names must be valid Unicode text (no lone surrogate)' },
      { field: 'name', message: 'name must be valid Unicode text (it holds a lone surrogate such as \\ud800)' },
      { field: 'list[0]', message: 'list[0] must be valid Unicode text (it holds a lone surrogate such as \\ud800)' },
      { field: 'end', message: 'end must be valid Unicode text (it holds a lone surrogate such as \\ud800)' },
    ]);
    const emoji = '{"ok":"\\ud83d\\ude00"}';
    expect(screenJson(JSON.parse(emoji), emoji)).toEqual({ ok: '😀' });
  });

  it('a text that only spells a backslash before u0000 is no NUL', () => {
    const text = '{"a":"\\\\u0000"}';
    expect(screenJson(JSON.parse(text), text)).toEqual({ a: '\\u0000' });
  });
});

describe('parseJson', () => {
  const parse = (text: string) => parseJson(Buffer.from(text, 'utf8'));
  const reasonOf = (result: unknown) => (result instanceof UnparsableBody ? result.reason : `not refused: ${JSON.stringify(result)}`);

  it('parses JSON values, and an empty or blank body is no body', () => {
    expect(parse('{"name":"x","n":[1,2]}')).toEqual({ name: 'x', n: [1, 2] });
    expect(parse('null')).toBeNull();
    expect(parse(' null\n')).toBeNull();
    expect(parse('[1]')).toEqual([1]);
    expect(parse('')).toBeUndefined();
    expect(parse(' \r\n\t')).toBeUndefined();
  });

  it('refuses text that is not JSON, a leading byte order mark included', () => {
    expect(reasonOf(parse('{"a":'))).toBe('Request body is not valid JSON');
    expect(reasonOf(parse("{'a':1}"))).toBe('Request body is not valid JSON');
    expect(reasonOf(parse('\uFEFF{"a":1}'))).toBe('Request body is not valid JSON');
  });

  it.each([
    ['a top-level __proto__ key', '{"name":"x","__proto__":{"polluted":true}}'],
    ['a nested __proto__ key', '{"steps":[{"type":"wait","__proto__":{"polluted":true}}]}'],
    ['an escaped __proto__ key', '{"\\u005f_proto__":{"polluted":true}}'],
    ['constructor.prototype at the top', '{"constructor":{"prototype":{"polluted":true}}}'],
    ['constructor.prototype nested in an array', '[{"a":{"constructor":{"prototype":{}}}}]'],
  ])("refuses %s (prototype poisoning), as Fastify's own JSON parser does", (_name, text) => {
    expect(reasonOf(parse(text))).toBe(PROTOTYPE_KEYS);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('lets a constructor key without a prototype through, to be refused later as an unknown field', () => {
    expect(parse('{"constructor":{"polluted":true}}')).toEqual(JSON.parse('{"constructor":{"polluted":true}}'));
    expect(parse('{"name":"__proto__","url":"constructor.prototype"}')).toEqual({ name: '__proto__', url: 'constructor.prototype' });
  });

  it('refuses a body nested deeper than MAX_JSON_DEPTH before parsing it', () => {
    expect(parse('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toEqual(expect.any(Array));
    expect(reasonOf(parse('['.repeat(MAX_JSON_DEPTH + 1)))).toBe(`Request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    // Not JSON at all, but too deep is what is said: the shape is read before any parse.
    expect(reasonOf(parse('{"__proto__":' + '['.repeat(MAX_JSON_DEPTH + 1)))).toMatch(/nests deeper/);
  });

  it('keeps a body with more than MAX_PARSED_FIELDS top-level keys unparsed, as its key names', () => {
    const keys = Array.from({ length: MAX_PARSED_FIELDS + 1 }, (_, i) => `"k${i}":1`);
    const result = parse(`{${keys.join(',')},"__proto__":{}}`);
    expect(result).toBeInstanceOf(ManyFieldsBody);
    expect((result as ManyFieldsBody).names).toHaveLength(MAX_PARSED_FIELDS + 2);
  });

  it('still names the fields holding a NUL', () => {
    expect(parse('{"a":"x\\u0000"}')).toBeInstanceOf(RejectedFields);
  });
});

describe('ManyFieldsBody.parse', () => {
  const many = (entry: string, tail = '') => {
    const text = `{${Array.from({ length: MAX_PARSED_FIELDS + 1 }, () => entry).join(',')}${tail}}`;
    return new ManyFieldsBody([], text);
  };

  it('parses the text after all (one known name repeated)', () => {
    expect(many('"name":"x"').parse()).toEqual({ name: 'x' });
  });

  it('answers text that is not JSON, or that carries prototype-poisoning keys, with a 400', () => {
    expect(() => many('"name":"x"', ',').parse()).toThrow(new BadRequestError('Request body is not valid JSON'));
    expect(() => many('"name":{"__proto__":{}}').parse()).toThrow(new BadRequestError(PROTOTYPE_KEYS));
  });
});
