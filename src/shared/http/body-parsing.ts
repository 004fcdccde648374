import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';
import { BadRequestError, FieldError, PayloadTooLargeError, ValidationFailedError } from '../domain/domain-error';

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

/**
 * Reads a request body up to BODY_LIMIT_BYTES. A declared Content-Length over the limit is refused without
 * reading; a chunked body is cut off the moment it passes the limit (Node discards the rest once answered).
 */
function readLimited(request: FastifyRequest, payload: NodeJS.ReadableStream): Promise<Buffer | TooLargeBody> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > BODY_LIMIT_BYTES) return Promise.resolve(new TooLargeBody());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: () => void) => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) return finish(() => resolve(new TooLargeBody()));
      chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks)));
    const onError = (err: Error) => finish(() => reject(err));
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
  });
}

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

/**
 * Checks a parsed JSON value without recursion (so the check itself cannot overflow): too deep → 400,
 * NUL characters → 422 naming each field. Returns the value itself when it is fine.
 */
export function screenJson(value: unknown): unknown {
  const nul: FieldError[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      if (item.value.includes('\u0000')) nul.push({ field: item.path || 'body', message: `${item.path || 'body'} must not contain NUL characters` });
      continue;
    }
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth >= MAX_JSON_DEPTH) return new UnparsableBody(`Request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    const entries: Array<[string | number, unknown]> = Array.isArray(item.value) ? item.value.map((v, i) => [i, v]) : Object.entries(item.value);
    // Pushed last-first so fields come out in document order.
    for (const [key, child] of entries.reverse()) {
      const path = childPath(item.path, key);
      if (typeof key === 'string' && key.includes('\u0000')) nul.push({ field: path, message: 'Field names must not contain NUL characters' });
      stack.push({ value: child, path, depth: item.depth + 1 });
    }
  }
  return nul.length > 0 ? new RejectedFields(nul) : value;
}

const ACCEPTS_FORMS = 'acceptsForms';
export const AcceptsForms = (): ClassDecorator & MethodDecorator => SetMetadata(ACCEPTS_FORMS, true);

/**
 * Our own parsers instead of Fastify's: an empty JSON body (curl -X POST -H 'Content-Type: application/json')
 * is simply "no body", and malformed JSON, a foreign content type or a body over 1 MiB becomes a 400/413
 * raised *after* the auth and rate-limit guards, so such requests are counted and answered with the usual
 * headers. Bodies are read up to the limit and never buffered beyond it (readLimited).
 */
export function registerBodyParsers(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  /** A parser of the body's text (or bytes): the limit applied first, the parse only to what fits. */
  const limited = (parse: (body: Buffer) => unknown) => (request: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: unknown) => void) => {
    readLimited(request, payload).then((body) => done(null, body instanceof TooLargeBody ? body : parse(body)), (err: Error) => done(err));
  };
  fastify.addContentTypeParser(/^application\/([\w.+-]+\+)?json/i, limited(parseJson));
  fastify.addContentTypeParser('application/x-www-form-urlencoded', limited(parseForm));
  fastify.addContentTypeParser('*', limited((body) => (body.length === 0 ? undefined : new UnparsableBody('Content-Type must be application/json'))));
}

function parseJson(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new UnparsableBody('Request body is not valid JSON');
  }
  return screenJson(parsed);
}

function parseForm(bytes: Buffer): UnparsableBody {
  const fields = new URLSearchParams(bytes.toString('utf8'));
  // Same reason as for JSON: no form field takes a NUL, and PostgreSQL would refuse it with a 500.
  if ([...fields].some(([k, v]) => k.includes('\u0000') || v.includes('\u0000'))) return new UnparsableBody('Form fields must not contain NUL characters');
  return new FormBody(fields);
}

@Injectable()
export class RejectUnparsableBodyInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const body = context.switchToHttp().getRequest<{ body?: unknown }>().body;
    const formsWelcome = body instanceof FormBody && this.reflector.getAllAndOverride<boolean>(ACCEPTS_FORMS, [context.getHandler(), context.getClass()]);
    if (body instanceof TooLargeBody) {
      // The rest of the upload was never read: close the connection rather than let Node drain it to keep it alive.
      context.switchToHttp().getResponse<{ header(name: string, value: string): unknown }>().header('Connection', 'close');
      throw new PayloadTooLargeError();
    }
    if (body instanceof UnparsableBody && !formsWelcome) throw new BadRequestError(body.reason);
    if (body instanceof RejectedFields) throw new ValidationFailedError(body.details);
    return next.handle();
  }
}
