import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthenticatedRequest } from '../../accounts/http/auth.guards';
import { assertBulkDownloadAllowed } from '../application/screenshots.service';

/**
 * The plan rule of Bulk Download, checked before the body is validated: a Starter account sending a bad
 * body learns that the feature needs an upgrade (403), not that fixing the body would help (422). Runs
 * after the global guards, so the 403 is counted and carries the X-RateLimit-* headers.
 */
@Injectable()
export class BulkDownloadPlanGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const account = context.switchToHttp().getRequest<AuthenticatedRequest>().account;
    if (account) assertBulkDownloadAllowed(account);
    return true;
  }
}
