import { Type } from 'class-transformer';
import { getMetadataStorage, registerDecorator } from 'class-validator';
import { FieldError, MAX_DETAILS, ValidationFailedError } from '../domain/domain-error';
import { MAX_PARSED_ENTRIES } from './body-parsing';
import { notAllowed } from './capped-validation';

/**
 * Counts first, then elements (issue 27): a request body is walked once, before class-transformer copies it and
 * class-validator checks it element by element, and every array and object in it is measured against its bound
 * before any of its elements is looked at. The first collection over its bound ends the walk with a 422 naming
 * it, so no body under 1 MiB costs more than one bounded pass (class-transformer and class-validator held the
 * event loop for seconds on such bodies; figures: docs/benchmark.md).
 *
 * The bounds come from the DTOs: `@ArrayMaxSize(n)`, `@MaxEntries(n)` (objects, or arrays with their own
 * message), and `@NestedDto(() => Dto)` for objects and arrays of objects described by a DTO of their own,
 * whose unknown fields are named like the top level's. Values no DTO describes (a scenario's steps, an echoed
 * read-only field) get the generic bounds below.
 */

/** Entries of an array or object no DTO bounds: no request needs more (a scenario has ≤ 50 steps of ≤ 3 fields). */
export const MAX_FREE_ENTRIES = 100;
/** Values in all the parts of one body no DTO describes. */
export const MAX_FREE_VALUES = 10_000;

const NESTED = Symbol('nestedDto');
type DtoClass = abstract new (...args: never[]) => unknown;

/**
 * A field holding an object, or an array of objects, that `type` describes: class-transformer's @Type, and the
 * walk checks that object's fields (unknown ones named, bounds applied) as it checks the body's.
 */
export function NestedDto(type: () => DtoClass): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    const own = (Reflect.getOwnMetadata(NESTED, target.constructor) as Map<string, () => DtoClass> | undefined) ?? new Map(nestedOf(target.constructor));
    own.set(String(propertyName), type);
    Reflect.defineMetadata(NESTED, own, target.constructor);
    Type(type)(target, propertyName);
  };
}

function nestedOf(metatype: object): Map<string, () => DtoClass> {
  return (Reflect.getMetadata(NESTED, metatype) as Map<string, () => DtoClass> | undefined) ?? new Map<string, () => DtoClass>();
}

/**
 * At most `max` entries (an object's keys or an array's items). Checked before anything inside is looked at;
 * `message` follows the field's name (default "must have at most N entries").
 */
export function MaxEntries(max: number, message = `must have at most ${max} entries`): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'maxEntries',
      target: target.constructor,
      propertyName: String(propertyName),
      constraints: [max, message],
      options: { message: ({ property }) => `${property} ${message}` },
      validator: { validate: (value: unknown) => entryCount(value) <= max },
    });
}

function entryCount(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length;
  return 0;
}

interface FieldRule {
  max?: number;
  /** The breach message, after the field's path. */
  message?: string;
  nested?: () => DtoClass;
  each: boolean;
}

const rulesByClass = new WeakMap<object, Map<string, FieldRule>>();

/** Each declared field's bound and nested DTO, read once per class from the decorators' metadata. */
function rulesOf(metatype: object): Map<string, FieldRule> {
  let rules = rulesByClass.get(metatype);
  if (rules) return rules;
  rules = new Map();
  const nested = nestedOf(metatype);
  for (const m of getMetadataStorage().getTargetValidationMetadatas(metatype as () => void, '', true, false)) {
    const rule = rules.get(m.propertyName) ?? { each: false };
    rules.set(m.propertyName, rule);
    if (m.type === 'nestedValidation' && m.each) rule.each = true;
    if (m.name === 'arrayMaxSize' && !m.each) {
      rule.max = Number(m.constraints[0]);
      rule.message ??= `must contain no more than ${rule.max} elements`;
    }
    if (m.name === 'maxEntries' && !m.each) {
      rule.max = Number(m.constraints[0]);
      rule.message = String(m.constraints[1]);
    }
  }
  for (const [field, type] of nested) {
    const rule = rules.get(field) ?? { each: false };
    rule.nested = type;
    rules.set(field, rule);
  }
  rulesByClass.set(metatype, rules);
  return rules;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `steps[3].selector`, as the validation errors name fields. */
const pathOf = (parent: string, key: string | number): string => (typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? key : `${parent}.${key}`);

/** Keys every object inherits (`constructor`, `toString`, `__proto__`…): class-transformer drops them unseen. */
const inherited = (key: string): boolean => key in Object.prototype;

function breach(field: string, message: string): ValidationFailedError {
  return new ValidationFailedError([{ field: field || 'body', message: `${field || 'body'} ${message}` }]);
}

export interface BoundedBody {
  /** The body with only its declared fields (and, in free parts, no inherited key names): safe to copy. */
  value: Record<string, unknown>;
  /** Fields not allowed (unknown to their DTO, or named like an inherited property), at most MAX_DETAILS. */
  refused: FieldError[];
  /** How many fields were not allowed in all. */
  refusedTotal: number;
}

class BoundedWalk {
  readonly refused: FieldError[] = [];
  refusedTotal = 0;
  private freeValues = 0;

  refuse(field: string): void {
    this.refusedTotal++;
    if (this.refused.length < MAX_DETAILS) this.refused.push(notAllowed(field));
  }

  dto(value: Record<string, unknown>, metatype: object, path: string): Record<string, unknown> {
    const rules = rulesOf(metatype);
    const known: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const rule = rules.get(key);
      if (rule === undefined) this.refuse(pathOf(path, key));
      else known[key] = this.field(value[key], rule, pathOf(path, key));
    }
    return known;
  }

  private field(value: unknown, rule: FieldRule, path: string): unknown {
    if (Array.isArray(value)) {
      const max = rule.max ?? MAX_FREE_ENTRIES;
      if (value.length > max) throw breach(path, rule.message ?? `must have at most ${max} items`);
      if (rule.nested && rule.each) {
        const type = rule.nested();
        return value.map((item, i) => (isPlainObject(item) ? this.dto(item, type, pathOf(path, i)) : this.free(item, pathOf(path, i))));
      }
      // A bound of its own (checked above) wins over the generic one: its items are walked one by one.
      return rule.max !== undefined ? value.map((item, i) => this.free(item, pathOf(path, i))) : this.free(value, path);
    }
    if (isPlainObject(value)) {
      if (rule.nested && !rule.each) return this.dto(value, rule.nested(), path);
      const max = rule.max ?? MAX_FREE_ENTRIES;
      // Counted without listing the keys: an object of 66,666 headers is refused at the cost of one Object.keys.
      if (Object.keys(value).length > max) throw breach(path, rule.message ?? `must have at most ${max} fields`);
      return this.free(value, path);
    }
    return value;
  }

  /** A part no DTO describes: generic bounds, inherited key names refused. */
  private free(value: unknown, path: string): unknown {
    if (++this.freeValues > MAX_FREE_VALUES) throw breach(path, `makes the body hold more than ${MAX_FREE_VALUES} values`);
    if (Array.isArray(value)) {
      if (value.length > MAX_FREE_ENTRIES) throw breach(path, `must have at most ${MAX_FREE_ENTRIES} items`);
      return value.map((item, i) => this.free(item, pathOf(path, i)));
    }
    if (!isPlainObject(value)) return value;
    const keys = Object.keys(value);
    if (keys.length > MAX_FREE_ENTRIES) throw breach(path, `must have at most ${MAX_FREE_ENTRIES} fields`);
    const copy: Record<string, unknown> = {};
    for (const key of keys) {
      if (inherited(key)) this.refuse(pathOf(path, key));
      else copy[key] = this.free(value[key], pathOf(path, key));
    }
    return copy;
  }
}

/**
 * Walks a JSON object body against its DTO, bounds first (see above). Throws a 422 naming the first collection
 * over its bound; otherwise returns the body's declared part and the fields refused on the way.
 */
export function boundBody(body: Record<string, unknown>, metatype: object): BoundedBody {
  const walk = new BoundedWalk();
  const value = walk.dto(body, metatype, '');
  return { value, refused: walk.refused, refusedTotal: walk.refusedTotal };
}

/**
 * The 422 for a body whose JSON text holds an object or array too large to parse (body-parsing's CrowdedBody):
 * the field's own bound when its DTO gives one (`hide_selectors must contain no more than 50 elements`), the
 * generic one for parts no DTO describes, and for an object a DTO describes, that it has far too many fields.
 */
export function crowdedError(metatype: object, field: string, kind: 'fields' | 'items'): ValidationFailedError {
  if (field === '') return ValidationFailedError.of('body', 'body must be a JSON object');
  let dto: object | null = metatype;
  let rule: FieldRule | undefined;
  let path = '';
  for (const [, name, index] of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    path = name !== undefined ? pathOf(path, name) : pathOf(path, Number(index));
    if (name !== undefined && dto) {
      rule = rulesOf(dto).get(name);
      if (rule === undefined) return new ValidationFailedError([notAllowed(path)]);
      dto = rule.nested && !rule.each ? rule.nested() : null;
    } else if (index !== undefined && dto === null && rule?.nested && rule.each) {
      dto = rule.nested();
      rule = undefined;
    } else {
      dto = null;
      rule = undefined;
    }
  }
  if (rule?.max !== undefined && rule.message) return breach(field, rule.message);
  if (dto) return breach(field, `has more than ${MAX_PARSED_ENTRIES} fields`);
  return breach(field, `must have at most ${MAX_FREE_ENTRIES} ${kind}`);
}
