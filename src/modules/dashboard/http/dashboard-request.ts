import type { FastifyRequest } from 'fastify';
import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Account } from '../../accounts/domain/account';
import type { SessionProps } from '../../accounts/domain/session';
import { FormBody } from '../../../shared/http/body-parsing';

/** What the session guard attaches to a signed-in dashboard request. */
export interface DashboardViewer {
  account: Account;
  session: SessionProps;
}

export type DashboardRequest = FastifyRequest & { viewer?: DashboardViewer };

/** The signed-in account and session (routes behind DashboardSessionGuard only). */
export const Viewer = createParamDecorator((_: unknown, ctx: ExecutionContext): DashboardViewer => {
  return ctx.switchToHttp().getRequest<DashboardRequest>().viewer as DashboardViewer;
});

/** Fields of a posted form (empty when the body was not a form). */
export function formFields(request: FastifyRequest): URLSearchParams {
  return request.body instanceof FormBody ? request.body.fields : new URLSearchParams();
}
