import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { AlertWhen, CONDITION_RULES, ignoreTextProblems } from '../domain/change-conditions';
import { MaxEntries, NestedDto } from '../../../shared/http/body-bounds';
import { captureOptionsView, CaptureOptionsDto, IsNotArray, OBJECT_MESSAGE, toCaptureOptions } from '../../../shared/http/capture-option-fields';
import { AlsoChecks, BodyRequired, FieldCheckContext, IsCssSelector, OptionalField, Satisfies, SingleLineName } from '../../../shared/http/validation';
import { WEBSITE_RULES, WEBSITE_STATUSES, WebsiteChanges, WebsiteProps, WebsiteStatus } from '../domain/website';
import { WEBSITE_FIELDS as F, WebsiteView } from './openapi';

const R = WEBSITE_RULES;

// One definition per field rule, shared by create (required fields) and update (all optional).
const Name = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(R.nameMax), SingleLineName());
const Url = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(R.urlMax));
const ViewportWidth = () => applyDecorators(OptionalField(), IsInt(), Min(R.viewportWidth.min), Max(R.viewportWidth.max));
const ViewportHeight = () => applyDecorators(OptionalField(), IsInt(), Min(R.viewportHeight.min), Max(R.viewportHeight.max));
const FullPage = () => applyDecorators(OptionalField(), IsBoolean());
const Status = () => applyDecorators(OptionalField(), IsIn(WEBSITE_STATUSES));
const ChangeThreshold = () =>
  applyDecorators(
    ApiPropertyOptional({ ...F.change_threshold, default: R.changeThreshold.default }),
    OptionalField(),
    // One message whatever is wrong (a string, NaN, out of range), not one per rule.
    Satisfies(
      'isThreshold',
      (v) => typeof v === 'number' && v >= R.changeThreshold.min && v <= R.changeThreshold.max,
      `must be a number from ${R.changeThreshold.min} to ${R.changeThreshold.max}`,
    ),
  );
const ChangeIgnoreSelectors = () =>
  applyDecorators(
    ApiPropertyOptional({ ...F.change_ignore_selectors, default: [] }),
    OptionalField(),
    MaxEntries(R.changeIgnoreSelectorsMax, `must be an array of at most ${R.changeIgnoreSelectorsMax} CSS selectors`),
    Satisfies('isSelectorList', (v) => Array.isArray(v), `must be an array of at most ${R.changeIgnoreSelectorsMax} CSS selectors`),
    IsString({ each: true }),
    MinLength(1, { each: true }),
    MaxLength(R.selectorMax, { each: true }),
    IsCssSelector({ each: true }),
  );

const C = CONDITION_RULES;
const Phrase = () => applyDecorators(OptionalField(), IsString(), MinLength(1), MaxLength(C.phraseMax));

/** `alert_when`: when a change is `changed` and alerted (domain/change-conditions.ts). Unknown fields are refused. */
export class AlertWhenDto {
  @ApiPropertyOptional(F.text_contains) @Phrase() text_contains?: string;
  @ApiPropertyOptional(F.text_missing) @Phrase() text_missing?: string;
  @ApiPropertyOptional(F.min_changed_ratio)
  @OptionalField()
  @Satisfies('isRatio', (v) => typeof v === 'number' && v >= 0 && v <= 1, 'must be a number from 0 to 1')
  min_changed_ratio?: number;
  @ApiPropertyOptional(F.text_only) @OptionalField() @IsBoolean() text_only?: boolean;
}

const AlertWhenField = () =>
  applyDecorators(
    ApiPropertyOptional({ type: AlertWhenDto, description: F.alert_when.description }),
    OptionalField(),
    IsNotArray(),
    ValidateNested(OBJECT_MESSAGE),
    NestedDto(() => AlertWhenDto),
  );

/** The list's shape here; whether each pattern compiles in ignoreTextErrors (it names the entry: `ignore_text[2]`). */
const IgnoreText = () =>
  applyDecorators(
    ApiPropertyOptional({ ...F.ignore_text, default: [] }),
    OptionalField(),
    MaxEntries(C.ignoreTextMax, `must be an array of at most ${C.ignoreTextMax} regular expressions`),
    Satisfies('isPatternList', (v) => Array.isArray(v), `must be an array of at most ${C.ignoreTextMax} regular expressions`),
    IsString({ each: true }),
  );

/** The ignore_text patterns that do not compile (or are empty, or too long), each named by its index. */
function ignoreTextErrors(body: Record<string, unknown>) {
  return Array.isArray(body.ignore_text) && body.ignore_text.length <= C.ignoreTextMax ? ignoreTextProblems(body.ignore_text) : [];
}

/** One message whichever way it is not an object (IsObject beside ValidateNested would give two). */
const CaptureOptionsField = () =>
  applyDecorators(
    ApiPropertyOptional({ type: CaptureOptionsDto }),
    OptionalField(),
    IsNotArray(),
    ValidateNested(OBJECT_MESSAGE),
    NestedDto(() => CaptureOptionsDto),
  );

/** The URL policy's rules that need no DNS (scheme, credentials, length, literal addresses): see AlsoChecks. */
function urlErrors(body: Record<string, unknown>, { urlPolicy }: FieldCheckContext) {
  const patterns = ignoreTextErrors(body);
  if (typeof body.url !== 'string') return patterns;
  const verdict = urlPolicy.checkSyntax(body.url);
  return verdict.allowed ? patterns : [{ field: 'url', message: verdict.reason }, ...patterns];
}

@ApiSchema({ description: 'Unknown fields are refused (422).' })
@AlsoChecks(urlErrors)
export class CreateWebsiteDto {
  @ApiProperty(F.name) @Name() name!: string;
  @ApiProperty(F.url) @Url() url!: string;
  @ApiPropertyOptional({ ...F.viewport_width, default: R.viewportWidth.default }) @ViewportWidth() viewport_width?: number;
  @ApiPropertyOptional({ ...F.viewport_height, default: R.viewportHeight.default }) @ViewportHeight() viewport_height?: number;
  @ApiPropertyOptional({ ...F.full_page, default: R.fullPageDefault }) @FullPage() full_page?: boolean;
  @ApiPropertyOptional({ ...F.status, default: 'active' }) @Status() status?: WebsiteStatus;
  @CaptureOptionsField() capture_options?: CaptureOptionsDto;
  @ChangeThreshold() change_threshold?: number;
  @ChangeIgnoreSelectors() change_ignore_selectors?: string[];
  @AlertWhenField() alert_when?: AlertWhenDto;
  @IgnoreText() ignore_text?: string[];
}

/** PUT is partial. Read-only fields a client echoes back from GET are accepted and ignored. */
@ApiSchema({
  description: 'Any subset of the fields. Read-only fields echoed back from GET (id, last_screenshot_at, created_at, updated_at) are accepted and ignored.',
})
@AlsoChecks(urlErrors)
@BodyRequired()
export class UpdateWebsiteDto {
  @ApiPropertyOptional(F.name) @OptionalField() @Name() name?: string;
  @ApiPropertyOptional(F.url) @OptionalField() @Url() url?: string;
  @ApiPropertyOptional(F.viewport_width) @ViewportWidth() viewport_width?: number;
  @ApiPropertyOptional(F.viewport_height) @ViewportHeight() viewport_height?: number;
  @ApiPropertyOptional(F.full_page) @FullPage() full_page?: boolean;
  @ApiPropertyOptional(F.status) @Status() status?: WebsiteStatus;
  @CaptureOptionsField() capture_options?: CaptureOptionsDto;
  @ChangeThreshold() change_threshold?: number;
  @ChangeIgnoreSelectors() change_ignore_selectors?: string[];
  @AlertWhenField() alert_when?: AlertWhenDto;
  @IgnoreText() ignore_text?: string[];

  @OptionalField() @IsInt() id?: number;
  @OptionalField() last_screenshot_at?: unknown;
  @OptionalField() created_at?: unknown;
  @OptionalField() updated_at?: unknown;
}

export function websiteView(w: WebsiteProps, withLastScreenshot = true): WebsiteView {
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    viewport_width: w.viewportWidth,
    viewport_height: w.viewportHeight,
    full_page: w.fullPage,
    status: w.status,
    capture_options: captureOptionsView(w.captureOptions),
    change_threshold: w.changeThreshold,
    change_ignore_selectors: w.changeIgnoreSelectors,
    alert_when: { ...w.alertWhen },
    ignore_text: w.ignoreText,
    ...(withLastScreenshot ? { last_screenshot_at: w.lastScreenshotAt?.toISOString() ?? null } : {}),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

/**
 * A validated body in the domain's names, beside the DTOs it maps: the dashboard's website forms use the same DTOs
 * and this mapping (a context's http reaches another's only through its dto files, .dependency-cruiser.cjs).
 */
export function toChanges(dto: CreateWebsiteDto | UpdateWebsiteDto): WebsiteChanges {
  const changes: WebsiteChanges = {};
  if (dto.name !== undefined) changes.name = dto.name;
  if (dto.url !== undefined) changes.url = dto.url;
  if (dto.viewport_width !== undefined) changes.viewportWidth = dto.viewport_width;
  if (dto.viewport_height !== undefined) changes.viewportHeight = dto.viewport_height;
  if (dto.full_page !== undefined) changes.fullPage = dto.full_page;
  if (dto.status !== undefined) changes.status = dto.status;
  if (dto.capture_options !== undefined) changes.captureOptions = toCaptureOptions(dto.capture_options);
  if (dto.change_threshold !== undefined) changes.changeThreshold = dto.change_threshold;
  if (dto.change_ignore_selectors !== undefined) changes.changeIgnoreSelectors = dto.change_ignore_selectors;
  if (dto.alert_when !== undefined) changes.alertWhen = toAlertWhen(dto.alert_when);
  if (dto.ignore_text !== undefined) changes.ignoreText = dto.ignore_text;
  return changes;
}

/** Only the fields sent (a DTO instance may carry undefined ones), in the stored wire shape. */
function toAlertWhen(dto: AlertWhenDto): AlertWhen {
  const when: AlertWhen = {};
  if (dto.text_contains !== undefined) when.text_contains = dto.text_contains;
  if (dto.text_missing !== undefined) when.text_missing = dto.text_missing;
  if (dto.min_changed_ratio !== undefined) when.min_changed_ratio = dto.min_changed_ratio;
  if (dto.text_only !== undefined) when.text_only = dto.text_only;
  return when;
}
