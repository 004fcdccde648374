import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CAPTURE_WARNING_CODES } from '../../../shared/domain/capture-warnings';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { FORMAT_FILES, OUTPUT_FORMATS, OutputFormat } from '../../../shared/domain/output-format';
import type { ChangeView } from '../domain/change';
import type { CaptureReportView } from '../domain/capture-report';

@ApiSchema({ name: 'Screenshot' })
export class ScreenshotView {
  @ApiProperty({ type: 'integer', example: 3 }) id!: number;
  @ApiProperty({ type: 'integer', example: 1, description: 'Owning website' }) website_id!: number;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The capture job that made it' }) job_id!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Set when a scenario run made it' }) scenario_id!: number | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'Set when a scenario run made it' }) execution_id!: string | null;
  @ApiProperty({
    example: 'screenshots/1/1/3.png',
    description: 'Storage key relative to the storage root (never a server path); ends in the format’s extension',
  })
  file_path!: string;
  @ApiProperty({ enum: OUTPUT_FORMATS, example: 'png' }) format!: OutputFormat;
  @ApiProperty({ enum: Object.values(FORMAT_FILES).map((f) => f.mimeType), example: 'image/png', description: 'Content-Type of the download' })
  mime_type!: string;
  @ApiProperty({ type: 'integer', description: 'Bytes', example: 48213 }) file_size!: number;
  @ApiProperty({ type: 'integer', description: 'Pixels of the stored image; for a PDF the paper’s width in CSS px (96 per inch)', example: 1280 })
  width!: number;
  @ApiProperty({ type: 'integer', description: 'Pixels of the stored image; for a PDF the paper’s height in CSS px (96 per inch)', example: 800 })
  height!: number;
  @ApiProperty({ enum: ['success'], description: 'Rows exist only for captures that produced an image; failures live on the job' }) status!: 'success';
  @ApiProperty(TIMESTAMP) taken_at!: string;
  @ApiProperty({
    nullable: true,
    oneOf: [
      {
        type: 'object',
        title: 'Compared',
        properties: {
          previous_id: { type: 'integer', description: 'The capture it was compared with (it may have been deleted since)' },
          changed_ratio: {
            type: 'number',
            minimum: 0,
            maximum: 1,
            description: 'Share of pixels that differ (anti-aliasing tolerant; masked boxes never count)',
          },
          changed: { type: 'boolean', description: 'changed_ratio > the website’s change_threshold, OR text_changed' },
          compared_at: TIMESTAMP,
          text_changed: { type: 'boolean', description: 'The visible text (outside change_ignore_selectors) differs: text_diff has a line added or removed' },
          text_diff: {
            type: 'object',
            nullable: true,
            properties: {
              added: {
                type: 'integer',
                minimum: 0,
                description: 'Lines in this capture’s text not in the previous one’s (a changed line counts here and in removed)',
              },
              removed: { type: 'integer', minimum: 0, description: 'Lines of the previous capture’s text no longer there' },
            },
            required: ['added', 'removed'],
            description: 'null when either capture kept no text (captures from before text changes). The lines: GET /screenshots/{id}/text-diff',
          },
        },
        required: ['previous_id', 'changed_ratio', 'changed', 'compared_at', 'text_changed', 'text_diff'],
      },
      {
        type: 'object',
        title: 'Pending',
        properties: { previous_id: { type: 'integer' }, status: { type: 'string', enum: ['pending'] } },
        required: ['previous_id', 'status'],
      },
    ],
    description:
      'Change history: the comparison with the previous capture of the website taken with the same options that change the picture (viewport, scale factor, device, ' +
      'full_page, selector/clip, hide_selectors, css, blocking, dark mode, user agent, locale, time zone…; any image format: docs/text-changes.md). ' +
      'null when there was none (the first capture, PDFs, scenario step shots); `{previous_id, status: "pending"}` while the comparison runs (it never delays the job)',
  })
  change!: ChangeView;
  @ApiProperty({
    type: 'object',
    nullable: true,
    title: 'CaptureReport',
    properties: {
      http_status: {
        type: 'integer',
        nullable: true,
        example: 200,
        description: 'The main document’s HTTP status after redirects (null: no HTTP response seen)',
      },
      final_url: { type: 'string', format: 'uri', example: 'https://example.com/en/', description: 'The URL the page ended on (after redirects)' },
      title: { type: 'string', example: 'Example Domain' },
      page_height: { type: 'integer', example: 4210, description: 'The full page’s height in CSS px, before any cut' },
      truncated: {
        type: 'boolean',
        description: 'The full-page image was cut at the maximum height (CAPTURE_MAX_HEIGHT, lower for WebP or a high scale factor) short of page_height',
      },
      settled: {
        type: 'boolean',
        description: 'false: taken at the wait’s cap while the page was still loading or changing (see pending); the picture may be incomplete',
      },
      waited_ms: { type: 'integer', example: 240, description: 'From the page’s load event to the picture' },
      pending: {
        type: 'array',
        maxItems: 5,
        items: { type: 'string', example: 'api.example.com/v1/feed' },
        description: 'Up to 5 requests still in flight at the cap, or that never answered (hung_requests), as host/path (no query string); [] when settled',
      },
      warnings: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            code: { type: 'string', enum: [...CAPTURE_WARNING_CODES], description: 'Stable: scripts may match on it' },
            detail: { type: 'string', description: 'What it means for this picture, in words for people (may change)' },
          },
          required: ['code', 'detail'],
        },
        description:
          'What may make the picture differ from what a person sees: hung_requests, animation_running, scroll_container, iframe_unpainted, truncated, consent_unanswered; [] for a clean capture',
      },
      proxy: {
        type: 'string',
        nullable: true,
        example: 'http://********@proxy.example.com:8080',
        description: 'The upstream proxy the page went through, credentials masked; null when it went straight out',
      },
      session: {
        type: 'object',
        nullable: true,
        properties: {
          id: { type: 'integer', example: 1 },
          name: { type: 'string', example: 'Shop' },
          refreshed: { type: 'boolean', description: 'The session was found logged out and logged in again before this picture' },
        },
        required: ['id', 'name', 'refreshed'],
        description: 'The saved session the page started with (`session_id`); null when none',
      },
    },
    required: ['http_status', 'final_url', 'title', 'page_height', 'truncated', 'settled', 'waited_ms', 'pending', 'warnings'],
    description:
      'The capture report: what the page answered and how complete the picture is. null for scenario step shots and screenshots taken before it was recorded.',
  })
  capture!: CaptureReportView | null;
}

export class JobQueuedResponse {
  @ApiProperty({ type: 'boolean', enum: [true] }) success!: true;
  @ApiProperty({ example: 'Screenshot job queued' }) message!: string;
  @ApiProperty({ format: 'uuid', description: 'Follow it with GET /jobs/{id}' }) job_id!: string;
}
