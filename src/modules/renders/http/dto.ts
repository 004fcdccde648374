import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsString, Max, MaxLength, Min, MinLength, registerDecorator } from 'class-validator';
import { OUTPUT_FORMATS } from '../../../shared/domain/output-format';
import { parseRenderFormats } from '../domain/render-formats';
import { TakeScreenshotDto } from '../../../shared/http/capture-option-fields';
import { OptionalField } from '../../../shared/http/validation';
import { MAX_URL_LENGTH } from '../../../shared/url-policy/url-policy';
import { CACHE_KEY_MAX, CACHE_TTL, JSON_LINK_MIN_SECONDS } from '../domain/render';

export const RESPONSE_TYPES = ['image', 'json'] as const;

/** `formats`: judged by parseRenderFormats, its problem the message. */
function IsRenderFormats(): PropertyDecorator {
  const problem = (value: unknown): string | null => {
    const read = parseRenderFormats(value);
    return 'problem' in read ? read.problem : null;
  };
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isRenderFormats',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: ({ property, value }) => `${property} ${problem(value) ?? ''}` },
      validator: { validate: (value: unknown) => problem(value) === null },
    });
}

/**
 * The OpenAPI schemas of the render's own fields (not capture options), used by the body's schema
 * (RenderRequest) and by GET /render's query parameters alike.
 */
export const RENDER_FIELD_SCHEMAS = {
  url: {
    type: 'string',
    minLength: 1,
    maxLength: MAX_URL_LENGTH,
    example: 'https://example.com/',
    description: 'The page (http or https; the URL policy applies)',
  },
  response_type: {
    enum: [...RESPONSE_TYPES],
    default: 'image',
    description: `\`image\`: the file's bytes. \`json\`: \`{success, data: {id, url, expires_at, …}}\` with \`url\` a signed link to the file, kept at least ${JSON_LINK_MIN_SECONDS} s`,
  },
  cache_ttl: {
    type: 'integer',
    minimum: CACHE_TTL.min,
    maximum: CACHE_TTL.max,
    default: 0,
    description: 'Seconds an identical render may be answered from the cache (0: always a new capture; identical renders in flight still share one)',
  },
  cache_key: {
    type: 'string',
    minLength: 1,
    maxLength: CACHE_KEY_MAX,
    description: 'Any string (no NUL): renders with different keys never share an entry',
  },
  fresh: { type: 'boolean', default: false, description: 'Bypass the cache: a new capture, which becomes the entry' },
} as const;
const R = RENDER_FIELD_SCHEMAS;

/**
 * GET /render's query and POST /render's body: every option of Take Screenshot (the capture-option table's rows
 * with the `render` scope, inherited with their rules and documentation), the URL, and what only a render asks
 * (how to answer, the cache). These are not capture options: they change no picture, so they are not table rows.
 */
@ApiSchema({ name: 'RenderRequest', description: 'The page to capture, every Take Screenshot option, and the cache settings.' })
export class RenderDto extends TakeScreenshotDto {
  @ApiProperty(R.url)
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_URL_LENGTH)
  url!: string;

  @ApiPropertyOptional(R.response_type)
  @OptionalField()
  @IsIn([...RESPONSE_TYPES])
  response_type?: (typeof RESPONSE_TYPES)[number];

  @ApiPropertyOptional(R.cache_ttl)
  @OptionalField()
  @IsInt()
  @Min(CACHE_TTL.min)
  @Max(CACHE_TTL.max)
  cache_ttl?: number;

  @ApiPropertyOptional(R.cache_key)
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(CACHE_KEY_MAX)
  cache_key?: string;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', example: 'png,markdown,metadata' },
      { type: 'array', items: { enum: [...OUTPUT_FORMATS] } },
    ],
    description:
      'response_type=json only, instead of `format`: several outputs of one page visit. At most one of png, jpeg, webp, pdf, webm, gif (the file `url` links to; else the first); the content formats (html, markdown, text, metadata) are inlined in `data.contents`. See docs/outputs.md.',
  })
  @OptionalField()
  @IsRenderFormats()
  formats?: string | string[];

  @ApiPropertyOptional(R.fresh)
  @OptionalField()
  @IsBoolean()
  fresh?: boolean;
}
