import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { CurrentAccount } from '../../../shared/http/decorators';
import { ApiBearerController, ApiSuccessResponse } from '../../../shared/http/openapi';
import type { RequestWithQuota } from '../../rate-limiting/http/rate-limit.guard';
import { Account } from '../domain/account';
import { TestConnectionResponse } from './openapi';

/** Spec, Utility: Test Connection echoes the caller and the same three numbers as the X-RateLimit-* headers. */
@ApiBearerController('Utility')
@Controller()
export class TestConnectionController {
  @ApiOperation({ summary: 'Test Connection', description: 'The caller and the rate-limit numbers of this request (the same as its X-RateLimit-* headers).' })
  @ApiSuccessResponse(TestConnectionResponse, { description: 'The token works' })
  @Get('test')
  test(@CurrentAccount() account: Account, @Req() request: RequestWithQuota): TestConnectionResponse {
    const quota = request.rateLimit;
    return {
      success: true,
      message: 'API connection successful',
      user: { id: account.id, name: account.name, email: account.email, subscription_tier: account.plan },
      rate_limit: { limit: quota?.limit ?? 0, remaining: quota?.remaining ?? 0, reset: quota?.reset ?? 0 },
    };
  }
}
