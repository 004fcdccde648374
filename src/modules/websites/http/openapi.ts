import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { WAIT_UNTIL_VALUES, WaitUntil } from '../../../shared/domain/wait-until';
import { OUTPUT_FORMATS, OutputFormat, PDF_PAPERS, PdfPaper } from '../../../shared/domain/output-format';
import { WEBSITE_RULES, WEBSITE_STATUSES, WebsiteStatus } from '../domain/website';

const R = WEBSITE_RULES;

/** The website fields as OpenAPI describes them, shared by the request DTOs and the response schema. */
export const WEBSITE_FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: R.nameMax, example: 'Example' },
  url: {
    type: 'string',
    format: 'uri',
    pattern: '^[hH][tT][tT][pP][sS]?://',
    maxLength: R.urlMax,
    example: 'https://example.com',
    description:
      'Absolute http/https URL (at most 2048 characters) without credentials; its host must resolve to public addresses only (URL policy: ' +
      'loopback, private, link-local, CGNAT, multicast and unspecified addresses are 422, and every request the browser makes is checked again). ' +
      'Stored as the WHATWG URL parser serialises it (`HTTP://Example.com` → `http://example.com/`)',
  },
  viewport_width: { type: 'integer', minimum: R.viewportWidth.min, maximum: R.viewportWidth.max },
  viewport_height: { type: 'integer', minimum: R.viewportHeight.min, maximum: R.viewportHeight.max },
  full_page: { type: 'boolean', description: 'Capture the whole page, not just the viewport' },
  status: { enum: WEBSITE_STATUSES, description: 'Paused websites are skipped by schedules' },
  change_threshold: {
    type: 'number',
    minimum: R.changeThreshold.min,
    maximum: R.changeThreshold.max,
    description:
      'Change history: a capture counts as `changed` when the share of its pixels that differ from the previous comparable capture is above this (0..1)',
  },
  change_ignore_selectors: {
    type: 'array',
    items: {
      type: 'string',
      format: 'css-selector',
      minLength: 1,
      maxLength: R.selectorMax,
      description: 'A CSS selector (checked with a CSS parser when saved)',
    },
    maxItems: R.changeIgnoreSelectorsMax,
    description:
      'Change history: elements whose boxes (where they are in each capture) are left out of the comparison — dates, ads, counters. Applies to captures taken from then on',
  },
} as const;

/** What wait_until means, for the request body and the website's saved default alike. */
export const WAIT_UNTIL_DESCRIPTION =
  'When the capture is taken. `stable`: after `load`, as soon as the page has been still for a short settle window ' +
  '(no request in flight, no pending timer of at most 2 s, no DOM change, fonts loaded, images decoded; intervals, ' +
  'longer timers and endless animations do not hold it), at most 3 s after `load`. `load` / `domcontentloaded`: at ' +
  'that event, nothing more. `network_idle`: after `load`, once the network has been quiet for 500 ms (at most 3 s).';

@ApiSchema({
  name: 'CaptureOptions',
  description:
    'The website’s capture defaults as a capture would use them (only the fields that apply to its format); a Take Screenshot body overrides them field by field.',
})
export class CaptureOptionsView {
  @ApiProperty({ enum: WAIT_UNTIL_VALUES, default: 'stable', description: WAIT_UNTIL_DESCRIPTION }) wait_until!: WaitUntil;
  @ApiProperty({ enum: OUTPUT_FORMATS, default: 'png' }) format!: OutputFormat;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, description: 'jpeg and webp only' }) quality?: number;
  @ApiPropertyOptional({ enum: PDF_PAPERS, description: 'pdf only' }) pdf_paper?: PdfPaper;
  @ApiPropertyOptional({ type: 'boolean', description: 'pdf only' }) pdf_landscape?: boolean;
  @ApiPropertyOptional({ type: 'boolean', description: 'pdf only' }) pdf_print_background?: boolean;
  @ApiPropertyOptional({ type: 'boolean', description: 'png and webp only' }) omit_background?: boolean;
  @ApiPropertyOptional({ type: 'string', description: 'When saved' }) selector?: string;
  @ApiPropertyOptional({
    type: 'object',
    properties: { x: { type: 'integer' }, y: { type: 'integer' }, width: { type: 'integer' }, height: { type: 'integer' } },
    required: ['x', 'y', 'width', 'height'],
    description: 'When saved',
  })
  clip?: { x: number; y: number; width: number; height: number };
  @ApiPropertyOptional({ type: 'string', description: 'When saved' }) device?: string;
  @ApiPropertyOptional({ type: 'string', description: 'When saved' }) user_agent?: string;
  @ApiPropertyOptional({ type: 'string', description: 'When saved' }) locale?: string;
  @ApiPropertyOptional({ type: 'string', description: 'When saved' }) timezone?: string;
  @ApiPropertyOptional({ type: 'array', items: { type: 'string' }, description: 'When saved' }) block_resources?: string[];
  @ApiPropertyOptional({ type: 'string', description: 'When saved' }) css?: string;
  @ApiPropertyOptional({ type: 'boolean', description: 'When saved' }) block_cookie_banners?: boolean;
  @ApiPropertyOptional({ type: 'boolean', description: 'When saved' }) block_ads?: boolean;
  @ApiPropertyOptional({ type: 'boolean', description: 'When saved' }) block_trackers?: boolean;
  @ApiPropertyOptional({
    oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'integer', minimum: 400, maximum: 599 } }],
    description: 'When saved',
  })
  fail_on_status?: boolean | number[];
  @ApiPropertyOptional({ type: 'integer', description: 'When saved' }) timeout_ms?: number;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', enum: ['********'] }, description: 'When saved: names, values never shown' })
  headers?: Record<string, string>;
  @ApiPropertyOptional({
    type: 'array',
    items: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        value: { type: 'string', enum: ['********'] },
        domain: { type: 'string' },
        path: { type: 'string' },
        secure: { type: 'boolean' },
        http_only: { type: 'boolean' },
        same_site: { type: 'string', enum: ['Strict', 'Lax', 'None'] },
      },
      required: ['name', 'value'],
    },
    description: 'When saved: values never shown',
  })
  cookies?: Array<Record<string, unknown>>;
  @ApiPropertyOptional({
    type: 'object',
    properties: { username: { type: 'string', enum: ['********'] }, password: { type: 'string', enum: ['********'] } },
    required: ['username', 'password'],
    description: 'When saved: never shown',
  })
  http_auth?: { username: string; password: string };
}

@ApiSchema({ name: 'Website' })
export class WebsiteView {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty(WEBSITE_FIELDS.name) name!: string;
  @ApiProperty(WEBSITE_FIELDS.url) url!: string;
  @ApiProperty(WEBSITE_FIELDS.viewport_width) viewport_width!: number;
  @ApiProperty(WEBSITE_FIELDS.viewport_height) viewport_height!: number;
  @ApiProperty(WEBSITE_FIELDS.full_page) full_page!: boolean;
  @ApiProperty(WEBSITE_FIELDS.status) status!: WebsiteStatus;
  @ApiProperty({ type: CaptureOptionsView }) capture_options!: CaptureOptionsView;
  @ApiProperty({ ...WEBSITE_FIELDS.change_threshold, default: R.changeThreshold.default }) change_threshold!: number;
  @ApiProperty({ ...WEBSITE_FIELDS.change_ignore_selectors, default: [] }) change_ignore_selectors!: string[];
  @ApiPropertyOptional({ ...TIMESTAMP, nullable: true, description: 'Time of the latest screenshot; in list and get responses (null before the first)' })
  last_screenshot_at?: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty(TIMESTAMP) updated_at!: string;
}
