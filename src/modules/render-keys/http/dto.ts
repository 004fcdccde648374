import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength, ValidateIf } from 'class-validator';
import { OptionalField, SingleLineName } from '../../../shared/http/validation';
import { RENDER_KEY_LIMITS, RenderKeyProps } from '../domain/render-key';
import { RENDER_KEY_NAME, RenderKeyView } from './openapi';

export class CreateRenderKeyDto {
  @ApiPropertyOptional(RENDER_KEY_NAME)
  @OptionalField()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(RENDER_KEY_LIMITS.nameMax)
  @SingleLineName()
  name?: string | null;
}

/** What GET shows: never the secret. */
export function renderKeyView(k: RenderKeyProps): RenderKeyView {
  return { id: k.id, name: k.name, access_key: k.accessKey, created_at: k.createdAt.toISOString() };
}
