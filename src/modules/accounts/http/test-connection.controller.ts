import { Controller, Get, Req } from '@nestjs/common';
import { CurrentAccount } from '../../../shared/http/decorators';
import type { RequestWithQuota } from '../../rate-limiting/http/rate-limit.guard';
import { Account } from '../domain/account';

/** Spec, Utility: Test Connection echoes the caller and the same three numbers as the X-RateLimit-* headers. */
@Controller()
export class TestConnectionController {
  @Get('test')
  test(@CurrentAccount() account: Account, @Req() request: RequestWithQuota) {
    const quota = request.rateLimit;
    return {
      success: true,
      message: 'API connection successful',
      user: { id: account.id, name: account.name, email: account.email, subscription_tier: account.plan },
      rate_limit: { limit: quota?.limit ?? 0, remaining: quota?.remaining ?? 0, reset: quota?.reset ?? 0 },
    };
  }
}
