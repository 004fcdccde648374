import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { Observable } from 'rxjs';
import { BadRequestError } from '../domain/domain-error';

export const BODY_LIMIT_BYTES = 1024 * 1024;

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
    try {
      done(null, JSON.parse(text));
    } catch {
      done(null, new UnparsableBody('Request body is not valid JSON'));
    }
  });
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    done(null, new FormBody(new URLSearchParams(String(body))));
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
    return next.handle();
  }
}
