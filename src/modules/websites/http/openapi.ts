import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { CaptureOptionsView } from '../../../shared/http/capture-option-fields';
import { CONDITION_RULES as C } from '../domain/change-conditions';
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
  alert_when: {
    description:
      'Change conditions: when a comparison is `changed` (and `screenshot.changed` and the channels fire). Every field set must hold; `{}` (the default) ' +
      'counts every change. Replaced whole by PUT',
  },
  text_contains: {
    type: 'string',
    minLength: 1,
    maxLength: C.phraseMax,
    example: 'In stock',
    description: 'Changed only when this phrase appears: in the new text and not in the previous one (case-insensitive, ignored lines left out)',
  },
  text_missing: {
    type: 'string',
    minLength: 1,
    maxLength: C.phraseMax,
    example: 'Sold out',
    description: 'Changed only when this phrase disappears: in the previous text and not in the new one (case-insensitive)',
  },
  min_changed_ratio: {
    type: 'number',
    minimum: 0,
    maximum: 1,
    example: 0.05,
    description: 'Changed only when at least this share of the pixels differs (changed_ratio ≥ it), whatever the text did',
  },
  text_only: { type: 'boolean', description: 'Pixels alone never make a change: only the visible text (outside ignore_text) counts' },
  ignore_text: {
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: C.patternMax, description: 'A regular expression in RE2 syntax (no backreferences, no lookaround)' },
    maxItems: C.ignoreTextMax,
    example: ['^Updated at \\d{2}:\\d{2}', 'visitors today'],
    description:
      'Lines of the visible text matching any of these (case-insensitive, anywhere in the line) are left out of the text diff; a comparison whose only ' +
      'text changes are such lines is not `changed`, its pixel change with it (unless alert_when.min_changed_ratio is reached). A pattern that does not ' +
      'compile is a 422 naming `ignore_text[i]`',
  },
} as const;

@ApiSchema({ name: 'AlertWhen' })
export class AlertWhenView {
  @ApiPropertyOptional(WEBSITE_FIELDS.text_contains) text_contains?: string;
  @ApiPropertyOptional(WEBSITE_FIELDS.text_missing) text_missing?: string;
  @ApiPropertyOptional(WEBSITE_FIELDS.min_changed_ratio) min_changed_ratio?: number;
  @ApiPropertyOptional(WEBSITE_FIELDS.text_only) text_only?: boolean;
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
  @ApiProperty({ type: AlertWhenView, description: WEBSITE_FIELDS.alert_when.description }) alert_when!: AlertWhenView;
  @ApiProperty({ ...WEBSITE_FIELDS.ignore_text, default: [] }) ignore_text!: string[];
  @ApiPropertyOptional({ ...TIMESTAMP, nullable: true, description: 'Time of the latest screenshot; in list and get responses (null before the first)' })
  last_screenshot_at?: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty(TIMESTAMP) updated_at!: string;
}
