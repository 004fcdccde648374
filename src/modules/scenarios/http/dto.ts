import { failureWords } from '../../../shared/domain/failure-words';
import { errorFields } from '../../jobs/http/dto';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Allow, IsInt, IsNotEmpty, IsString, MaxLength, ValidateIf } from 'class-validator';
import { PageQuery } from '../../../shared/http/pagination';
import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { AlsoChecks, BodyRequired, FieldCheckContext, IsId, MAX_ID, OptionalField, QueryInt, SingleLineName } from '../../../shared/http/validation';
import { Execution } from '../application/scenarios.service';
import { StepRecord } from '../domain/execution';
import { SCENARIO_RULES, ScenarioProps } from '../domain/scenario';
import { maskStepSecrets } from '../domain/step-secrets';
import { MAX_STEPS, MIN_STEPS, parseSteps, urlCheckerFromPolicy } from '../domain/steps';
import { MaxEntries } from '../../../shared/http/body-bounds';
import { ExecutionView, SCENARIO_FIELDS as F, ScenarioView, STEPS_FIELD } from './openapi';

/** The steps' own rules (domain parser), reported with the DTO's errors: see AlsoChecks. */
function stepErrors(body: Record<string, unknown>, { urlPolicy }: FieldCheckContext) {
  if (!('steps' in body)) return [];
  try {
    parseSteps(body.steps, urlCheckerFromPolicy(urlPolicy));
    return [];
  } catch (err) {
    if (err instanceof ValidationFailedError) return err.details;
    throw err;
  }
}

/** Counted before any step is read (body-bounds.ts), with the step parser's own words. */
const StepCount = () => MaxEntries(MAX_STEPS, `must contain ${MIN_STEPS} to ${MAX_STEPS} steps`);

@AlsoChecks(stepErrors)
export class CreateScenarioDto {
  @ApiProperty(F.name)
  @IsString()
  @IsNotEmpty()
  @MaxLength(SCENARIO_RULES.nameMax)
  @SingleLineName()
  name!: string;
  @ApiPropertyOptional(F.description)
  @OptionalField()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(SCENARIO_RULES.descriptionMax)
  description?: string | null;
  @ApiProperty(F.website_id)
  @IsId()
  website_id!: number;
  @ApiPropertyOptional(F.session_id)
  @OptionalField()
  @ValidateIf((_, v) => v !== null)
  @IsId()
  session_id?: number | null;
  /** Validated by the domain's step parser, which names every bad field (`steps[3].selector is required`). */
  @ApiProperty(STEPS_FIELD)
  @Allow()
  @StepCount()
  steps!: unknown;
}

@ApiSchema({
  description:
    'Any subset of the fields; `steps` replaces the whole list. Read-only fields echoed back from GET (id, status, created_at, updated_at) are accepted and ignored.',
})
@AlsoChecks(stepErrors)
@BodyRequired()
export class UpdateScenarioDto {
  @ApiPropertyOptional(F.name)
  @OptionalField()
  @IsString()
  @IsNotEmpty()
  @MaxLength(SCENARIO_RULES.nameMax)
  @SingleLineName()
  name?: string;
  @ApiPropertyOptional(F.description)
  @OptionalField()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(SCENARIO_RULES.descriptionMax)
  description?: string | null;
  @ApiPropertyOptional(F.website_id)
  @OptionalField()
  @IsId()
  website_id?: number;
  @ApiPropertyOptional(F.session_id)
  @OptionalField()
  @ValidateIf((_, v) => v !== null)
  @IsId()
  session_id?: number | null;
  @ApiPropertyOptional(STEPS_FIELD)
  @Allow()
  @StepCount()
  steps?: unknown;
  // Read-only fields a client echoes back from GET are accepted and ignored.
  @OptionalField() @IsInt() id?: number;
  @OptionalField() status?: unknown;
  @OptionalField() created_at?: unknown;
  @OptionalField() updated_at?: unknown;
}

export class ScenarioListQuery extends PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_ID, description: 'Only this website’s scenarios' })
  @QueryInt(1, MAX_ID)
  website_id?: number;
}

export function scenarioView(s: ScenarioProps): ScenarioView {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    website_id: s.websiteId,
    session_id: s.sessionId,
    status: s.status,
    steps: maskStepSecrets(s.steps),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export function executionView({ job, screenshotIds }: Execution): ExecutionView {
  return {
    id: job.id,
    scenario_id: job.scenarioId,
    status: job.status,
    steps: ((job.result as StepRecord[] | null) ?? []).map((step) => (step.error === null ? step : { ...step, error: failureWords(step.error).text })),
    screenshot_ids: screenshotIds,
    ...errorFields(job.error),
    attempts: job.attempts,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
  };
}
