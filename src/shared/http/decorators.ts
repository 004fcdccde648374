import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

export const IS_PUBLIC = 'isPublic';

/** Opts a route out of the bearer-token guards (Health Check; the dashboard, which has its own sign-in). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

export const AUTH_IF_PRESENTED = 'authIfPresented';

/**
 * A route anyone may reach, but a caller who presents `Authorization` is authenticated and counted as on any
 * API route (the catch-all for unknown routes: a client with a token gets its X-RateLimit-* headers on the 404,
 * and a wrong token is a counted 401, so unknown paths are no way around the per-address failure limit).
 */
export const AuthIfPresented = (): MethodDecorator & ClassDecorator => SetMetadata(AUTH_IF_PRESENTED, true);

/** What a route says about its callers (@Public, @AuthIfPresented; a handler's own overrides its controller's). */
export interface RouteAccess {
  isPublic: boolean;
  authIfPresented: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- Nest's handler and controller references
type Target = Function;
const accessByController = new WeakMap<Target, WeakMap<Target, RouteAccess>>();

/**
 * The route's RouteAccess, read from its metadata once: the three API guards ask on every request, and each
 * `getAllAndOverride` walks the metadata of the handler and its class (~0.45 µs a lookup, four a request).
 * Decorators set metadata when the classes are defined, so it never changes after the first request.
 */
export function routeAccess(reflector: Reflector, context: ExecutionContext): RouteAccess {
  const controller = context.getClass();
  const handler = context.getHandler();
  let byHandler = accessByController.get(controller);
  if (!byHandler) accessByController.set(controller, (byHandler = new WeakMap()));
  let access = byHandler.get(handler);
  if (!access) {
    const targets = [handler, controller];
    access = {
      isPublic: reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true,
      authIfPresented: reflector.getAllAndOverride<boolean>(AUTH_IF_PRESENTED, targets) === true,
    };
    byHandler.set(handler, access);
  }
  return access;
}

/** The account the auth guard resolved from the bearer token. */
export const CurrentAccount = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  return ctx.switchToHttp().getRequest<{ account?: unknown }>().account;
});
