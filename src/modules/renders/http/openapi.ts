import { FORMAT_FILES } from '../../../shared/domain/output-format';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi/schemas';
import { CAPTURE_WARNING_CODES } from '../../../shared/domain/capture-warnings';

@ApiSchema({ name: 'RenderCaptureWarning', description: 'One of the capture report’s warnings' })
export class RenderCaptureWarning {
  @ApiProperty({ enum: [...CAPTURE_WARNING_CODES] }) code!: string;
  @ApiProperty({ description: 'In words for people' }) detail!: string;
}

@ApiSchema({ name: 'RenderCaptureReport', description: 'The capture report, as a Screenshot’s `capture`' })
export class RenderCaptureReport {
  @ApiProperty({ type: 'integer', nullable: true }) http_status!: number | null;
  @ApiProperty() final_url!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ type: 'integer' }) page_height!: number;
  @ApiProperty() truncated!: boolean;
  @ApiProperty() settled!: boolean;
  @ApiProperty({ type: 'integer' }) waited_ms!: number;
  @ApiProperty({ type: [String] }) pending!: string[];
  @ApiProperty({ type: [RenderCaptureWarning], description: 'As a Screenshot’s `capture.warnings`; [] for a clean capture' })
  warnings!: RenderCaptureWarning[];
}

@ApiSchema({ name: 'Render', description: 'A render answered as json (`response_type=json`)' })
export class RenderView {
  @ApiProperty({ format: 'uuid', description: 'The render (and its job)' }) id!: string;
  @ApiProperty({
    format: 'uri',
    description: 'A signed link to the stored file (`/renders/{id}?expires=…&signature=…`): no token needed, valid until `expires_at`',
  })
  url!: string;
  @ApiProperty({ ...TIMESTAMP, description: 'Until when the link works and the file is kept (at least an hour after the answer)' }) expires_at!: string;
  @ApiProperty({ enum: Object.values(FORMAT_FILES).map((f) => f.mimeType) }) mime_type!: string;
  @ApiProperty({ type: 'integer' }) width!: number;
  @ApiProperty({ type: 'integer' }) height!: number;
  @ApiPropertyOptional({ type: RenderCaptureReport, nullable: true }) capture!: RenderCaptureReport | null;
  @ApiPropertyOptional({
    type: 'object',
    properties: {
      html: { type: 'string' },
      markdown: { type: 'string' },
      text: { type: 'string' },
      metadata: { type: 'object', additionalProperties: true },
    },
    description: 'With `formats`: the content formats asked for, read in the same page visit (docs/outputs.md)',
  })
  contents?: Record<string, unknown>;
}
