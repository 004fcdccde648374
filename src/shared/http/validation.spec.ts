import { ArgumentMetadata, ValidationError } from '@nestjs/common';
import { IsInt, IsString, Max, registerDecorator, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { FieldError, ValidationFailedError } from '../domain/domain-error';
import { ManyFieldsBody } from './body-parsing';
import { MAX_DETAILS } from './capped-validation';
import {
  AlsoChecks,
  BodyRequired,
  createValidationPipe,
  FieldCheckContext,
  flattenValidationErrors,
  IsCssSelector,
  KEPT_QUERIES_PER_DTO,
  IsId,
  MAX_ID,
  OptionalField,
  parseId,
  QueryInt,
  QueryMetadata,
  SingleLineName,
} from './validation';

class StepDto {
  @IsString() selector!: string;
}

class ThingDto {
  @IsString() name!: string;
  @IsInt() @Max(10) size!: number;
  @OptionalField() @IsString() note?: string;
  @OptionalField() @IsId() owner_id?: number;
  @OptionalField() @IsId({ each: true }) ids?: number[];
  @OptionalField() @IsCssSelector() selector?: string;
  @OptionalField() @ValidateNested({ each: true }) @Type(() => StepDto) steps?: StepDto[];
}

@BodyRequired()
class ChangeDto {
  @OptionalField() @IsString() name?: string;
}

/** Domain rules the DTO does not know: `name` must not be "taboo", `size` must not be 3. */
const domainCheck = jest.fn((body: Record<string, unknown>, _context: FieldCheckContext): FieldError[] => [
  ...(body.name === 'taboo' || typeof body.name !== 'string' ? [{ field: 'name', message: 'name is taboo' }] : []),
  ...(body.size === 3 ? [{ field: 'size', message: 'size must not be 3' }] : []),
]);

@AlsoChecks((body, context) => domainCheck(body, context))
class CheckedDto {
  @IsString() name!: string;
  @IsInt() size!: number;
}

@AlsoChecks(() => {
  throw new Error('cannot cope');
})
class BrokenCheckDto {
  @IsString() name!: string;
}

class NamedDto {
  @IsString() @SingleLineName() name!: string;
}

class PageQuery {
  @QueryInt(1, 100) page?: number;
}

// No check here uses the URL policy; a stub that would show up in a failure if one did.
const context: FieldCheckContext = { urlPolicy: { checkSyntax: jest.fn() } };
const pipe = createValidationPipe(context);
const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });

/** The 422's details, or a failure naming what came back instead. */
async function refusal(value: unknown, metadata: ArgumentMetadata): Promise<{ details: FieldError[]; extra: Record<string, unknown> }> {
  try {
    const result: unknown = await pipe.transform(value, metadata);
    throw new Error(`accepted: ${JSON.stringify(result)}`);
  } catch (error) {
    if (!(error instanceof ValidationFailedError)) throw error;
    return { details: error.details, extra: error.extra };
  }
}
const fieldsOf = async (value: unknown, metadata: ArgumentMetadata) => (await refusal(value, metadata)).details.map((d) => d.field);

describe('validation', () => {
  beforeEach(() => domainCheck.mockClear());

  describe('flattenValidationErrors', () => {
    const error = (property: string, constraints?: Record<string, string>, children: ValidationError[] = []): ValidationError => ({
      property,
      constraints,
      children,
    });

    it('names nested and array fields as steps[3].selector, with the message renamed to the full path', () => {
      const errors = [error('steps', undefined, [error('3', undefined, [error('selector', { isString: 'selector must be a string' })])])];
      expect(flattenValidationErrors(errors)).toEqual([{ field: 'steps[3].selector', message: 'steps[3].selector must be a string' }]);
    });

    it('says "x is not allowed" for an unknown field and keeps a message that does not start with the property', () => {
      expect(flattenValidationErrors([error('extra', { whitelistValidation: 'property extra should not exist' })])).toEqual([
        { field: 'extra', message: 'extra is not allowed' },
      ]);
      expect(flattenValidationErrors([error('name', { custom: 'Must be short' })])).toEqual([{ field: 'name', message: 'Must be short' }]);
    });

    it('lists every constraint of every field', () => {
      const flat = flattenValidationErrors([
        error('a', { isInt: 'a must be an integer', max: 'a must not be greater than 10' }),
        error('b', { isString: 'b!' }),
      ]);
      expect(flat.map((f) => f.field)).toEqual(['a', 'a', 'b']);
    });
  });

  describe('parseId', () => {
    it.each([
      ['1', 1],
      ['42', 42],
      [String(MAX_ID), MAX_ID],
    ])('%s names row %d', (raw, id) => expect(parseId(raw)).toBe(id));

    it.each([undefined, '', '0', '01', '-1', '+1', '1e3', '0x10', ' 7', '7 ', '1.0', '2147483648', '99999999999', '١٢'])('%p names no row', (raw) =>
      expect(parseId(raw)).toBeNull(),
    );
  });

  describe('the validation pipe', () => {
    it('returns an instance of the DTO for a valid body', async () => {
      const result = await pipe.transform({ name: 'a', size: 3, ids: [1, 2] }, body(ThingDto));
      expect(result).toBeInstanceOf(ThingDto);
      expect(result).toEqual(Object.assign(new ThingDto(), { name: 'a', size: 3, ids: [1, 2] }));
    });

    it('names every bad field at once, unknown ones included, and never converts "5" into a number', async () => {
      const { details, extra } = await refusal({ name: 7, size: '5', extra: 1 }, body(ThingDto));
      // One entry per broken rule: "5" fails both @IsInt and @Max.
      expect(details).toEqual([
        { field: 'name', message: 'name must be a string' },
        { field: 'size', message: 'size must not be greater than 10' },
        { field: 'size', message: 'size must be an integer number' },
        { field: 'extra', message: 'extra is not allowed' },
      ]);
      expect(extra).toEqual({ details });
    });

    it('names keys such as constructor, __proto__ and toString as unknown fields instead of dropping them', async () => {
      const hostile = JSON.parse('{"name":"a","size":1,"constructor":1,"__proto__":{"x":1},"toString":2}') as unknown;
      expect(await fieldsOf(hostile, body(ThingDto))).toEqual(['constructor', '__proto__', 'toString']);
    });

    it('caps the list at MAX_DETAILS fields and says how many there were', async () => {
      const many: Record<string, unknown> = { name: 'a', size: 1 };
      for (let i = 0; i < 250; i++) many[`k${i}`] = i;
      const { details, extra } = await refusal(many, body(ThingDto));
      expect(details).toHaveLength(MAX_DETAILS);
      expect(extra.details_total).toBe(250);
    });

    it('names nested fields by their path', async () => {
      expect(await refusal({ name: 'a', size: 1, steps: [{ selector: '#a' }, { selector: 5 }] }, body(ThingDto))).toMatchObject({
        details: [{ field: 'steps[1].selector', message: 'steps[1].selector must be a string' }],
      });
    });

    it('refuses a body that is not a JSON object, and null', async () => {
      expect((await refusal([1, 2], body(ThingDto))).details).toEqual([{ field: 'body', message: 'body must be a JSON object' }]);
      expect((await refusal('text', body(ThingDto))).details).toEqual([{ field: 'body', message: 'body must be a JSON object' }]);
      expect((await refusal(null, body(ThingDto))).details).toEqual([{ field: 'body', message: expect.any(String) }]);
    });

    it('@BodyRequired: a missing body is a 422 naming body; {} is a valid (empty) change', async () => {
      expect((await refusal(undefined, body(ChangeDto))).details).toEqual([{ field: 'body', message: 'body must be a JSON object with the fields to change' }]);
      await expect(pipe.transform({}, body(ChangeDto))).resolves.toBeInstanceOf(ChangeDto);
    });

    it('@OptionalField: a missing field is fine, an explicit null is refused', async () => {
      await expect(pipe.transform({ name: 'a', size: 1 }, body(ThingDto))).resolves.toBeInstanceOf(ThingDto);
      expect(await fieldsOf({ name: 'a', size: 1, note: null }, body(ThingDto))).toEqual(['note']);
    });

    it('@IsId: positive integers a 32-bit id column can hold, also for each element of a list', async () => {
      await expect(pipe.transform({ name: 'a', size: 1, owner_id: MAX_ID }, body(ThingDto))).resolves.toBeDefined();
      for (const bad of [0, -1, MAX_ID + 1, 1.5, '3']) expect(await fieldsOf({ name: 'a', size: 1, owner_id: bad }, body(ThingDto))).toContain('owner_id');
      expect(await fieldsOf({ name: 'a', size: 1, ids: [1, MAX_ID + 1] }, body(ThingDto))).toContain('ids');
    });

    it('@IsCssSelector: a selector that does not parse is a 422 naming the field', async () => {
      await expect(pipe.transform({ name: 'a', size: 1, selector: '#main > .item' }, body(ThingDto))).resolves.toBeDefined();
      expect(await refusal({ name: 'a', size: 1, selector: 'div[' }, body(ThingDto))).toMatchObject({
        details: [{ field: 'selector', message: 'selector must contain valid CSS selectors' }],
      });
      expect(await fieldsOf({ name: 'a', size: 1, selector: 5 }, body(ThingDto))).toEqual(['selector']);
    });

    it('leaves path parameters as the strings they were sent as', async () => {
      await expect(pipe.transform('0x10', { type: 'param', metatype: Number, data: 'id' })).resolves.toBe('0x10');
    });

    it('@QueryInt converts plain decimal digits only; anything else, or a repeated parameter, is a 422', async () => {
      const query: ArgumentMetadata = { type: 'query', metatype: PageQuery };
      await expect(pipe.transform({ page: '7' }, query)).resolves.toEqual(Object.assign(new PageQuery(), { page: 7 }));
      await expect(pipe.transform({}, query)).resolves.toBeInstanceOf(PageQuery);
      for (const page of ['0x10', '1e1', ' 7', '-1', '0', '101', ['1', '2']]) expect(new Set(await fieldsOf({ page }, query))).toEqual(new Set(['page']));
      expect(await fieldsOf({ page: '1', sort: 'x' }, query)).toEqual(['sort']);
    });

    describe('@AlsoChecks', () => {
      it('runs the domain check only when the DTO itself fails, adding fields the DTO did not report', async () => {
        await expect(pipe.transform({ name: 'taboo', size: 1 }, body(CheckedDto))).resolves.toBeInstanceOf(CheckedDto);
        expect(domainCheck).not.toHaveBeenCalled();

        expect(await refusal({ name: 'taboo', size: 'x' }, body(CheckedDto))).toMatchObject({
          details: [
            { field: 'size', message: expect.any(String) },
            { field: 'name', message: 'name is taboo' },
          ],
        });
        expect(domainCheck).toHaveBeenCalledWith({ name: 'taboo', size: 'x' }, context);
      });

      it('does not report a field twice', async () => {
        // The domain check reports name too, but the DTO already did: only its size error is added.
        const { details } = await refusal({ name: 5, size: 3 }, body(CheckedDto));
        expect(details).toEqual([
          { field: 'name', message: 'name must be a string' },
          { field: 'size', message: 'size must not be 3' },
        ]);
      });

      it('a check that throws adds nothing: the DTO errors stand', async () => {
        expect(await refusal({ name: 5 }, body(BrokenCheckDto))).toEqual({
          details: [{ field: 'name', message: 'name must be a string' }],
          extra: expect.any(Object),
        });
      });
    });

    describe('a body with too many fields to parse (ManyFieldsBody)', () => {
      const many = (names: string[], text: string) => new ManyFieldsBody(names, text);

      it('names its unknown fields, capped, without parsing it', async () => {
        const names = Array.from({ length: 1500 }, (_, i) => `k${i}`);
        const { details, extra } = await refusal(many(names, 'not even JSON'), body(ThingDto));
        expect(details).toHaveLength(MAX_DETAILS);
        expect(details[0]).toEqual({ field: 'k0', message: 'k0 is not allowed' });
        expect(extra.details_total).toBe(1500);
      });

      it('parses and validates it after all when every name is a known one repeated', async () => {
        const text = `{${Array.from({ length: 1500 }, () => '"name":"x"').join(',')},"size":2}`;
        const names = [...Array.from({ length: 1500 }, () => 'name'), 'size'];
        await expect(pipe.transform(many(names, text), body(ThingDto))).resolves.toEqual(Object.assign(new ThingDto(), { name: 'x', size: 2 }));
      });
    });
    describe('SingleLineName (every name: website, scenario, schedule, channel, render key)', () => {
      it.each([
        ['CR LF (a forged e-mail header line)', 'Evil\r\nBcc: victim@evil.example'],
        ['LF', 'a\nb'],
        ['a tab', 'a\tb'],
        ['NUL', 'a\u0000b'],
        ['ESC', 'a\u001b[31mb'],
        ['DEL', 'a\u007fb'],
        ['a C1 control (NEL)', 'a\u0085b'],
        ['U+2028', 'a\u2028b'],
        ['U+2029', 'a\u2029b'],
      ])('refuses %s with a 422 naming the field', async (_what, name) => {
        expect((await refusal({ name }, body(NamedDto))).details).toEqual([
          { field: 'name', message: 'name must be one line of text without control characters (no CR, LF, tab, NUL, DEL or U+2028/U+2029)' },
        ]);
      });

      it('takes any other text: accents, emoji, right-to-left, spaces', async () => {
        for (const name of ['Café Ünïcode 😀', 'שלום', '  spaced  out  ', 'a\u00a0b']) {
          await expect(pipe.transform({ name }, body(NamedDto))).resolves.toEqual(Object.assign(new NamedDto(), { name }));
        }
      });
    });

    describe('query strings', () => {
      it('an empty query string gives the DTO with its defaults every time, a copy each time; a required field still fails every time', async () => {
        class Defaults {
          @QueryInt(1, 100) page?: number = 1;
        }
        class Required {
          @IsString() q!: string;
        }
        const first = await pipe.transform(Object.create(null), { type: 'query', metatype: Defaults });
        const again = (await pipe.transform({}, { type: 'query', metatype: Defaults })) as Defaults;
        expect(first).toEqual(Object.assign(new Defaults(), { page: 1 }));
        expect(again).toBeInstanceOf(Defaults);
        expect(again).toEqual(first);
        expect(again).not.toBe(first);
        again.page = 9; // a controller changing its copy changes no later request's
        expect(await pipe.transform({}, { type: 'query', metatype: Defaults })).toEqual(first);
        expect(await pipe.transform({ page: '3' }, { type: 'query', metatype: Defaults })).toEqual(Object.assign(new Defaults(), { page: 3 }));
        for (let i = 0; i < 2; i++) expect(await fieldsOf({}, { type: 'query', metatype: Required })).toEqual(['q']);
      });

      it('a query seen before gives a copy of the DTO made the first time, checked once; a refusal is checked every time', async () => {
        let checks = 0;
        class Counted {
          @QueryInt(1, 100) page?: number;
          @IsString() q!: string;
        }
        registerDecorator({ name: 'counted', target: Counted, propertyName: 'q', validator: { validate: () => (checks++, true) } });
        const query = () => Object.assign(Object.create(null) as object, { page: '2', q: 'cats' });
        const first = (await pipe.transform(query(), { type: 'query', metatype: Counted })) as Counted;
        const again = (await pipe.transform(query(), { type: 'query', metatype: Counted })) as Counted;
        expect(checks).toBe(1);
        expect(again).toBeInstanceOf(Counted);
        expect(again).toEqual(Object.assign(new Counted(), { page: 2, q: 'cats' }));
        expect(again).not.toBe(first);
        again.q = 'dogs'; // a controller changing its copy changes no later request's
        expect(await pipe.transform(query(), { type: 'query', metatype: Counted })).toEqual(Object.assign(new Counted(), { page: 2, q: 'cats' }));
        // Another query is its own entry; the same fields in another order are checked again, and give the same.
        expect(await pipe.transform({ page: '3', q: 'cats' }, { type: 'query', metatype: Counted })).toEqual(
          Object.assign(new Counted(), { page: 3, q: 'cats' }),
        );
        expect(await pipe.transform({ q: 'cats', page: '2' }, { type: 'query', metatype: Counted })).toEqual(
          Object.assign(new Counted(), { page: 2, q: 'cats' }),
        );
        expect(checks).toBe(3);
        for (let i = 0; i < 2; i++) expect(await fieldsOf({ page: '0', q: 'cats' }, { type: 'query', metatype: Counted })).toEqual(['page']);
        expect(checks).toBe(5);
      });

      it(`keeps at most ${KEPT_QUERIES_PER_DTO} queries per DTO, letting go of the one used least recently`, async () => {
        let checks = 0;
        class Searched {
          @IsString() q!: string;
        }
        registerDecorator({ name: 'counted', target: Searched, propertyName: 'q', validator: { validate: () => (checks++, true) } });
        const ask = (q: string) => pipe.transform({ q }, { type: 'query', metatype: Searched });
        await ask('first');
        for (let i = 1; i < KEPT_QUERIES_PER_DTO; i++) await ask(`q${i}`);
        await ask('first'); // kept, and now the most recent
        expect(checks).toBe(KEPT_QUERIES_PER_DTO);
        await ask('one more'); // the least recent (q1) goes
        await ask('first');
        expect(checks).toBe(KEPT_QUERIES_PER_DTO + 1);
        await ask('q1');
        expect(checks).toBe(KEPT_QUERIES_PER_DTO + 2);
      });

      it('a query kept for one owner (keptFor) is never answered to another from the kept map', async () => {
        let checks = 0;
        class Rendered {
          @IsString() url!: string;
        }
        registerDecorator({ name: 'counted', target: Rendered, propertyName: 'url', validator: { validate: () => (checks++, true) } });
        const ask = (keptFor: string) =>
          pipe.transform({ url: 'https://example.com/private' }, { type: 'query', metatype: Rendered, keptFor } as QueryMetadata);
        await ask('account 1');
        await ask('account 2');
        expect(checks).toBe(2);
        await ask('account 1');
        await ask('account 2');
        expect(checks).toBe(2);
      });

      it('a query with a value that is not plain text is checked every time (not kept)', async () => {
        let checks = 0;
        class Tagged {
          @IsString({ each: true }) tags!: string[];
        }
        registerDecorator({ name: 'counted', target: Tagged, propertyName: 'tags', validator: { validate: () => (checks++, true) } });
        for (let i = 0; i < 2; i++) await pipe.transform({ tags: ['a', 'b'] }, { type: 'query', metatype: Tagged });
        expect(checks).toBe(2);
      });

      it('a NUL in a query value is a 422 naming the parameter, whatever the DTO', async () => {
        expect((await refusal({ page: '1', q: 'a\u0000b' }, { type: 'query', metatype: PageQuery })).details).toEqual([
          { field: 'q', message: 'q must not contain NUL characters' },
        ]);
        expect((await refusal({ cache_key: 'a\u0000b' }, { type: 'query', metatype: Object })).details).toEqual([
          { field: 'cache_key', message: 'cache_key must not contain NUL characters' },
        ]);
        expect((await refusal({ tags: ['ok', 'a\u0000'] }, { type: 'query', metatype: Object })).details.map((d) => d.field)).toEqual(['tags[1]']);
      });
    });
  });
});
