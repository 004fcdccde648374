import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi';

@ApiSchema({ name: 'Health' })
export class HealthResponse {
  @ApiProperty({ enum: ['ok', 'degraded'], description: '`degraded` (with 503) when the database or the queue is unreachable' }) status!: 'ok' | 'degraded';
  @ApiProperty(TIMESTAMP) timestamp!: string;
  @ApiProperty({ example: '1.0.0', description: 'The service’s version' }) api_version!: string;
}
