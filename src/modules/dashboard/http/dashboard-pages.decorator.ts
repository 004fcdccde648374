import { applyDecorators, Controller, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AcceptsForms, FormBodyGuard } from '../../../shared/http/body-parsing';
import { Public } from '../../../shared/http/decorators';
import { DashboardErrorFilter } from './dashboard-error.filter';
import { DashboardRequestGuard, DashboardSessionGuard } from './guards';

/**
 * A dashboard controller: not an API route (no bearer token, no API rate limit, not in the OpenAPI
 * document), takes HTML form posts, has its own per-address limit and renders its errors as pages.
 */
export function DashboardController(path = 'dashboard', { signedIn = true } = {}): ClassDecorator {
  // The body is judged last, as on API routes: after the per-address limit and the session.
  const guards = signedIn ? [DashboardRequestGuard, DashboardSessionGuard, FormBodyGuard] : [DashboardRequestGuard, FormBodyGuard];
  return applyDecorators(Controller(path), Public(), AcceptsForms(), ApiExcludeController(), UseGuards(...guards), UseFilters(DashboardErrorFilter));
}
