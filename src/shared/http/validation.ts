import { applyDecorators, ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { getMetadataStorage, IsInt, IsOptional, Max, Min, registerDecorator, ValidateIf, ValidationOptions } from 'class-validator';
import { isValidCssSelector } from '../css-selector/css-selector';
import { FieldError, ValidationFailedError } from '../domain/domain-error';
import type { UrlPolicy } from '../url-policy';
import { boundBody, crowdedError } from './body-bounds';
import { CrowdedBody, fieldsWithBadText, ManyFieldsBody } from './body-parsing';
import { cappedValidationError, MAX_DETAILS, notAllowed } from './capped-validation';

function humanise(field: string, constraint: string, message: string): string {
  // class-validator says "property x should not exist" for unknown fields; say it the way the API does.
  if (constraint === 'whitelistValidation') return `${field} is not allowed`;
  return message;
}

/** Flattens nested class-validator errors into `{field: "steps[3].selector", message}` entries. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = parent === '' ? error.property : /^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      const named = message.startsWith(error.property) ? field + message.slice(error.property.length) : message;
      out.push({ field, message: humanise(field, constraint, named) });
    }
    // An array where an object belongs: naming each element too would only repeat that one mistake.
    if (error.children?.length && !error.constraints?.isNotArray) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

/** What a DTO's domain checks (AlsoChecks) may use. */
export interface FieldCheckContext {
  urlPolicy: Pick<UrlPolicy, 'checkSyntax'>;
}

type FieldCheck = (body: Record<string, unknown>, context: FieldCheckContext) => FieldError[];

const ALSO_CHECKS = Symbol('alsoChecks');

/**
 * Field rules that live in the domain rather than in the DTO (a URL's policy, a scenario's steps, a schedule's
 * time and zone). They run in the service once the DTO is valid; when the DTO is not, the pipe runs them too,
 * so one 422 names every bad field (API.md) instead of revealing them one fix at a time.
 */
export function AlsoChecks(check: FieldCheck): ClassDecorator {
  return (target) => Reflect.defineMetadata(ALSO_CHECKS, check, target);
}

const BODY_REQUIRED = Symbol('bodyRequired');

/**
 * The request must send this body (a PUT's fields to change): a missing body or `null` is a 422 naming
 * `body`, not an update that silently changes nothing.
 */
export function BodyRequired(): ClassDecorator {
  return (target) => Reflect.defineMetadata(BODY_REQUIRED, true, target);
}

const knownFields = new WeakMap<object, Set<string>>();

/** The fields a DTO declares (every validated or @Allow()ed property), read once per class. */
function fieldsOf(metatype: object): Set<string> {
  let fields = knownFields.get(metatype);
  if (!fields) {
    fields = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(metatype as () => void, '', true, false)
        .map((m) => m.propertyName),
    );
    knownFields.set(metatype, fields);
  }
  return fields;
}

/** `steps[3].selector` → `steps`: a field the DTO already reported is not reported twice. */
const topField = (field: string): string => field.split(/[.[]/)[0];

/**
 * A query's metadata, with whose it is when that must not be shared (`keptFor`): a query kept for one account is
 * never answered to another from the kept map, so how fast a query is checked tells no one what another account
 * asked (GET /render's URLs). Without it, kept queries are shared (a list's page and filters: nothing to learn).
 */
export interface QueryMetadata extends ArgumentMetadata {
  keptFor?: string;
}

/** Per query DTO, the DTOs the checks made of the query strings seen lately (ReportingValidationPipe.keptQuery). */
const keptQueries = new WeakMap<object, Map<string, object>>();
/** Query strings kept per DTO; past it the one used least recently goes. */
export const KEPT_QUERIES_PER_DTO = 256;
/** A longer query is checked every time rather than kept (bounds what the map can hold). */
const KEPT_QUERY_MAX_LENGTH = 2048;

/**
 * What identifies a query for keptQuery: its fields and values in the order sent, when every value is a primitive
 * (a query string's text, or what GET /render typed it into) and the whole is short; else null (not kept).
 */
function queryKey(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return null;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== null && prototype !== Object.prototype) return null;
  const fields = value as Record<string, unknown>;
  for (const key in fields) {
    if (!Object.prototype.hasOwnProperty.call(fields, key)) continue;
    const v = fields[key];
    if (v !== null && typeof v === 'object') return null;
  }
  const key = JSON.stringify(fields);
  return key.length <= KEPT_QUERY_MAX_LENGTH ? key : null;
}

/** A shallow copy with the same prototype (the DTO's class): its values are plain, so nothing is shared. */
function copyOf(made: object): object {
  return Object.assign(Object.create(Object.getPrototypeOf(made) as object | null) as object, made);
}

class ReportingValidationPipe extends ValidationPipe {
  constructor(private readonly context: FieldCheckContext) {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      // No implicit conversion: "1280" is not an integer in a JSON body. Query DTOs convert explicitly.
      transformOptions: { enableImplicitConversion: false },
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new ValidationFailedError(flattenValidationErrors(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'query' && metadata.metatype) {
      const key = queryKey(value);
      const owner = (metadata as QueryMetadata).keptFor;
      if (key !== null) return this.keptQuery(owner === undefined ? key : `${owner}\u0000${key}`, value, metadata.metatype, metadata);
    }
    return this.check(value, metadata);
  }

  /**
   * A query string this DTO was given lately (the first page of a list, the same signed GET /render link of an
   * `<img>` on a busy page): a copy of the DTO the checks made of it then. The checks are a function of the query
   * alone (no validator reads the clock, the configuration or the database), so they would make the same again —
   * and class-transformer and class-validator took ~25 µs of a list request and ~140 µs of a render's
   * (docs/benchmark.md "Per-request cost"). Kept only when it passed and holds plain values (a copy could not share
   * anything); a refusal is checked again every time.
   */
  private async keptQuery(key: string, value: unknown, metatype: object, metadata: ArgumentMetadata): Promise<unknown> {
    let kept = keptQueries.get(metatype);
    const found = kept?.get(key);
    if (kept && found) {
      // Used again: it becomes the most recent (a Map iterates in insertion order; the first is the least recent).
      kept.delete(key);
      kept.set(key, found);
      return copyOf(found);
    }
    const made = await this.check(value, metadata);
    if (made !== null && typeof made === 'object' && Object.values(made).every((v) => v === null || typeof v !== 'object')) {
      if (!kept) keptQueries.set(metatype, (kept = new Map<string, object>()));
      if (kept.size >= KEPT_QUERIES_PER_DTO) kept.delete(kept.keys().next().value as string);
      kept.set(key, copyOf(made));
    }
    return made;
  }

  private async check(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Path parameters stay the strings they were sent as: their own pipes (IdParam, UuidParam) parse them
    // strictly. Converted here first, `Number("0x10")`, `Number("+1")` or `Number("1e3")` named another row.
    if (metadata.type === 'param') return value;
    // A query string's NUL (`cache_key=a%00b`) is refused as a JSON body's is (body-parsing.ts): 422 naming the field.
    if (metadata.type === 'query' && value !== null && typeof value === 'object') {
      const bad = fieldsWithBadText(value);
      if (bad.length > 0) throw cappedValidationError(bad);
    }
    const metatype = metadata.metatype;
    // An object or array too large to parse, named with the bound its DTO gives that field.
    if (value instanceof CrowdedBody) throw metatype ? crowdedError(metatype, value.field, value.kind) : value.error();
    if (value instanceof ManyFieldsBody && metatype) {
      const fields = fieldsOf(metatype);
      const unknown = value.names.filter((name) => !fields.has(name));
      // Thousands of fields, none of them unknown: one known name repeated. Parsed after all, and checked as usual.
      if (unknown.length === 0) return this.transform(value.parse(), metadata);
      throw cappedValidationError(unknown.slice(0, MAX_DETAILS).map(notAllowed), unknown.length);
    }
    if ((metadata.type === 'body' || metadata.type === 'query') && metatype && fieldsOf(metatype).size > 0) {
      if (metadata.type === 'body' && (value === null || (value === undefined && Reflect.getMetadata(BODY_REQUIRED, metatype)))) {
        throw ValidationFailedError.of('body', 'body must be a JSON object with the fields to change');
      }
      if (value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
        throw ValidationFailedError.of(metadata.type, `${metadata.type} must be a JSON object`);
      }
      if (value !== undefined) {
        // Bounds first, on the raw body, before class-transformer copies it (body-bounds.ts): a collection over
        // its bound is a 422 at once; unknown fields, nested ones too, are named and left out of the copy.
        const bounded = boundBody(value as Record<string, unknown>, metatype);
        if (bounded.refusedTotal > 0) {
          // The known fields are still checked (one 422 names every bad field), on the copy without the refused ones.
          const others = await this.transform(bounded.value, metadata).then(
            () => null,
            (err: unknown) => (err instanceof ValidationFailedError ? err : null),
          );
          throw cappedValidationError([...(others?.details ?? []), ...bounded.refused], (others?.total ?? 0) + bounded.refusedTotal);
        }
        value = bounded.value;
      }
    }
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      const check = (metadata.metatype ? Reflect.getMetadata(ALSO_CHECKS, metadata.metatype) : undefined) as FieldCheck | undefined;
      if (!(err instanceof ValidationFailedError) || !check || !value || typeof value !== 'object' || Array.isArray(value)) throw err;
      const reported = new Set(err.details.map((d) => topField(d.field)));
      let more: FieldError[];
      try {
        more = check(value as Record<string, unknown>, this.context).filter((d) => !reported.has(topField(d.field)));
      } catch {
        throw err; // a check that cannot cope with this body adds nothing; the DTO's errors stand
      }
      throw more.length > 0 ? new ValidationFailedError([...err.details, ...more], err.total + more.length) : err;
    }
  }
}

export function createValidationPipe(context: FieldCheckContext): ValidationPipe {
  return new ReportingValidationPipe(context);
}

/**
 * Like @IsOptional(), but only for a missing field: an explicit `null` is still validated (and refused),
 * so it can never reach a NOT NULL column as a 500.
 */
export function OptionalField(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}

/** A standard CSS selector (the same checker the scenario steps use), so a typo is a 422, not a failed job. */
export function IsCssSelector(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isCssSelector',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: ({ property }) => `${property} must contain valid CSS selectors`, ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && isValidCssSelector(value) },
    });
}

/** The largest id a row can have: id columns are 32-bit integers on SQLite and PostgreSQL alike. */
export const MAX_ID = 2_147_483_647;

/** A decimal id an id column can hold (`"42"` → 42), else null: anything else cannot name a row. */
export function parseId(raw: string | undefined): number | null {
  if (raw === undefined || !/^[1-9]\d{0,9}$/.test(raw)) return null;
  const id = Number(raw);
  return id <= MAX_ID ? id : null;
}

/**
 * A positive integer the id columns can hold (`each` for arrays of ids): an id out of that range is a 422
 * naming the field, never a database error (PostgreSQL refuses 2147483648 for an integer column).
 */
export function IsId(options: { each?: boolean } = {}): PropertyDecorator {
  return applyDecorators(IsInt(options), Min(1, options), Max(MAX_ID, options));
}

/**
 * An optional integer query parameter. Only plain decimal digits convert (`Number()` would take `0x10`, `1e1`
 * or ` 7`); anything else, a repeated parameter (an array) included, stays as sent and fails IsInt with 422.
 * The upper bound keeps page offsets and ids inside what the databases accept.
 */
export function QueryInt(min: number, max: number): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value)),
    IsInt(),
    Min(min),
    Max(max),
  );
}

/**
 * Control characters no name holds: C0 (tab, CR and LF included), DEL, C1, and the Unicode line and paragraph
 * separators. A name travels into e-mail subjects and headers, Slack and Discord messages, log lines and the
 * dashboard: `"Evil\r\nBcc: victim@evil.example"` must never forge a line there.
 */
export function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

/**
 * One line of text without control characters: the rule of every name (website, scenario, schedule, channel,
 * render key). A 422 naming the field; non-strings are left to IsString.
 */
export function SingleLineName(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isSingleLine',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: ({ property }) => `${property} must be one line of text without control characters (no CR, LF, tab, NUL, DEL or U+2028/U+2029)` },
      validator: { validate: (value: unknown) => typeof value !== 'string' || !hasControlCharacters(value) },
    });
}

/** A field rule that lives in a domain predicate (a locale, a time zone), with the message it fails with. */
export function Satisfies(name: string, predicate: (value: unknown) => boolean, message: string): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: ({ property }) => `${property} ${message}` },
      validator: { validate: predicate },
    });
}
