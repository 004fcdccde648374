import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';

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

/** The account the auth guard resolved from the bearer token. */
export const CurrentAccount = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  return ctx.switchToHttp().getRequest<{ account?: unknown }>().account;
});
