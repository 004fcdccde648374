import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { MAX_ID } from '../../../shared/http/validation';
import { JOB_STATUSES, JobStatus } from '../../jobs/domain/job';
import { STEP_RUN_STATUSES, StepRecord, StepRunStatus } from '../domain/execution';
import { SCENARIO_RULES } from '../domain/scenario';
import * as S from '../domain/steps';

// ---------------------------------------------------------------------------------------------------------
// Steps: one schema per type, made from the steps' definitions (domain/steps.ts), `oneOf` them with a
// discriminator on `type` (spec: Scenario; API.md: Scenarios).
// ---------------------------------------------------------------------------------------------------------

/** The OpenAPI property of each kind of step field (domain/steps.ts: STEP_DEFINITIONS). */
function fieldProperty(spec: S.StepFieldSpec): ApiPropertyOptions {
  switch (spec.kind) {
    case 'url':
      return {
        type: 'string',
        format: 'uri',
        pattern: '^[hH][tT][tT][pP][sS]?://',
        maxLength: 2048,
        description:
          'Absolute http/https URL (at most 2048 characters, no credentials); its host must resolve to public addresses only (URL policy), checked again at every navigation',
        example: 'https://example.com/login',
      };
    case 'selector':
      return {
        type: 'string',
        format: 'css-selector',
        minLength: 1,
        maxLength: S.MAX_SELECTOR_LENGTH,
        description: 'A standard CSS selector (one that does not parse is 422); surrounding whitespace is trimmed',
        example: '#login button[type=submit]',
      };
    case 'value':
      return { type: 'string', maxLength: S.MAX_VALUE_LENGTH, example: spec.example };
    case 'integer':
      return { type: 'integer', minimum: spec.min, maximum: spec.max, default: spec.default, description: spec.description, example: spec.example };
    case 'key':
      return {
        type: 'string',
        minLength: 1,
        example: 'Enter',
        description: `One printable ASCII character, or one of ${S.PRESS_NAMED_KEYS.join(', ')} (case-insensitive)`,
      };
    case 'scrollTarget':
      return {
        type: 'string',
        minLength: 1,
        maxLength: S.MAX_SELECTOR_LENGTH,
        example: S.SCROLL_TO_BOTTOM,
        description: `"${S.SCROLL_TO_BOTTOM}" (any case) or a standard CSS selector (one that does not parse is 422); surrounding whitespace is trimmed`,
      };
    case 'boolean':
      return { type: 'boolean', description: spec.description };
  }
}

/** `wait_for` → `WaitForStep`: the schema names clients already know. */
const schemaName = (type: S.StepType) => `${type.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())}Step`;

/** One schema class per step type, made from its definition: properties as swagger's decorators would declare them. */
function stepSchema(type: S.StepType): new () => S.Step {
  const name = schemaName(type);
  const schema = { [name]: class {} }[name];
  const definition: S.StepDefinition = S.STEP_DEFINITIONS[type];
  ApiProperty({ enum: [type] })(schema.prototype, 'type');
  for (const [field, spec] of Object.entries(definition.fields)) {
    const property = Object.fromEntries(Object.entries(fieldProperty(spec)).filter(([, value]) => value !== undefined));
    ('optional' in spec && spec.optional ? ApiPropertyOptional : ApiProperty)(property)(schema.prototype, field);
  }
  ApiSchema({ name, description: definition.description })(schema);
  return schema as new () => S.Step;
}

const STEP_SCHEMA_BY_TYPE = Object.fromEntries(S.STEP_TYPES.map((type) => [type, stepSchema(type)])) as Record<S.StepType, new () => S.Step>;

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
  session_id: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_ID,
    nullable: true,
    description:
      'One of the caller’s saved sessions (/sessions): its runs start logged in with it (a schedule’s own session_id wins). ' +
      'null (default): the website’s capture_options session_id, if any. Another account’s or an unknown id is 422',
  },
} as const;

@ApiSchema({ name: 'Scenario' })
export class ScenarioView {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty(SCENARIO_FIELDS.name) name!: string;
  @ApiProperty(SCENARIO_FIELDS.description) description!: string | null;
  @ApiProperty(SCENARIO_FIELDS.website_id) website_id!: number;
  @ApiProperty(SCENARIO_FIELDS.session_id) session_id!: number | null;
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
  @ApiProperty({
    type: 'integer',
    isArray: true,
    description:
      'Screenshots it stored, oldest first: one per screenshot step, and a final one (also after a failure). When the last step is a screenshot step taken as the final shot would be (full_page absent or equal to the website’s), its image is the final screenshot, listed once.',
  })
  screenshot_ids!: number[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'Step 2 (click) failed: no element matches #submit',
    description: 'Why it failed, in words (docs/failure-words.md)',
  })
  error!: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The failure’s stable code (as a Job’s `error_code`); null when not failed or not known',
    example: 'net::ERR_CONNECTION_REFUSED',
  })
  error_code!: string | null;
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
