import { Allow, ArrayMaxSize, IsArray, IsInt, IsString, registerDecorator, ValidateNested } from 'class-validator';
import { ValidationFailedError } from '../domain/domain-error';
import { boundBody, crowdedError, MAX_FREE_ENTRIES, MAX_FREE_VALUES, MaxEntries, NestedDto } from './body-bounds';
import { createValidationPipe, OptionalField } from './validation';

/** Counts every element class-validator looks at: the bound must be applied before any of them. */
let elementsSeen = 0;
function CountedElement(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'countedElement',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { each: true },
      validator: {
        validate: () => {
          elementsSeen++;
          return true;
        },
      },
    });
}

class PointDto {
  @IsInt() x!: number;
  @IsInt() y!: number;
}

class ShapeDto {
  @OptionalField() @IsArray() @ArrayMaxSize(3) @IsString({ each: true }) @CountedElement() tags?: string[];
  @OptionalField() @MaxEntries(2) @Allow() labels?: Record<string, string>;
  @OptionalField() @ValidateNested() @NestedDto(() => PointDto) origin?: PointDto;
  @OptionalField() @IsArray() @ArrayMaxSize(4) @ValidateNested({ each: true }) @NestedDto(() => PointDto) points?: PointDto[];
  @OptionalField() @MaxEntries(5, 'must contain 1 to 5 things') @Allow() things?: unknown;
  @OptionalField() @Allow() anything?: unknown;
}

const pipe = createValidationPipe({ urlPolicy: { checkSyntax: () => ({ allowed: true }) } as never });
const validate = (body: unknown) => pipe.transform(body, { type: 'body', metatype: ShapeDto, data: '' });
const detailsOf = async (body: unknown): Promise<{ details: unknown; details_total?: number }> => {
  const err = await validate(body).then(
    () => new Error('expected a 422'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationFailedError);
  return (err as ValidationFailedError).extra as { details: unknown; details_total?: number };
};

describe('boundBody: counts before elements (issue 27)', () => {
  beforeEach(() => {
    elementsSeen = 0;
  });

  it('an array over its ArrayMaxSize is the answer before any element is validated', async () => {
    // Counted, not timed (a loaded machine breaks a time ceiling): no element is read, by the walk or by a copy.
    let elementsRead = 0;
    const tags = new Proxy(
      Array.from({ length: 200_000 }, () => 'a'),
      {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) elementsRead++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      },
    );
    expect(await detailsOf({ tags })).toEqual({
      details: [{ field: 'tags', message: 'tags must contain no more than 3 elements' }],
    });
    expect(elementsSeen).toBe(0);
    expect(elementsRead).toBe(0);
    await validate({ tags: ['a', 'b', 'c'] });
    expect(elementsSeen).toBe(3);
  });

  it('MaxEntries bounds an object by its keys, with its own message for arrays too', async () => {
    const labels = Object.fromEntries(Array.from({ length: 66_666 }, (_, i) => [`h${i}`, 'v']));
    expect(await detailsOf({ labels })).toEqual({ details: [{ field: 'labels', message: 'labels must have at most 2 entries' }] });
    expect(await detailsOf({ things: [1, 2, 3, 4, 5, 6] })).toEqual({ details: [{ field: 'things', message: 'things must contain 1 to 5 things' }] });
    await validate({ labels: { a: 'x', b: 'y' }, things: [1] });
  });

  it('the walk stops at the first breach', async () => {
    const body = { tags: ['a', 'b', 'c', 'd'], points: Array.from({ length: 5 }, () => ({ x: 1, y: 1 })) };
    expect(await detailsOf(body)).toEqual({ details: [{ field: 'tags', message: 'tags must contain no more than 3 elements' }] });
  });

  it('a nested DTO names its unknown fields by path, at most 100 with details_total, its known fields checked alongside', async () => {
    const origin: Record<string, unknown> = { x: 'no', y: 1 };
    for (let i = 0; i < 150; i++) origin[`k${i}`] = i;
    const { details, details_total } = await detailsOf({ origin, points: [{ x: 1, y: 1, z: 1 }] });
    expect(details_total).toBe(152);
    expect((details as unknown[]).slice(0, 3)).toEqual([
      { field: 'origin.x', message: 'origin.x must be an integer number' },
      { field: 'origin.k0', message: 'origin.k0 is not allowed' },
      { field: 'origin.k1', message: 'origin.k1 is not allowed' },
    ]);
    expect(details).toHaveLength(100);
    const walked = boundBody({ origin, points: [{ x: 1, y: 1, z: 1 }] }, ShapeDto);
    expect(walked.refusedTotal).toBe(151);
    expect(walked.refused.at(-1)).toEqual({ field: 'origin.k99', message: 'origin.k99 is not allowed' });
    expect(boundBody({ points: [{ x: 1, y: 1, z: 1 }] }, ShapeDto).refused).toEqual([{ field: 'points[0].z', message: 'points[0].z is not allowed' }]);
  });

  it('inherited names (constructor, toString, valueOf) are refused at any depth, never dropped', async () => {
    const body = JSON.parse('{"origin":{"x":1,"y":1,"constructor":1},"labels":{"toString":"v"},"anything":[{"valueOf":1,"ok":2}]}') as unknown;
    expect(await detailsOf(body)).toEqual({
      details: [
        { field: 'origin.constructor', message: 'origin.constructor is not allowed' },
        { field: 'labels.toString', message: 'labels.toString is not allowed' },
        { field: 'anything[0].valueOf', message: 'anything[0].valueOf is not allowed' },
      ],
    });
  });

  it('parts no DTO describes get the generic bounds', async () => {
    const wide = Object.fromEntries(Array.from({ length: MAX_FREE_ENTRIES + 1 }, (_, i) => [`k${i}`, i]));
    expect(await detailsOf({ anything: { deeper: wide } })).toEqual({
      details: [{ field: 'anything.deeper', message: `anything.deeper must have at most ${MAX_FREE_ENTRIES} fields` }],
    });
    expect(await detailsOf({ anything: [[Array.from({ length: MAX_FREE_ENTRIES + 1 }, () => 0)]] })).toEqual({
      details: [{ field: 'anything[0][0]', message: `anything[0][0] must have at most ${MAX_FREE_ENTRIES} items` }],
    });
    // 100 × 100 × 2 values: each container within its bound, the whole over MAX_FREE_VALUES.
    const grid = Array.from({ length: 100 }, () => Array.from({ length: 100 }, () => [0]));
    expect(((await detailsOf({ anything: grid })).details as Array<{ message: string }>)[0].message).toContain(`more than ${MAX_FREE_VALUES} values`);
  });

  it('a body too large to parse is named with the bound its DTO gives that field', () => {
    const message = (field: string, kind: 'fields' | 'items') => crowdedError(ShapeDto, field, kind).details;
    expect(message('tags', 'items')).toEqual([{ field: 'tags', message: 'tags must contain no more than 3 elements' }]);
    expect(message('labels', 'fields')).toEqual([{ field: 'labels', message: 'labels must have at most 2 entries' }]);
    expect(message('origin', 'fields')).toEqual([{ field: 'origin', message: 'origin has more than 1000 fields' }]);
    expect(message('points[2]', 'fields')).toEqual([{ field: 'points[2]', message: 'points[2] has more than 1000 fields' }]);
    expect(message('anything.a', 'items')).toEqual([{ field: 'anything.a', message: `anything.a must have at most ${MAX_FREE_ENTRIES} items` }]);
    expect(message('nope.deeper', 'fields')).toEqual([{ field: 'nope', message: 'nope is not allowed' }]);
    expect(message('', 'items')).toEqual([{ field: 'body', message: 'body must be a JSON object' }]);
  });
});

describe('ValidationFailedError: at most 100 details, details_total for the rest', () => {
  it('caps what the body lists, keeps the count', () => {
    const details = Array.from({ length: 250 }, (_, i) => ({ field: `f${i}`, message: `f${i} is wrong` }));
    const error = new ValidationFailedError(details);
    expect(error.extra.details).toHaveLength(100);
    expect(error.extra.details_total).toBe(250);
    expect(new ValidationFailedError(details.slice(0, 100), 4000).extra.details_total).toBe(4000);
    expect(new ValidationFailedError(details.slice(0, 3)).extra).toEqual({ details: details.slice(0, 3) });
  });
});

describe('boundBody: a bound of its own wins over the generic one (batches: up to 1,000 URLs)', () => {
  class ListDto {
    @OptionalField() @IsArray() @ArrayMaxSize(1000) @IsString({ each: true }) urls?: string[];
  }

  it(`a list of text under its own ArrayMaxSize passes past ${MAX_FREE_ENTRIES} items; over it, its own message`, () => {
    const urls = Array.from({ length: 1000 }, (_, i) => `https://example.com/${i}`);
    expect(boundBody({ urls }, ListDto).value).toEqual({ urls });
    expect(() => boundBody({ urls: [...urls, 'one more'] }, ListDto)).toThrow(ValidationFailedError);
    try {
      boundBody({ urls: [...urls, 'one more'] }, ListDto);
    } catch (err) {
      expect((err as ValidationFailedError).details).toEqual([{ field: 'urls', message: 'urls must contain no more than 1000 elements' }]);
    }
  });
});
