import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import type { CookieSpec } from '../../../shared/domain/capture-secrets';
import { ConflictError, NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import type { PageRequest } from '../../../shared/domain/page-request';
import {
  sessionExpiresAt,
  stateFromCookieSpecs,
  stateFromCookiesTxt,
  stateFromStorageState,
  type Parsed,
  type SessionState,
} from '../../../shared/domain/session-state';
import { JobsService } from '../../jobs/application/jobs.service';
import { ScenariosService } from '../../scenarios/application/scenarios.service';
import { SchedulesService } from '../../schedules/application/schedules.service';
import { WebsiteRepository } from '../../websites/application/ports';
import { canLogInAgain, SESSION_LIMITS, type SavedSessionProps, type SessionSource } from '../domain/saved-session';
import { SavedSessionRepository } from './ports';
import { SESSION_LOGIN_JOB_KIND } from './session-login-job-kind';

/** Where a new session's state comes from: exactly one of these (the DTO checks it). */
export interface SessionFrom {
  scenarioId?: number;
  cookies?: CookieSpec[];
  cookiesTxt?: string;
  storageState?: unknown;
}

export interface SessionInput {
  name: string;
  loggedInSelector: string | null;
  from: SessionFrom;
}

/** At most this many schedules are listed as a session's users (an account may have thousands on its websites). */
export const SESSION_USE_SCHEDULES = 50;

/**
 * Who uses a session: the websites whose saved capture options name it, the scenarios and schedules naming it as
 * their own session_id, and (`direct: false`) the schedules without one of their own on those websites. The dashboard
 * shows them all; a delete is refused while a website, a scenario or a schedule names it.
 */
export interface SessionUse {
  websites: Array<{ id: number; name: string }>;
  scenarios: Array<{ id: number; name: string }>;
  schedules: Array<{ id: number; name: string; direct: boolean }>;
}

/** "the website 'Shop' (7), the schedule 'Nightly' (3)": what names a session, in words. */
export function sessionUsersInWords(use: Pick<SessionUse, 'websites' | 'scenarios'> & { schedules: Array<{ id: number; name: string }> }): string {
  const group = (kind: string, items: Array<{ id: number; name: string }>) =>
    items.length === 0 ? [] : [`the ${kind}${items.length > 1 ? 's' : ''} ${items.map((i) => `'${i.name}' (${i.id})`).join(', ')}`];
  const parts = [...group('website', use.websites), ...group('scenario', use.scenarios), ...group('schedule', use.schedules)];
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** The /sessions routes: an account's saved sessions, their state sealed at rest, never shown. */
@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: SavedSessionRepository,
    private readonly scenarios: ScenariosService,
    private readonly schedules: SchedulesService,
    private readonly websites: WebsiteRepository,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
  ) {}

  async create(accountId: number, input: SessionInput): Promise<SavedSessionProps> {
    await this.assertNameFree(accountId, input.name);
    const { from } = input;
    let source: SessionSource;
    let state: SessionState | null = null;
    let scenarioId: number | null = null;
    if (from.scenarioId !== undefined) {
      source = 'scenario';
      await this.scenarios.get(accountId, from.scenarioId).catch(() => {
        throw ValidationFailedError.of('from.scenario_id', 'from.scenario_id must be the id of one of your scenarios');
      });
      scenarioId = from.scenarioId;
    } else {
      let parsed: Parsed;
      if (from.cookies !== undefined) [source, parsed] = ['cookies', stateFromCookieSpecs(from.cookies)];
      else if (from.cookiesTxt !== undefined) [source, parsed] = ['cookies_txt', stateFromCookiesTxt(from.cookiesTxt)];
      else [source, parsed] = ['storage_state', stateFromStorageState(from.storageState)];
      if (!parsed.state) throw new ValidationFailedError(parsed.problems);
      state = parsed.state;
    }
    const session = await this.sessions.createWithinLimit(
      accountId,
      {
        name: input.name,
        loggedInSelector: input.loggedInSelector,
        source,
        scenarioId,
        status: state ? 'ready' : 'pending',
        state,
        expiresAt: state ? sessionExpiresAt(state) : null,
      },
      this.clock.now(),
      SESSION_LIMITS.perAccount,
    );
    if (!session) throw ValidationFailedError.of('name', `an account can have at most ${SESSION_LIMITS.perAccount} saved sessions`);
    if (source === 'scenario') await this.submitLogin(session);
    return session;
  }

  list(accountId: number, page: PageRequest) {
    return this.sessions.list(accountId, page);
  }

  listAll(accountId: number): Promise<SavedSessionProps[]> {
    return this.sessions.listAll(accountId);
  }

  async get(accountId: number, id: number): Promise<SavedSessionProps> {
    const session = await this.sessions.findOwned(accountId, id);
    if (!session) throw new NotFoundError('Session');
    return session;
  }

  async uses(accountId: number, id: number): Promise<SessionUse> {
    const websites = await this.websites.usingSession(accountId, id);
    const scenarios = await this.scenarios.usingSession(accountId, id);
    const websiteIds = websites.map((w) => w.id);
    const schedules = await this.schedules.usingSession(accountId, id, websiteIds, SESSION_USE_SCHEDULES);
    return { websites, scenarios, schedules };
  }

  /** Runs the login scenario again (a job: the session is `pending` until it ran). Only a scenario's session can. */
  async refresh(accountId: number, id: number): Promise<SavedSessionProps> {
    const session = await this.get(accountId, id);
    if (!canLogInAgain(session))
      throw new ConflictError(
        `The saved session '${session.name}' was made from ${session.source === 'scenario' ? 'a scenario since deleted' : 'cookies'}: it cannot log in by itself; create it again from fresh cookies or from a login scenario`,
      );
    await this.sessions.markPending(id, this.clock.now());
    await this.submitLogin(session);
    return this.get(accountId, id);
  }

  /**
   * Refused (409, naming them) while a website's capture options, a scenario or a schedule name it: their captures
   * and runs would fail from then on. (A schedule that only captures such a website goes once the website lets go.)
   */
  async delete(accountId: number, id: number): Promise<void> {
    const session = await this.get(accountId, id);
    const use = await this.uses(accountId, id);
    const naming = { websites: use.websites, scenarios: use.scenarios, schedules: use.schedules.filter((s) => s.direct) };
    if (naming.websites.length + naming.scenarios.length + naming.schedules.length > 0) {
      const others = naming.scenarios.length + naming.schedules.length > 0;
      const what = !others
        ? 'remove session_id from their capture options'
        : naming.websites.length
          ? 'remove session_id from the websites’ capture options and from the others'
          : 'remove their session_id';
      throw new ConflictError(`The saved session '${session.name}' is used by ${sessionUsersInWords(naming)}: ${what} first`);
    }
    await this.sessions.delete(id);
  }

  private async submitLogin(session: SavedSessionProps): Promise<void> {
    await this.jobs.submit({
      id: randomUUID(),
      type: SESSION_LOGIN_JOB_KIND.name,
      accountId: session.accountId,
      websiteId: null,
      source: 'api',
      options: { sessionId: session.id },
      idempotencyKey: null,
      createdAt: this.clock.now(),
    });
  }

  private async assertNameFree(accountId: number, name: string): Promise<void> {
    if (await this.sessions.findByName(accountId, name)) throw new ConflictError(`A saved session named '${name}' already exists`);
  }
}
