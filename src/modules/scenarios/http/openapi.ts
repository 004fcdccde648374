import { ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { MAX_ID } from '../../../shared/http/validation';
import { JOB_STATUSES, JobStatus } from '../../jobs/domain/job';
import { STEP_RUN_STATUSES, StepRecord, StepRunStatus } from '../domain/execution';
import { SCENARIO_RULES } from '../domain/scenario';
import * as S from '../domain/steps';

// ---------------------------------------------------------------------------------------------------------
// Steps: one schema per type, `oneOf` them with a discriminator on `type` (spec: Scenario; API.md: Scenarios).
// ---------------------------------------------------------------------------------------------------------

const SELECTOR = {
  type: 'string',
  format: 'css-selector',
  minLength: 1,
  maxLength: S.MAX_SELECTOR_LENGTH,
  description: 'A standard CSS selector (one that does not parse is 422); surrounding whitespace is trimmed',
  example: '#login button[type=submit]',
} as const;
const VALUE = { type: 'string', maxLength: S.MAX_VALUE_LENGTH } as const;
const stepType = (type: S.StepType) => ({ enum: [type] });

@ApiSchema({ name: 'NavigateStep', description: 'Go to a URL (it must pass the URL policy)' })
export class NavigateStepSchema implements S.NavigateStep {
  @ApiProperty(stepType('navigate')) type!: 'navigate';
  @ApiProperty({
    type: 'string',
    format: 'uri',
    pattern: '^[hH][tT][tT][pP][sS]?://',
    maxLength: 2048,
    description:
      'Absolute http/https URL (at most 2048 characters, no credentials); its host must resolve to public addresses only (URL policy), checked again at every navigation',
    example: 'https://example.com/login',
  })
  url!: string;
}

@ApiSchema({ name: 'FillStep', description: 'Replace the value of an input, textarea or contenteditable (never logged)' })
export class FillStepSchema implements S.FillStep {
  @ApiProperty(stepType('fill')) type!: 'fill';
  @ApiProperty(SELECTOR) selector!: string;
  @ApiProperty({ ...VALUE, example: 'alice' }) value!: string;
}

@ApiSchema({ name: 'ClickStep', description: 'Click an element (and follow the navigation it starts)' })
export class ClickStepSchema implements S.ClickStep {
  @ApiProperty(stepType('click')) type!: 'click';
  @ApiProperty(SELECTOR) selector!: string;
}

@ApiSchema({ name: 'WaitStep', description: 'Sleep' })
export class WaitStepSchema implements S.WaitStep {
  @ApiProperty(stepType('wait')) type!: 'wait';
  @ApiProperty({ type: 'integer', minimum: S.MIN_WAIT_MS, maximum: S.MAX_WAIT_MS, description: 'Milliseconds', example: 500 }) duration!: number;
}

@ApiSchema({ name: 'WaitForStep', description: 'Wait until a selector matches' })
export class WaitForStepSchema implements S.WaitForStep {
  @ApiProperty(stepType('wait_for')) type!: 'wait_for';
  @ApiProperty(SELECTOR) selector!: string;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: S.MIN_WAIT_FOR_TIMEOUT_MS,
    maximum: S.MAX_WAIT_FOR_TIMEOUT_MS,
    default: S.DEFAULT_WAIT_FOR_TIMEOUT_MS,
    description: 'Milliseconds',
  })
  timeout?: number;
}

@ApiSchema({ name: 'HoverStep', description: 'Move the mouse over an element' })
export class HoverStepSchema implements S.HoverStep {
  @ApiProperty(stepType('hover')) type!: 'hover';
  @ApiProperty(SELECTOR) selector!: string;
}

@ApiSchema({ name: 'PressStep', description: 'Press one key' })
export class PressStepSchema implements S.PressStep {
  @ApiProperty(stepType('press')) type!: 'press';
  @ApiProperty({
    type: 'string',
    minLength: 1,
    example: 'Enter',
    description: `One printable ASCII character, or one of ${S.PRESS_NAMED_KEYS.join(', ')} (case-insensitive)`,
  })
  key!: string;
}

@ApiSchema({ name: 'SelectStep', description: 'Choose the option with this value in a <select>' })
export class SelectStepSchema implements S.SelectStep {
  @ApiProperty(stepType('select')) type!: 'select';
  @ApiProperty(SELECTOR) selector!: string;
  @ApiProperty({ ...VALUE, example: 'de' }) value!: string;
}

@ApiSchema({ name: 'ScrollStep', description: 'Scroll to the bottom of the page, or an element into view' })
export class ScrollStepSchema implements S.ScrollStep {
  @ApiProperty(stepType('scroll')) type!: 'scroll';
  @ApiProperty({
    type: 'string',
    minLength: 1,
    maxLength: S.MAX_SELECTOR_LENGTH,
    example: S.SCROLL_TO_BOTTOM,
    description: `"${S.SCROLL_TO_BOTTOM}" (any case) or a standard CSS selector (one that does not parse is 422); surrounding whitespace is trimmed`,
  })
  to!: string;
}

@ApiSchema({ name: 'ScreenshotStep', description: 'Take an extra screenshot (a final one is always taken)' })
export class ScreenshotStepSchema implements S.ScreenshotStep {
  @ApiProperty(stepType('screenshot')) type!: 'screenshot';
  @ApiPropertyOptional({ type: 'boolean', description: 'Default: the website’s full_page' }) full_page?: boolean;
}

const STEP_SCHEMA_BY_TYPE: { readonly [T in S.StepType]: new () => S.StepOf<T> } = {
  navigate: NavigateStepSchema,
  fill: FillStepSchema,
  click: ClickStepSchema,
  wait: WaitStepSchema,
  wait_for: WaitForStepSchema,
  hover: HoverStepSchema,
  press: PressStepSchema,
  select: SelectStepSchema,
  scroll: ScrollStepSchema,
  screenshot: ScreenshotStepSchema,
};

/** Register these where the steps are used (@ApiExtraModels), so the oneOf references resolve. */
export const STEP_SCHEMAS = Object.values(STEP_SCHEMA_BY_TYPE);

/** A step: one of the step schemas, chosen by `type`. */
export const STEP_SCHEMA = {
  oneOf: STEP_SCHEMAS.map((schema) => ({ $ref: getSchemaPath(schema) })),
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries(Object.entries(STEP_SCHEMA_BY_TYPE).map(([type, schema]) => [type, getSchemaPath(schema)])),
  },
};

/** The `steps` field of the request bodies and of Scenario. */
export const STEPS_FIELD = {
  type: 'array',
  items: STEP_SCHEMA,
  minItems: S.MIN_STEPS,
  maxItems: S.MAX_STEPS,
  description: 'Performed in order; a failing step stops the run. Every problem is a 422 naming its place (`steps[3].selector`).',
} as const;

// ---------------------------------------------------------------------------------------------------------
// Scenarios and executions
// ---------------------------------------------------------------------------------------------------------

export const SCENARIO_FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: SCENARIO_RULES.nameMax, example: 'Log in' },
  description: { type: 'string', maxLength: SCENARIO_RULES.descriptionMax, nullable: true },
  website_id: { type: 'integer', minimum: 1, maximum: MAX_ID, description: 'One of the caller’s websites: the run starts at its URL and viewport' },
} as const;

@ApiSchema({ name: 'Scenario' })
export class ScenarioView {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty(SCENARIO_FIELDS.name) name!: string;
  @ApiProperty(SCENARIO_FIELDS.description) description!: string | null;
  @ApiProperty(SCENARIO_FIELDS.website_id) website_id!: number;
  @ApiProperty({ enum: ['active'] }) status!: 'active';
  @ApiProperty(STEPS_FIELD) steps!: S.Step[];
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty(TIMESTAMP) updated_at!: string;
}

@ApiSchema({ name: 'ExecutionStep' })
export class ExecutionStepView implements StepRecord {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Position in the scenario’s steps, from 0' }) index!: number;
  @ApiProperty({ enum: S.STEP_TYPES }) type!: S.StepType;
  @ApiProperty({ enum: STEP_RUN_STATUSES, description: 'Steps after a failed one end as skipped' }) status!: StepRunStatus;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Milliseconds; null until finished' }) duration_ms!: number | null;
  @ApiProperty({ type: 'string', nullable: true }) error!: string | null;
}

@ApiSchema({ name: 'Execution', description: 'A run of a scenario: queued → running → succeeded | failed' })
export class ExecutionView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null once the scenario was deleted' }) scenario_id!: number | null;
  @ApiProperty({ enum: JOB_STATUSES }) status!: JobStatus;
  @ApiProperty({ type: [ExecutionStepView] }) steps!: ExecutionStepView[];
  @ApiProperty({ type: 'integer', isArray: true, description: 'Screenshots it stored: one per screenshot step, and a final one (also after a failure)' })
  screenshot_ids!: number[];
  @ApiProperty({ type: 'string', nullable: true, example: 'Step 2 (click) failed: no element matches #submit' }) error!: string | null;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) started_at!: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) finished_at!: string | null;
}

export class ExecutionQueuedResponse {
  @ApiProperty({ type: 'boolean', enum: [true] }) success!: true;
  @ApiProperty({ example: 'Scenario execution queued' }) message!: string;
  @ApiProperty({ format: 'uuid', description: 'Follow it with GET /executions/{id}' }) execution_id!: string;
}
