import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PLAN_NAMES, PlanName } from '../domain/plan';

export class TestConnectionUser {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty({ example: 'Ada Lovelace' }) name!: string;
  @ApiProperty({ format: 'email', example: 'ada@example.com' }) email!: string;
  @ApiProperty({ enum: PLAN_NAMES.filter((plan) => plan !== 'free'), description: 'The plan (only paid plans reach the API)' }) subscription_tier!: PlanName;
}

export class TestConnectionRateLimit {
  @ApiProperty({ type: 'integer', description: 'Same as X-RateLimit-Limit', example: 20 }) limit!: number;
  @ApiProperty({ type: 'integer', description: 'Same as X-RateLimit-Remaining', example: 19 }) remaining!: number;
  @ApiProperty({ type: 'integer', description: 'Same as X-RateLimit-Reset: Unix timestamp in seconds', example: 1795417260 }) reset!: number;
}

@ApiSchema({ name: 'TestConnection' })
export class TestConnectionResponse {
  @ApiProperty({ type: 'boolean', enum: [true] }) success!: true;
  @ApiProperty({ example: 'API connection successful' }) message!: string;
  @ApiProperty() user!: TestConnectionUser;
  @ApiProperty() rate_limit!: TestConnectionRateLimit;
}
