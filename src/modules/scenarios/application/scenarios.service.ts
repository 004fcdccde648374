import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { Page, PageRequest } from '../../../shared/domain/page-request';
import { UrlPolicy } from '../../../shared/url-policy';
import { JobEvents } from '../../jobs/application/job-events';
import { JobProps, JobSource } from '../../jobs/domain/job';
import { readWhenFinished } from '../../jobs/application/job-wait';
import { JobsService } from '../../jobs/application/jobs.service';
import { JobRepository } from '../../jobs/application/ports';
import { ScreenshotRepository } from '../../screenshots/application/ports';
import { checkSessionId, SavedSessionIds } from '../../screenshots/application/saved-sessions.port';
import { WebsiteRepository } from '../../websites/application/ports';
import { initialStepRecords } from '../domain/execution';
import { runSession, ScenarioChanges, ScenarioProps } from '../domain/scenario';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { keepStepSecrets, sealStepSecrets } from '../domain/step-secrets';
import { parseSteps, Step, urlCheckerFromPolicy } from '../domain/steps';
import { ScenarioRepository } from './ports';

export interface ScenarioInput {
  name?: string;
  description?: string | null;
  websiteId?: number;
  /** One of the account's saved sessions; null: none of its own (the website's). */
  sessionId?: number | null;
  steps?: unknown;
}

/** Who asks for a run: the API by default; a schedule's runs name it. */
export interface RunOrigin {
  source: JobSource;
  scheduleId: number | null;
  /** The asker's own saved session (a schedule's session_id): wins the scenario's and the website's. */
  sessionId?: number | null;
}

export interface Execution {
  job: JobProps;
  screenshotIds: number[];
}

/** Scenarios of an account, and their runs (executions are jobs of type 'scenario'). */
@Injectable()
export class ScenariosService {
  constructor(
    private readonly scenarios: ScenarioRepository,
    private readonly websites: WebsiteRepository,
    private readonly jobs: JobRepository,
    private readonly screenshots: ScreenshotRepository,
    private readonly jobsService: JobsService,
    private readonly urlPolicy: UrlPolicy,
    private readonly clock: Clock,
    private readonly events: JobEvents,
    private readonly secretBox: SecretBox,
    private readonly sessions: SavedSessionIds,
  ) {}

  private async checkWebsite(accountId: number, websiteId: number): Promise<void> {
    if (!(await this.websites.findOwned(accountId, websiteId))) {
      throw ValidationFailedError.of('website_id', 'website_id must be the id of one of your websites');
    }
  }

  /** Parsed steps; a secret fill sent back as "********" takes its value from `stored` (none for a new scenario). */
  private parse(steps: unknown, stored: readonly Step[] | null): Step[] {
    return keepStepSecrets(parseSteps(steps, urlCheckerFromPolicy(this.urlPolicy)), stored);
  }

  async create(accountId: number, input: Required<Pick<ScenarioInput, 'name' | 'websiteId'>> & ScenarioInput): Promise<ScenarioProps> {
    const steps = this.parse(input.steps, null);
    await this.checkWebsite(accountId, input.websiteId);
    await checkSessionId(this.sessions, accountId, input.sessionId);
    return this.scenarios.create(
      {
        accountId,
        websiteId: input.websiteId,
        name: input.name,
        description: input.description ?? null,
        status: 'active',
        steps,
        sessionId: input.sessionId ?? null,
      },
      this.clock.now(),
    );
  }

  async get(accountId: number, id: number): Promise<ScenarioProps> {
    const scenario = await this.scenarios.findOwned(accountId, id);
    if (!scenario) throw new NotFoundError('Scenario');
    return scenario;
  }

  list(accountId: number, page: PageRequest, filter: { websiteId?: number }) {
    return this.scenarios.list(accountId, page, filter);
  }

  /** Partial update; `steps`, when sent, replaces the whole list. */
  async update(accountId: number, id: number, input: ScenarioInput): Promise<ScenarioProps> {
    const current = await this.get(accountId, id);
    const changes: ScenarioChanges = {};
    if (input.steps !== undefined) changes.steps = this.parse(input.steps, current.steps);
    if (input.websiteId !== undefined) {
      await this.checkWebsite(accountId, input.websiteId);
      changes.websiteId = input.websiteId;
    }
    if (input.sessionId !== undefined) {
      await checkSessionId(this.sessions, accountId, input.sessionId);
      changes.sessionId = input.sessionId;
    }
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    return this.scenarios.update(id, changes, this.clock.now());
  }

  async delete(accountId: number, id: number): Promise<void> {
    await this.get(accountId, id);
    await this.scenarios.delete(id);
  }

  /** The account's scenarios that name the saved session `sessionId` as their own session_id. */
  usingSession(accountId: number, sessionId: number): Promise<Array<{ id: number; name: string }>> {
    return this.scenarios.usingSession(accountId, sessionId);
  }

  /**
   * Queues a run durably (job row first, then the transport) and returns the execution id. The steps are
   * snapshotted into the job, so editing the scenario later never changes a run already asked for; secret fill
   * values are sealed in the snapshot as in the scenario's row (the runner opens them). `origin`: who asked (a
   * schedule's occurrence or Run now names its schedule). The saved session the run starts with is snapshotted too:
   * the asker's (a schedule's session_id), else the scenario's; neither: the website's, read when the run starts.
   */
  async run(accountId: number, id: number, idempotencyKey: string | null, origin: RunOrigin = { source: 'api', scheduleId: null }): Promise<JobProps> {
    const scenario = await this.get(accountId, id);
    return this.jobsService.submit({
      id: randomUUID(),
      type: 'scenario',
      accountId,
      websiteId: scenario.websiteId,
      scenarioId: scenario.id,
      source: origin.source,
      scheduleId: origin.scheduleId,
      options: {
        steps: sealStepSecrets(scenario.steps, (plain) => this.secretBox.seal(plain)),
        ...runSession(origin.sessionId ?? null, scenario.sessionId),
      },
      idempotencyKey,
      result: initialStepRecords(scenario.steps),
      createdAt: this.clock.now(),
    });
  }

  async execution(accountId: number, id: string): Promise<Execution> {
    const job = await this.jobs.findOwned(accountId, id);
    if (!job || job.type !== 'scenario') throw new NotFoundError('Execution');
    return { job, screenshotIds: (await this.screenshots.listForExecution(job.id)).map((s) => s.id) };
  }

  /** The execution once its run has ended, or after `waitSeconds` as it is then (long-poll; 0 = at once). */
  executionWhenFinished(accountId: number, id: string, waitSeconds: number, clientGone: AbortSignal): Promise<Execution> {
    let promoted = false;
    return readWhenFinished(this.events, id, waitSeconds, clientGone, async () => {
      const execution = await this.execution(accountId, id);
      // A client waiting on a run still queued has it go ahead of batch jobs, as GET /jobs/{id}?wait does.
      if (!promoted && waitSeconds > 0) promoted = await this.jobsService.promoteWhileWaited(execution.job);
      return execution;
    });
  }

  async executions(accountId: number, scenarioId: number, page: PageRequest): Promise<Page<Execution>> {
    await this.get(accountId, scenarioId);
    const runs = await this.jobs.list(accountId, page, { type: 'scenario', scenarioId });
    const withShots = await Promise.all(
      runs.items.map(async (job) => ({ job, screenshotIds: (await this.screenshots.listForExecution(job.id)).map((s) => s.id) })),
    );
    return { ...runs, items: withShots }; // with the page's edges, for the links' cursors
  }
}
