import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { Observable } from 'rxjs';
import { BadRequestError, FieldError, ValidationFailedError } from '../domain/domain-error';

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
 * is simply "no body", and malformed JSON or a foreign content type becomes a 400 raised *after* the
 * auth and rate-limit guards, so such requests are counted and answered with the usual headers.
 * Bodies over 1 MiB are still cut off by Fastify while streaming (413) without being buffered.
 */
export function registerBodyParsers(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(/^application\/([\w.+-]+\+)?json/i, { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(null, new UnparsableBody('Request body is not valid JSON'));
    }
    done(null, screenJson(parsed));
  });
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    const fields = new URLSearchParams(String(body));
    // Same reason as for JSON: no form field takes a NUL, and PostgreSQL would refuse it with a 500.
    if ([...fields].some(([k, v]) => k.includes('\u0000') || v.includes('\u0000'))) return done(null, new UnparsableBody('Form fields must not contain NUL characters'));
    done(null, new FormBody(fields));
  });
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    done(null, (body as Buffer).length === 0 ? undefined : new UnparsableBody('Content-Type must be application/json'));
  });
}

@Injectable()
export class RejectUnparsableBodyInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const body = context.switchToHttp().getRequest<{ body?: unknown }>().body;
    const formsWelcome = body instanceof FormBody && this.reflector.getAllAndOverride<boolean>(ACCEPTS_FORMS, [context.getHandler(), context.getClass()]);
    if (body instanceof UnparsableBody && !formsWelcome) throw new BadRequestError(body.reason);
    if (body instanceof RejectedFields) throw new ValidationFailedError(body.details);
    return next.handle();
  }
}
