import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * The wire shapes of the API (spec + API.md), as OpenAPI component schemas: one place to read what every
 * body looks like. Field rules mirror the validation in each context's http/ DTOs and domain.
 */
const str = (extra: SchemaObject = {}): SchemaObject => ({ type: 'string', ...extra });
const int = (extra: SchemaObject = {}): SchemaObject => ({ type: 'integer', ...extra });
const bool = (extra: SchemaObject = {}): SchemaObject => ({ type: 'boolean', ...extra });
const time = (extra: SchemaObject = {}): SchemaObject => ({ type: 'string', format: 'date-time', example: '2026-11-22T07:00:00.000Z', ...extra });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const obj = (properties: Record<string, SchemaObject | { $ref: string }>, required: string[] = Object.keys(properties), extra: SchemaObject = {}): SchemaObject => ({
  type: 'object',
  properties,
  required,
  ...extra,
});

const error = (errorText: SchemaObject, code: string, more: Record<string, SchemaObject> = {}): SchemaObject =>
  obj({ success: bool({ enum: [false] }), error: errorText, code: str({ enum: [code] }), ...more });

const selector = str({ description: 'CSS selector (standard CSS only)', example: '#login button[type=submit]' });

const STEPS: Record<string, SchemaObject> = {
  NavigateStep: obj({ type: str({ enum: ['navigate'] }), url: str({ format: 'uri' }) }),
  FillStep: obj({ type: str({ enum: ['fill'] }), selector, value: str() }),
  ClickStep: obj({ type: str({ enum: ['click'] }), selector }),
  WaitStep: obj({ type: str({ enum: ['wait'] }), duration: int({ minimum: 0, maximum: 30000, description: 'milliseconds' }) }),
  WaitForStep: obj({ type: str({ enum: ['wait_for'] }), selector, timeout: int({ minimum: 0, description: 'milliseconds, default 10000' }) }, ['type', 'selector']),
  HoverStep: obj({ type: str({ enum: ['hover'] }), selector }),
  PressStep: obj({ type: str({ enum: ['press'] }), key: str({ example: 'Enter' }) }),
  SelectStep: obj({ type: str({ enum: ['select'] }), selector, value: str() }),
  ScrollStep: obj({ type: str({ enum: ['scroll'] }), to: str({ description: '"bottom" or a CSS selector' }) }),
  ScreenshotStep: obj({ type: str({ enum: ['screenshot'] }), full_page: bool() }, ['type']),
};

const STEP_TYPES: Record<string, string> = {
  navigate: 'NavigateStep', fill: 'FillStep', click: 'ClickStep', wait: 'WaitStep', wait_for: 'WaitForStep',
  hover: 'HoverStep', press: 'PressStep', select: 'SelectStep', scroll: 'ScrollStep', screenshot: 'ScreenshotStep',
};

const websiteFields = {
  name: str({ minLength: 1, maxLength: 255 }),
  url: str({ format: 'uri', maxLength: 2048, description: 'http/https; must pass the URL policy (no private or loopback addresses)' }),
  viewport_width: int({ minimum: 320, maximum: 3840, default: 1280 }),
  viewport_height: int({ minimum: 240, maximum: 2160, default: 800 }),
  full_page: bool({ default: false }),
  status: str({ enum: ['active', 'paused'], default: 'active' }),
};

const scheduleFields = {
  name: str({ minLength: 1, maxLength: 255 }),
  website_id: int(),
  frequency: str({ enum: ['daily', 'weekly', 'hourly'] }),
  time: str({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', example: '07:30' }),
  timezone: str({ example: 'Europe/Berlin', description: 'IANA time zone name' }),
  day_of_week: int({ minimum: 0, maximum: 6, nullable: true, description: '0 = Sunday; weekly only' }),
  enabled: bool({ default: true }),
};

export const SCHEMAS: Record<string, SchemaObject> = {
  Error: error(str(), 'bad_request'),
  Unauthorized: error(str({ enum: ['Unauthorized'] }), 'unauthorized'),
  PlanNoApiAccess: error(str({ enum: ['API access is not available on your plan'] }), 'plan_no_api_access', { current_plan: str({ enum: ['free', 'starter', 'pro', 'business'] }) }),
  PlanUpgradeRequired: error(str(), 'plan_upgrade_required', { current_plan: str(), required_plans: { type: 'array', items: str() } }),
  NotFound: error(str({ example: 'Website not found' }), 'not_found'),
  ValidationFailed: error(str({ example: 'The given data was invalid' }), 'validation_failed', {
    details: { type: 'array', items: obj({ field: str({ example: 'viewport_width' }), message: str() }) },
  }),
  PayloadTooLarge: error(str(), 'payload_too_large'),
  RateLimited: error(str({ enum: ['Rate limit exceeded'] }), 'rate_limited', {
    message: str({ example: 'Rate limit of 20 requests per minute exceeded' }),
    limit: int(),
    current: int(),
    reset_at: time(),
  }),
  Unavailable: error(str(), 'unavailable'),
  Success: obj({ success: bool({ enum: [true] }), message: str() }),
  PageMeta: obj({ current_page: int(), last_page: int(), per_page: int({ example: 15 }), total: int() }),
  PageLinks: obj({ first: str({ format: 'uri' }), last: str({ format: 'uri' }), prev: str({ format: 'uri', nullable: true }), next: str({ format: 'uri', nullable: true }) }),
  Website: obj({ id: int(), ...websiteFields, last_screenshot_at: time({ nullable: true }), created_at: time(), updated_at: time() }),
  CreateWebsite: obj(websiteFields, ['name', 'url']),
  UpdateWebsite: obj(websiteFields, []),
  TakeScreenshot: obj(
    {
      full_page: bool(),
      viewport_width: int({ minimum: 320, maximum: 3840 }),
      viewport_height: int({ minimum: 240, maximum: 2160 }),
      delay_ms: int({ minimum: 0, maximum: 10000 }),
      wait_for_selector: selector,
      device_scale_factor: { type: 'number', minimum: 1, maximum: 3 },
      format: str({ enum: ['png'] }),
      hide_selectors: { type: 'array', maxItems: 50, items: selector },
      dark_mode: bool(),
    },
    [],
    { description: 'All optional; defaults come from the website.' },
  ),
  JobQueued: obj({ success: bool({ enum: [true] }), message: str(), job_id: str({ format: 'uuid' }) }),
  Job: obj({
    id: str({ format: 'uuid' }),
    type: str({ enum: ['screenshot', 'scenario'] }),
    status: str({ enum: ['queued', 'running', 'succeeded', 'failed'] }),
    source: str({ enum: ['api', 'schedule'] }),
    website_id: int({ nullable: true }),
    screenshot_id: int({ nullable: true }),
    error: str({ nullable: true }),
    attempts: int(),
    created_at: time(),
    started_at: time({ nullable: true }),
    finished_at: time({ nullable: true }),
  }),
  Screenshot: obj({
    id: int(),
    website_id: int(),
    file_path: str({ example: 'screenshots/1/2/3.png', description: 'storage key, never a server path' }),
    file_size: int({ description: 'bytes' }),
    width: int({ description: 'pixels' }),
    height: int({ description: 'pixels' }),
    status: str({ enum: ['success'] }),
    taken_at: time(),
  }),
  BulkDownload: obj({ screenshot_ids: { type: 'array', minItems: 1, maxItems: 100, items: int() } }),
  ...STEPS,
  Step: {
    oneOf: Object.keys(STEPS).map(ref),
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(Object.entries(STEP_TYPES).map(([t, s]) => [t, `#/components/schemas/${s}`])) },
  },
  Scenario: obj({ id: int(), name: str(), description: str({ nullable: true }), website_id: int(), status: str({ enum: ['active'] }), steps: { type: 'array', items: ref('Step') }, created_at: time(), updated_at: time() }),
  CreateScenario: obj({ name: str({ minLength: 1, maxLength: 255 }), description: str({ maxLength: 2000 }), website_id: int(), steps: { type: 'array', minItems: 1, maxItems: 50, items: ref('Step') } }, ['name', 'website_id', 'steps']),
  UpdateScenario: obj({ name: str({ minLength: 1, maxLength: 255 }), description: str({ maxLength: 2000 }), website_id: int(), steps: { type: 'array', minItems: 1, maxItems: 50, items: ref('Step') } }, []),
  ExecutionQueued: obj({ success: bool({ enum: [true] }), message: str(), execution_id: str({ format: 'uuid' }) }),
  Execution: obj({
    id: str({ format: 'uuid' }),
    scenario_id: int(),
    status: str({ enum: ['queued', 'running', 'succeeded', 'failed'] }),
    steps: { type: 'array', items: obj({ index: int(), type: str(), status: str({ enum: ['pending', 'running', 'succeeded', 'failed', 'skipped'] }), duration_ms: int({ nullable: true }), error: str({ nullable: true }) }) },
    screenshot_ids: { type: 'array', items: int() },
    error: str({ nullable: true }),
    created_at: time(),
    started_at: time({ nullable: true }),
    finished_at: time({ nullable: true }),
  }),
  Schedule: obj({ id: int(), ...scheduleFields, next_run_at: time({ nullable: true }), last_run_at: time({ nullable: true }), last_job_id: str({ nullable: true }), created_at: time(), updated_at: time() }),
  CreateSchedule: obj(scheduleFields, ['name', 'website_id', 'frequency', 'time', 'timezone']),
  UpdateSchedule: obj(scheduleFields, []),
  Health: obj({ status: str({ enum: ['ok', 'degraded'] }), timestamp: time(), api_version: str({ example: '1.0.0' }) }),
  TestConnection: obj({
    success: bool({ enum: [true] }),
    message: str(),
    user: obj({ id: int(), name: str(), email: str(), subscription_tier: str({ enum: ['starter', 'pro', 'business'] }) }),
    rate_limit: obj({ limit: int(), remaining: int(), reset: int({ description: 'Unix timestamp in seconds' }) }),
  }),
};

export { ref };
