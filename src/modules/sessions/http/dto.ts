import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsArray, IsObject, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { CookieDto } from '../../../shared/http/capture-option-fields';
import { MaxEntries, NestedDto } from '../../../shared/http/body-bounds';
import { TIMESTAMP } from '../../../shared/http/openapi';
import { BodyRequired, IsCssSelector, IsId, MAX_ID, OptionalField, SingleLineName } from '../../../shared/http/validation';
import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { cookieDomains, cookieSummaries, SESSION_STATE_LIMITS, sessionOrigins, type CookieSummary } from '../../../shared/domain/session-state';
import type { SessionFrom } from '../application/sessions.service';
import { SESSION_LIMITS, SESSION_SOURCES, SESSION_STATUSES, type SavedSessionProps, type SessionSource, type SessionStatus } from '../domain/saved-session';

@ApiSchema({ name: 'StorageState', description: 'A Playwright storage state (`context.storageState()`): cookies and origins with their localStorage' })
export class StorageStateDto {
  @ApiPropertyOptional({
    type: 'array',
    maxItems: SESSION_STATE_LIMITS.cookies,
    items: {
      type: 'object',
      example: { name: 'sid', value: 'abc123', domain: 'shop.example.com', path: '/', expires: -1, httpOnly: true, secure: true, sameSite: 'Lax' },
    },
  })
  @OptionalField()
  @IsArray()
  @MaxEntries(SESSION_STATE_LIMITS.cookies)
  cookies?: unknown[];

  @ApiPropertyOptional({
    type: 'array',
    maxItems: SESSION_STATE_LIMITS.origins,
    items: { type: 'object', example: { origin: 'https://shop.example.com', localStorage: [{ name: 'token', value: 'eyJ…' }] } },
  })
  @OptionalField()
  @IsArray()
  @MaxEntries(SESSION_STATE_LIMITS.origins)
  origins?: unknown[];
}

@ApiSchema({ name: 'SessionFrom', description: 'Where the session’s state comes from: exactly one of these' })
export class SessionFromDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_ID,
    example: 3,
    description: 'A login scenario of yours: its steps run (the session is `pending` until they did) and the browser state is kept',
  })
  @OptionalField()
  @IsId()
  scenario_id?: number;

  @ApiPropertyOptional({
    type: [CookieDto],
    maxItems: SESSION_STATE_LIMITS.cookies,
    description: 'Cookie objects as in the capture options; each names its `domain`',
  })
  @OptionalField()
  @IsArray()
  @MaxEntries(SESSION_STATE_LIMITS.cookies)
  @ValidateNested({ each: true })
  @NestedDto(() => CookieDto)
  cookies?: CookieDto[];

  @ApiPropertyOptional({
    type: 'string',
    maxLength: SESSION_STATE_LIMITS.textMax,
    example: '# Netscape HTTP Cookie File\n.shop.example.com\tTRUE\t/\tTRUE\t1799999999\tsid\tabc123',
    description: 'A Netscape cookies.txt, as browser extensions and curl export it',
  })
  @OptionalField()
  @IsString()
  @MaxLength(SESSION_STATE_LIMITS.textMax)
  cookies_txt?: string;

  @ApiPropertyOptional({ type: StorageStateDto })
  @OptionalField()
  @IsObject()
  @ValidateNested()
  @NestedDto(() => StorageStateDto)
  storage_state?: StorageStateDto;
}

@ApiSchema({ name: 'SessionInput', description: 'A new saved session' })
@BodyRequired()
export class CreateSessionDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: SESSION_LIMITS.nameMax, example: 'Shop' })
  @IsString()
  @MinLength(1)
  @MaxLength(SESSION_LIMITS.nameMax)
  @SingleLineName()
  name!: string;

  @ApiPropertyOptional({
    type: 'string',
    format: 'css-selector',
    example: '#account-menu',
    description:
      'A CSS selector only a logged-in page has. Missing after load: a session from a scenario logs in again once and the capture is retried; any other fails `session_expired`',
  })
  @OptionalField()
  @IsString()
  @MaxLength(1024)
  @IsCssSelector()
  logged_in_selector?: string;

  @ApiProperty({ type: SessionFromDto })
  @IsObject()
  @ValidateNested()
  @NestedDto(() => SessionFromDto)
  from!: SessionFromDto;
}

/** `from` as the service takes it; exactly one source, else a 422 naming `from`. */
export function sessionFrom(dto: SessionFromDto): SessionFrom {
  const given = (['scenario_id', 'cookies', 'cookies_txt', 'storage_state'] as const).filter((key) => dto[key] !== undefined);
  if (given.length !== 1)
    throw ValidationFailedError.of(
      'from',
      `from must have exactly one of scenario_id, cookies, cookies_txt or storage_state${given.length > 1 ? ` (got ${given.join(', ')})` : ''}`,
    );
  return {
    ...(dto.scenario_id !== undefined ? { scenarioId: dto.scenario_id } : {}),
    ...(dto.cookies !== undefined
      ? {
          cookies: dto.cookies.map((c) => ({
            name: c.name,
            value: c.value,
            ...(c.domain !== undefined ? { domain: c.domain } : {}),
            ...(c.path !== undefined ? { path: c.path } : {}),
            ...(c.secure !== undefined ? { secure: c.secure } : {}),
            ...(c.http_only !== undefined ? { httpOnly: c.http_only } : {}),
            ...(c.same_site !== undefined ? { sameSite: c.same_site } : {}),
          })),
        }
      : {}),
    ...(dto.cookies_txt !== undefined ? { cookiesTxt: dto.cookies_txt } : {}),
    ...(dto.storage_state !== undefined ? { storageState: { cookies: dto.storage_state.cookies, origins: dto.storage_state.origins } } : {}),
  };
}

class CookieSummaryView implements CookieSummary {
  @ApiProperty({ type: 'string', example: 'sid' }) name!: string;
  @ApiProperty({ type: 'string', example: '.shop.example.com', description: 'A leading dot: sent to the domain and its subdomains' }) domain!: string;
  @ApiProperty({ type: 'string', example: '/' }) path!: string;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'null: a session cookie' }) expires!: string | null;
}

@ApiSchema({ name: 'Session', description: 'A saved session; cookie values and storage are never shown' })
export class SessionView {
  @ApiProperty({ type: 'integer', example: 1 }) id!: number;
  @ApiProperty({ type: 'string', example: 'Shop' }) name!: string;
  @ApiProperty({ enum: SESSION_STATUSES, description: '`pending`: its login has not run yet; `failed`: see `error`' }) status!: SessionStatus;
  @ApiProperty({ enum: SESSION_SOURCES }) source!: SessionSource;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The login scenario (source `scenario`)' }) scenario_id!: number | null;
  @ApiProperty({ type: 'string', nullable: true, example: '#account-menu' }) logged_in_selector!: string | null;
  @ApiProperty({ type: 'array', items: { type: 'string', example: 'https://shop.example.com' }, description: 'The origins whose storage it keeps' })
  origins!: string[];
  @ApiProperty({ type: 'array', items: { type: 'string', example: 'shop.example.com' }, description: 'The domains its cookies go to' })
  domains!: string[];
  @ApiProperty({ type: 'integer', example: 3 }) cookie_count!: number;
  @ApiProperty({ type: [CookieSummaryView], description: 'Names, domains, paths and expiry; never a value' }) cookies!: CookieSummaryView[];
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When its state was last made (a login ran, or it was created from cookies)' })
  refreshed_at!: string | null;
  @ApiProperty({ type: 'integer', description: 'How many times a capture found it logged out and it logged in again' }) refresh_count!: number;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When its first expiring cookie expires; null when none does' }) expires_at!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why its last login failed' }) error!: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty(TIMESTAMP) updated_at!: string;
}

export function sessionView(session: SavedSessionProps): SessionView {
  const state = session.state ?? { cookies: [], origins: [] };
  return {
    id: session.id,
    name: session.name,
    status: session.status,
    source: session.source,
    scenario_id: session.scenarioId,
    logged_in_selector: session.loggedInSelector,
    origins: sessionOrigins(state),
    domains: cookieDomains(state),
    cookie_count: state.cookies.length,
    cookies: cookieSummaries(state),
    refreshed_at: session.refreshedAt?.toISOString() ?? null,
    refresh_count: session.refreshCount,
    expires_at: session.expiresAt?.toISOString() ?? null,
    error: session.error,
    created_at: session.createdAt.toISOString(),
    updated_at: session.updatedAt.toISOString(),
  };
}
