import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { parseProxyUrl, PROXY_URL_RULE } from '../../../shared/domain/proxy-url';
import { BodyRequired, OptionalField, Satisfies } from '../../../shared/http/validation';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { maskedProxies, PROXY_POOL_LIMITS, ROTATIONS, type ProxyPoolProps, type Rotation } from '../domain/proxy-pool';

const PROXIES = {
  type: 'array',
  items: { type: 'string', example: 'http://user:secret@proxy-1.example.com:8080' },
  minItems: 1,
  maxItems: PROXY_POOL_LIMITS.proxies,
  description:
    'http://, https:// or socks5:// URLs, credentials allowed. Answers show them masked (http://********@host:port); one sent back masked keeps the stored URL.',
} as const;

/** Proxy URLs, or a stored one's masked form (as GET shows it). */
function isProxyList(v: unknown): boolean {
  return Array.isArray(v) && v.every((p) => typeof p === 'string' && (parseProxyUrl(p) !== null || /^(http|https|socks5):\/\/\*{8}@/.test(p)));
}

@ApiSchema({ name: 'ProxyPoolInput', description: 'A new proxy pool' })
@BodyRequired()
export class ProxyPoolDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: PROXY_POOL_LIMITS.nameMax, example: 'residential' })
  @IsString()
  @MinLength(1)
  @MaxLength(PROXY_POOL_LIMITS.nameMax)
  name!: string;

  @ApiProperty(PROXIES)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PROXY_POOL_LIMITS.proxies)
  @Satisfies('proxyUrls', isProxyList, `each ${PROXY_URL_RULE}`)
  proxies!: string[];

  @ApiPropertyOptional({ enum: ROTATIONS, default: 'round_robin', description: 'round_robin, random, or sticky (one website, one proxy)' })
  @OptionalField()
  @IsIn(ROTATIONS)
  rotation?: Rotation;
}

/** PUT: partial, like every PUT of the API: a field left out keeps its value. */
@ApiSchema({ name: 'ProxyPoolUpdate', description: 'A proxy pool’s fields to change; those left out are kept' })
@BodyRequired()
export class UpdateProxyPoolDto {
  @ApiPropertyOptional({ type: 'string', minLength: 1, maxLength: PROXY_POOL_LIMITS.nameMax, example: 'residential' })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(PROXY_POOL_LIMITS.nameMax)
  name?: string;

  @ApiPropertyOptional(PROXIES)
  @OptionalField()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PROXY_POOL_LIMITS.proxies)
  @Satisfies('proxyUrls', isProxyList, `each ${PROXY_URL_RULE}`)
  proxies?: string[];

  @ApiPropertyOptional({ enum: ROTATIONS, description: 'round_robin, random, or sticky (one website, one proxy)' })
  @OptionalField()
  @IsIn(ROTATIONS)
  rotation?: Rotation;
}

@ApiSchema({ name: 'ProxyPool', description: 'A proxy pool, its proxies masked' })
export class ProxyPoolView {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty({ type: 'string', example: 'residential' }) name!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', example: 'http://********@proxy-1.example.com:8080' } }) proxies!: string[];
  @ApiProperty({ enum: ROTATIONS }) rotation!: Rotation;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty(TIMESTAMP) updated_at!: string;
}

export function proxyPoolView(pool: ProxyPoolProps): ProxyPoolView {
  return {
    id: pool.id,
    name: pool.name,
    proxies: maskedProxies(pool),
    rotation: pool.rotation,
    created_at: pool.createdAt.toISOString(),
    updated_at: pool.updatedAt.toISOString(),
  };
}
