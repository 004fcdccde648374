import { jsonShape, MAX_PARSED_FIELDS, RejectedFields, screenJson } from './body-parsing';

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

  it('a text that only spells a backslash before u0000 is no NUL', () => {
    const text = '{"a":"\\\\u0000"}';
    expect(screenJson(JSON.parse(text), text)).toEqual({ a: '\\u0000' });
  });
});
