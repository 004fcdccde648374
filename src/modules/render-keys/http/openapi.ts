import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { RENDER_KEY_LIMITS } from '../domain/render-key';

export const RENDER_KEY_NAME = {
  type: 'string',
  maxLength: RENDER_KEY_LIMITS.nameMax,
  nullable: true,
  example: 'Blog thumbnails',
  description: 'A label for you (optional)',
} as const;

@ApiSchema({ name: 'RenderKey', description: 'A key that signs `/render` links (its secret is never shown again)' })
export class RenderKeyView {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty(RENDER_KEY_NAME) name!: string | null;
  @ApiProperty({
    type: 'string',
    pattern: '^rk_[0-9a-f]{24}$',
    example: 'rk_0123456789abcdef01234567',
    description: 'Public: put it in a link’s query as `access_key=…`',
  })
  access_key!: string;
  @ApiProperty(TIMESTAMP) created_at!: string;
}

@ApiSchema({ name: 'RenderKeyWithSecret', description: 'The new render key with its secret, shown this once' })
export class RenderKeyWithSecretView extends RenderKeyView {
  @ApiProperty({
    type: 'string',
    pattern: '^rks_[0-9a-f]{64}$',
    example: 'rks_00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',
    description:
      'The HMAC-SHA256 key (the whole string, as UTF-8). Sign a link’s query as sent: `signature = hex(HMAC-SHA256(secret, query))`, appended last as `&signature=…`. Shown only in this answer',
  })
  secret!: string;
}
