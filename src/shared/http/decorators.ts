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

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- Nest's handler and controller references
type Target = Function;
const flagsByController = new WeakMap<Target, WeakMap<Target, Map<string, boolean>>>();

/**
 * Whether the route is marked with the boolean metadata `key` (@Public, @AuthIfPresented, @AcceptsForms, …; a
 * handler's own mark overrides its controller's, as Reflector.getAllAndOverride reads them), read once per route:
 * the global guards ask on every request, and each lookup walks the metadata of the handler and of its class
 * (~0.45 µs, six a request). Decorators set metadata when the classes are defined, so it never changes afterwards.
 */
export function routeFlag(reflector: Reflector, context: ExecutionContext, key: string): boolean {
  const controller = context.getClass();
  const handler = context.getHandler();
  let byHandler = flagsByController.get(controller);
  if (!byHandler) flagsByController.set(controller, (byHandler = new WeakMap()));
  let flags = byHandler.get(handler);
  if (!flags) byHandler.set(handler, (flags = new Map<string, boolean>()));
  let flag = flags.get(key);
  if (flag === undefined) {
    flag = reflector.getAllAndOverride<boolean>(key, [handler, controller]) === true;
    flags.set(key, flag);
  }
  return flag;
}

/** The account the auth guard resolved from the bearer token. */
export const CurrentAccount = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  return ctx.switchToHttp().getRequest<{ account?: unknown }>().account;
});
