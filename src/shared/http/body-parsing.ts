import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import secureJson from 'secure-json-parse';
import { BadRequestError, FieldError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationFailedError } from '../domain/domain-error';
import { cappedValidationError, MAX_DETAILS, notAllowed } from './capped-validation';
import { routeFlag } from './decorators';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * No body of this API nests deeper than a handful of levels (a scenario's steps are 3). A cap keeps a
 * 200 KB `[[[[…]]]]` from overflowing the stack of the recursive validators later (a 500).
 */
export const MAX_JSON_DEPTH = 32;

/** A body Fastify read but could not use; rejected after auth so the caller still gets rate-limit headers. */
export class UnparsableBody {
  constructor(readonly reason: string) {}
}

/**
 * A body over BODY_LIMIT_BYTES, of which at most that much was read (the rest is never buffered). It is
 * refused with 413 after the guards, like every other unusable body: a caller without a valid token hears
 * 401, and one with a token gets the 413 with its X-RateLimit-* headers, counted.
 */
export class TooLargeBody extends UnparsableBody {
  constructor() {
    super('Request body is larger than 1 MiB');
  }
}

/** A body whose Content-Encoding this API does not decode: 415 after the guards. */
export class UndecodableBody extends UnparsableBody {}

/** The client went away before its body arrived: nothing to answer, and nothing to log as a fault. */
export class AbandonedBody extends UnparsableBody {
  constructor() {
    super('The request body was cut off');
  }
}

const DECODERS: Record<string, () => Transform> = {
  gzip: () => createGunzip(),
  'x-gzip': () => createGunzip(),
  deflate: () => createInflate(),
  br: () => createBrotliDecompress(),
};

/**
 * Reads a request body up to BODY_LIMIT_BYTES, decoding a gzip, deflate or br Content-Encoding with the same
 * limit on the decoded size (a small bomb is cut off at 1 MiB of output). A declared Content-Length over the
 * limit is refused without reading; a chunked body is cut off the moment it passes the limit (Node discards
 * the rest once answered). A client that hangs up mid-body yields an AbandonedBody, not an error.
 */
function readLimited(request: FastifyRequest, payload: NodeJS.ReadableStream): Promise<Buffer | UnparsableBody> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > BODY_LIMIT_BYTES) return Promise.resolve(new TooLargeBody());
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const makeDecoder = DECODERS[encoding];
  if (!makeDecoder && encoding !== 'identity' && encoding !== '') {
    payload.resume(); // not ours to read; let Node drain it
    return Promise.resolve(
      new UndecodableBody(`Content-Encoding ${JSON.stringify(encoding).slice(0, 40)} is not supported (use identity, gzip, deflate or br)`),
    );
  }
  const decoder = makeDecoder?.();
  const source: NodeJS.ReadableStream = decoder ? payload.pipe(decoder) : payload;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: Buffer | UnparsableBody) => {
      source.removeListener('data', onData);
      source.removeListener('end', onEnd);
      source.removeListener('error', onDecodeError);
      payload.removeListener('error', onPayloadError);
      if (decoder && outcome instanceof UnparsableBody) {
        payload.unpipe(decoder);
        decoder.destroy();
      }
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) return finish(new TooLargeBody());
      chunks.push(chunk);
    };
    const onEnd = () => finish(Buffer.concat(chunks));
    const onPayloadError = () => finish(new AbandonedBody());
    const onDecodeError = () => finish(new UnparsableBody(`Request body is not valid ${encoding} data`));
    source.on('data', onData);
    source.on('end', onEnd);
    if (decoder) source.on('error', onDecodeError);
    payload.on('error', onPayloadError);
  });
}

/** RFC 9110 media type (`type/subtype` plus parameters); anything else is no Content-Type at all. */
const MEDIA_TYPE = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+\s*(;.*)?$/;
const UNREADABLE_CONTENT_TYPE = 'application/x-unreadable-content-type';

/**
 * An HTML form post (application/x-www-form-urlencoded). Only routes marked @AcceptsForms() (the dashboard)
 * take it; for every API route it is just another body that is not JSON.
 */
export class FormBody extends UnparsableBody {
  constructor(readonly fields: URLSearchParams) {
    super('Content-Type must be application/json');
  }
}

/**
 * A JSON body with text no field can hold: a NUL character, which PostgreSQL refuses in text columns (a 500
 * otherwise) and no name, URL or selector needs. Answered with a 422 naming the fields, after auth.
 */
export class RejectedFields {
  constructor(readonly details: FieldError[]) {}
}

/** `steps[3].selector`-style path, as the validation errors name fields. */
function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

/** No request of this API has more than a few dozen fields; a body with more top-level keys is not parsed. */
export const MAX_PARSED_FIELDS = 1000;

/**
 * A JSON object body with more than MAX_PARSED_FIELDS top-level keys, kept as its key names instead of being
 * parsed: JSON.parse of 60,000 distinct keys alone takes ~70 ms and much memory, and every one of them is an
 * unknown field anyway. The validation pipe names them (422); `text` is kept for the odd body whose many keys
 * are all one known name repeated (JSON allows duplicates), which is then parsed after all.
 */
export class ManyFieldsBody {
  constructor(
    readonly names: string[],
    readonly text: string,
  ) {}

  /** Throws BadRequestError (400) for text that is not JSON or has prototype-poisoning keys, as parseJson answers. */
  parse(): unknown {
    let value: unknown;
    try {
      value = parseSecurely(this.text);
    } catch {
      throw new BadRequestError(NOT_JSON);
    }
    if (value instanceof UnparsableBody) throw new BadRequestError(value.reason);
    return screenJson(value, this.text);
  }
}

/** No object or array below the top level of a body is parsed with more entries than this (jsonShape). */
export const MAX_PARSED_ENTRIES = 1000;

/**
 * A JSON body with an object or array (below the top level, or a top-level array) of more than
 * MAX_PARSED_ENTRIES entries, found in its text and never parsed. The validation pipe names the field with its
 * DTO's bound (`capture_options.cookies must contain no more than 50 elements`): a 422.
 */
export class CrowdedBody {
  constructor(
    readonly field: string,
    readonly kind: 'fields' | 'items',
  ) {}

  /** The 422 when no DTO says more. */
  error(): ValidationFailedError {
    const field = this.field || 'body';
    return ValidationFailedError.of(field, `${field} must have at most ${MAX_PARSED_ENTRIES} ${this.kind}`);
  }
}

const NOT_JSON = 'Request body is not valid JSON';
export const PROTOTYPE_KEYS = 'Request body must not contain __proto__ or constructor.prototype keys';

/**
 * JSON.parse that refuses the keys Fastify's own JSON parser refuses (it uses secure-json-parse too, and was
 * replaced by ours): `__proto__`, and `constructor` holding a `prototype`. Parsed, such a key is an own
 * property and harmless here, but any later copy or merge (`Object.assign`, a spread into a prototype-less
 * check, a library's deep merge) would turn it into prototype pollution; no field of this API has either name.
 * Throws a SyntaxError for text that is not JSON.
 */
function parseSecurely(text: string): unknown {
  // secure-json-parse skips a leading byte order mark, which JSON.parse refused: still refused, answer unchanged.
  if (text.charCodeAt(0) === 0xfeff) throw new SyntaxError('byte order mark');
  // `safe` answers a poisoned body with null instead of the SyntaxError malformed JSON also throws, so the
  // two get their own messages; null is otherwise only the answer for the text `null` itself.
  const value: unknown = secureJson.parse(text, null, { protoAction: 'error', constructorAction: 'error', safe: true });
  if (value === null && text.trim() !== 'null') return new UnparsableBody(PROTOTYPE_KEYS);
  return value;
}

interface JsonShape {
  tooDeep: boolean;
  /** The top-level object's key names, when there are more than MAX_PARSED_FIELDS of them. */
  manyKeys: string[] | null;
  /** The first nested object with more than MAX_PARSED_ENTRIES keys, or array with more items, if any. */
  crowded?: { field: string; kind: 'fields' | 'items' };
}

/** One open `{` or `[` of the scan: its key count (objects) or item index (arrays), and its last key. */
interface Frame {
  object: boolean;
  count: number;
  keyStart: number;
  keyEnd: number;
}

/** `capture_options.headers` / `steps[0]`: the path of the innermost open container, from the scan's frames. */
function framePath(text: string, frames: Frame[]): string {
  let path = '';
  for (let d = 0; d < frames.length - 1; d++) {
    const f = frames[d];
    if (!f.object) path = childPath(path, f.count);
    else {
      const token = text.slice(f.keyStart, f.keyEnd + 1);
      path = childPath(path, token.includes('\\') ? String(JSON.parse(token)) : token.slice(1, -1));
    }
  }
  return path;
}

/**
 * Reads JSON text's shape in one pass over its characters, without parsing values: whether it nests deeper
 * than `limit` (no `[[[[…` is ever parsed, nor walked), how many keys its top-level object has — in valid
 * JSON a string that follows `{` or `,` inside an object is a key — and whether a nested object has more than
 * MAX_PARSED_ENTRIES keys or an array more items: no object or array of this API has a hundred, and JSON.parse
 * alone takes ~70 ms over 60,000 distinct keys or 25,000 small objects (issue 27: 60,000 keys inside
 * `capture_options`, 66,666 headers, 25,000 cookies), so such a body is never parsed.
 */
export function jsonShape(text: string, limit: number): JsonShape {
  const frames: Frame[] = [];
  let inString = false;
  let stringStart = 0;
  let keyExpected = false;
  const keySpans: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) {
        inString = false;
        if (keyExpected) {
          const frame = frames[frames.length - 1];
          frame.count++;
          frame.keyStart = stringStart;
          frame.keyEnd = i;
          if (frames.length === 1) keySpans.push(stringStart, i);
          else if (frame.count > MAX_PARSED_ENTRIES) return { tooDeep: false, manyKeys: null, crowded: { field: framePath(text, frames), kind: 'fields' } };
        }
        keyExpected = false;
      }
    } else if (c === 0x22) {
      inString = true;
      stringStart = i;
    } else if (c === 0x7b || c === 0x5b) {
      if (frames.length + 1 > limit) return { tooDeep: true, manyKeys: null };
      frames.push({ object: c === 0x7b, count: 0, keyStart: 0, keyEnd: 0 });
      keyExpected = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) frames.pop();
    else if (c === 0x2c) {
      const frame = frames[frames.length - 1];
      if (frame?.object) keyExpected = true;
      // The next item's index; past MAX_PARSED_ENTRIES items, no array of this API is that long.
      else if (frame && ++frame.count >= MAX_PARSED_ENTRIES)
        return { tooDeep: false, manyKeys: null, crowded: { field: framePath(text, frames), kind: 'items' } };
    }
  }
  if (keySpans.length / 2 <= MAX_PARSED_FIELDS) return { tooDeep: false, manyKeys: null };
  const names: string[] = [];
  for (let k = 0; k < keySpans.length; k += 2) {
    const token = text.slice(keySpans[k], keySpans[k + 1] + 1);
    names.push(token.includes('\\') ? String(JSON.parse(token)) : token.slice(1, -1));
  }
  return { tooDeep: false, manyKeys: names };
}

/** A UTF-16 surrogate without its other half: no character at all (JSON can spell one, `"a\\ud800b"`). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a text no field can hold, or null: a NUL, or a lone surrogate (not Unicode text). */
function badText(text: string): 'nul' | 'surrogate' | null {
  if (text.includes('\u0000')) return 'nul';
  return LONE_SURROGATE.test(text) ? 'surrogate' : null;
}

const VALUE_MESSAGES = { nul: 'must not contain NUL characters', surrogate: 'must be valid Unicode text (it holds a lone surrogate such as \\ud800)' };
const NAME_MESSAGES = { nul: 'Field names must not contain NUL characters', surrogate: 'Field names must be valid Unicode text (no lone surrogate)' };

/**
 * Every field (and field name) holding a NUL character or a lone surrogate, named by its path; a walk without
 * recursion. PostgreSQL refuses NUL in text (a 500 otherwise); a lone surrogate would be stored as something no
 * client can read back as the text sent (UTF-8 has no spelling for it). Exported for query strings (validation.ts).
 */
export function fieldsWithBadText(value: unknown): FieldError[] {
  const bad: FieldError[] = [];
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      const problem = badText(item.value);
      if (problem) bad.push({ field: item.path || 'body', message: `${item.path || 'body'} ${VALUE_MESSAGES[problem]}` });
      continue;
    }
    if (item.value === null || typeof item.value !== 'object') continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(item.value) ? item.value.map((v, i) => [i, v]) : Object.entries(item.value);
    // Pushed last-first so fields come out in document order.
    for (const [key, child] of entries.reverse()) {
      const path = childPath(item.path, key);
      const problem = typeof key === 'string' ? badText(key) : null;
      if (problem) bad.push({ field: path, message: NAME_MESSAGES[problem] });
      stack.push({ value: child, path });
    }
  }
  return bad;
}

/** A `\uXXXX` escape of a NUL or of a surrogate (half of a pair, or alone): the only way JSON text spells either. */
const SUSPECT_ESCAPE = /\\u(0000|[dD][89a-fA-F])/;

/**
 * Checks a parsed JSON body for NUL characters and lone surrogates (422 naming each field). `text` is the JSON it
 * was parsed from: JSON can only spell either as an escape (`\u0000`, `\ud800`; raw bytes of a surrogate are not
 * UTF-8 and decode as U+FFFD), so a text without one skips the walk that names fields.
 */
export function screenJson(value: unknown, text: string): unknown {
  if (!SUSPECT_ESCAPE.test(text)) return value;
  const bad = fieldsWithBadText(value);
  return bad.length > 0 ? new RejectedFields(bad) : value;
}

const ACCEPTS_FORMS = 'acceptsForms';
export const AcceptsForms = (): ClassDecorator & MethodDecorator => SetMetadata(ACCEPTS_FORMS, true);

const IGNORES_BODY = 'ignoresBody';
/**
 * A route whose answer does not depend on the body at all (the unknown route: 404 whatever was sent), so no
 * body verdict (400, 413, 422…) comes before it. A body cut off unread still closes the connection.
 */
export const IgnoresBody = (): ClassDecorator & MethodDecorator => SetMetadata(IGNORES_BODY, true);

/**
 * Our own parsers instead of Fastify's: an empty JSON body (curl -X POST -H 'Content-Type: application/json')
 * is simply "no body", and malformed JSON, a foreign content type or a body over 1 MiB becomes a 400/413
 * raised *after* the auth and rate-limit guards, so such requests are counted and answered with the usual
 * headers. Bodies are read up to the limit and never buffered beyond it (readLimited).
 */
export function registerBodyParsers(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  // Fastify answers a Content-Type it cannot parse (`application/json, text/plain`) with its own 415 before
  // any guard; renamed here, such a body reaches the parser below and is refused like any foreign type.
  fastify.addHook('onRequest', (request, _reply, done) => {
    const type = request.headers['content-type'];
    if (type !== undefined && !MEDIA_TYPE.test(type.trim())) request.headers['content-type'] = UNREADABLE_CONTENT_TYPE;
    done();
  });
  /** A parser of the body's text (or bytes): the limit applied first, the parse only to what fits. */
  const limited =
    (parse: (body: Buffer) => unknown) => (request: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: unknown) => void) => {
      void readLimited(request, payload).then((body) => done(null, body instanceof UnparsableBody ? body : parse(body)));
    };
  fastify.addContentTypeParser(/^application\/([\w.+-]+\+)?json/i, limited(parseJson));
  fastify.addContentTypeParser('application/x-www-form-urlencoded', limited(parseForm));
  fastify.addContentTypeParser(
    '*',
    limited((body) => (body.length === 0 ? undefined : new UnparsableBody('Content-Type must be application/json'))),
  );
}

/**
 * A JSON body: undefined when empty, an UnparsableBody (400) when it nests too deep, is not JSON or carries
 * prototype-poisoning keys, a ManyFieldsBody when it has too many fields to parse, else the parsed value
 * (or RejectedFields when text holds a NUL). Exported for its spec.
 */
export function parseJson(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  // Both checks read the text before any parse: a too-deep or many-keyed body is never parsed at all.
  const shape = jsonShape(text, MAX_JSON_DEPTH);
  if (shape.tooDeep) return new UnparsableBody(`Request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  if (shape.manyKeys) return new ManyFieldsBody(shape.manyKeys, text);
  if (shape.crowded) return new CrowdedBody(shape.crowded.field, shape.crowded.kind);
  let value: unknown;
  try {
    value = parseSecurely(text);
  } catch {
    return new UnparsableBody(NOT_JSON);
  }
  return value instanceof UnparsableBody ? value : screenJson(value, text);
}

function parseForm(bytes: Buffer): UnparsableBody {
  const fields = new URLSearchParams(bytes.toString('utf8'));
  // Same reason as for JSON: no form field takes a NUL, and PostgreSQL would refuse it with a 500.
  if ([...fields].some(([k, v]) => k.includes('\u0000') || v.includes('\u0000'))) return new UnparsableBody('Form fields must not contain NUL characters');
  return new FormBody(fields);
}

const routesTakingBodies = new WeakMap<object, boolean>();

/** Whether the route's handler declares a @Body() parameter (read once per handler from Nest's route metadata). */
function takesBody(context: ExecutionContext): boolean {
  const handler = context.getHandler();
  let takes = routesTakingBodies.get(handler);
  if (takes === undefined) {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
    takes = Object.keys(args).some((key) => key.split(':')[0] === String(RouteParamtypes.BODY));
    routesTakingBodies.set(handler, takes);
  }
  return takes;
}

/**
 * A route without a body (run a scenario, delete) refuses one that says something, as a body with unknown
 * fields is refused anywhere: `{"a": 1}` must not start a run as if it meant nothing. `{}` is no body.
 */
function refuseBodyNotTaken(body: unknown): void {
  if (body instanceof CrowdedBody) throw body.error();
  if (body instanceof ManyFieldsBody) throw cappedValidationError(body.names.slice(0, MAX_DETAILS).map(notAllowed), body.names.length);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw ValidationFailedError.of('body', 'This request takes no body');
  const keys = Object.keys(body);
  if (keys.length > 0) throw cappedValidationError(keys.slice(0, MAX_DETAILS).map(notAllowed), keys.length);
}

/**
 * What the body parsers left for the route to refuse: too large (413, closing the connection), an encoding we
 * cannot read (415), not JSON (400), fields refused while parsing (422), or fields on a route that takes none.
 */
function refuseUnusableBody(context: ExecutionContext, acceptsForms: boolean): void {
  const body = context.switchToHttp().getRequest<{ body?: unknown }>().body;
  if (body === undefined) return;
  // Routes that take forms (the dashboard) read their body themselves, whatever it is: none of the API's rules here.
  const formsWelcome = body instanceof FormBody && acceptsForms;
  if (body instanceof TooLargeBody) {
    // The rest of the upload was never read: close the connection rather than let Node drain it to keep it alive.
    context.switchToHttp().getResponse<{ header(name: string, value: string): unknown }>().header('Connection', 'close');
    throw new PayloadTooLargeError();
  }
  if (body instanceof UndecodableBody) throw new UnsupportedMediaTypeError(body.reason);
  if (body instanceof UnparsableBody && !formsWelcome) throw new BadRequestError(body.reason);
  if (body instanceof RejectedFields) throw cappedValidationError(body.details);
  if (!acceptsForms && !(body instanceof UnparsableBody) && !takesBody(context)) refuseBodyNotTaken(body);
}

/**
 * API routes: the body's verdict, after authentication, the plan check and the rate limit (the last global
 * guard), so a client without a token learns that first and a refused body is still counted.
 *
 * A guard and not an interceptor on purpose: with even one global interceptor, Nest runs every request through
 * an rxjs pipeline and two AsyncResource.bind() calls (each defining deprecated accessors), which cost more CPU
 * than authenticating the request (docs/benchmark.md, "Per-request cost").
 */
@Injectable()
export class RequestBodyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    // Dashboard routes check their body in FormBodyGuard, after their own session guards.
    if (routeFlag(this.reflector, context, ACCEPTS_FORMS) || routeFlag(this.reflector, context, IGNORES_BODY)) return true;
    refuseUnusableBody(context, false);
    return true;
  }
}

/** Routes marked @AcceptsForms() (the dashboard): the same verdict, run after the controller's own guards. */
@Injectable()
export class FormBodyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    refuseUnusableBody(context, true);
    return true;
  }
}
