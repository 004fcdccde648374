import { renderingFor } from '../../../shared/domain/capture-option-rules';
import { notAnsweredMessage } from '../../../shared/domain/capture-timeout';
import { Injectable, Logger } from '@nestjs/common';
import { CaptureFailure, ScenarioTab, CaptureResult, PageCapturer } from '../../screenshots/application/capture.port';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { UrlPolicy } from '../../../shared/url-policy';
import { JobRepository } from '../../jobs/application/ports';
import { ScreenshotRepository } from '../../screenshots/application/ports';
import { ScreenshotKeeper } from '../../screenshots/application/screenshot-keeper';
import { ScreenshotProps } from '../../screenshots/domain/screenshot';
import { HandlesJobs, JobTypeHandler } from '../../jobs/application/job-kinds';
import { SCENARIO_JOB_KIND } from './scenario-job-kind';
import { JobProps } from '../../jobs/domain/job';
import { WebsiteRepository } from '../../websites/application/ports';
import { WebsiteProps } from '../../websites/domain/website';
import { ExecutionBudget } from '../domain/execution-budget';
import { sessionOfRun } from '../domain/scenario';
import { initialStepRecords, redactFillValues, StepRecord } from '../domain/execution';
import { openStepSecrets, StoredStep } from '../domain/step-secrets';
import { scrollTargetOf, Step, waitForTimeoutOf } from '../domain/steps';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { within } from '../../../shared/domain/within';
import { SupersededAttemptError } from '../../jobs/application/ports';
import { SavedSessions } from '../../screenshots/application/saved-sessions.port';

/** What an execution shows for a failure of ours (database, storage, a bug); the detail goes to the log. */
export const INTERNAL_ERROR_MESSAGE = 'Internal error';
export const STORING_FAILED_MESSAGE = 'Storing the screenshot failed';
export const WEBSITE_DELETED_MESSAGE = 'Website was deleted';

/** A page problem during a run: ends the execution `failed`, never retried. */
function pageFailure(message: string): CaptureFailure {
  return new CaptureFailure('page', message);
}

/**
 * The page's own timeout and ours are both set from the time left, computed a few milliseconds apart; a
 * failure within this much of the cut-off is the cut-off's.
 */
const CAP_TIMERS_SLACK_MS = 100;

/**
 * Errors that end this attempt and are the dispatcher's to handle: a browser crash (retried), or a later
 * attempt having taken the job over (this one's result dropped).
 */
function isInfrastructure(err: unknown): boolean {
  return (err instanceof CaptureFailure && err.kind === 'infrastructure') || err instanceof SupersededAttemptError;
}

/** A failure of ours with a fixed public text; `detail` is for the log only. */
class InternalFailure extends Error {
  constructor(
    readonly publicMessage: string,
    readonly detail: unknown,
  ) {
    super(publicMessage);
  }
}

interface RunContext {
  job: JobProps;
  website: WebsiteProps;
  steps: Step[];
  budget: ExecutionBudget;
  /** The latest screenshot a `screenshot` step stored: the step's index, the row and whether it was full-page. */
  lastStepShot: { index: number; screenshotId: number; fullPage: boolean } | null;
}

/**
 * The run's final screenshot is the last step's own shot when that step is a `screenshot` step that succeeded,
 * nothing ran after it and it was taken as the final one would be (same full_page): a second capture of the same
 * page at the same moment would only store the same image twice (API.md, Scenarios).
 */
export function reusableFinalShot(ctx: Pick<RunContext, 'steps' | 'website' | 'lastStepShot'>, records: readonly StepRecord[]): number | null {
  const last = ctx.steps.length - 1;
  const shot = ctx.lastStepShot;
  if (last < 0 || shot === null || shot.index !== last || ctx.steps[last].type !== 'screenshot') return null;
  if (records[last]?.status !== 'succeeded' || shot.fullPage !== ctx.website.fullPage) return null;
  return shot.screenshotId;
}

/**
 * Runs a scenario execution: opens the website at its viewport in a fresh context, performs the steps in
 * order, stores one screenshot per `screenshot` step and always a final one — also after a failed step, to
 * show what went wrong. When the last step is a `screenshot` step taken as the final shot would be, its image
 * is the final screenshot (stored once; see reusableFinalShot). Every phase is bounded by the time left of SCENARIO_TIMEOUT_MS (ExecutionBudget),
 * which keeps a reserve for the final screenshot. Errors from the page are shown as they are (fill values
 * redacted); errors of ours (database, storage) show a fixed text and are logged. Fill values never reach
 * errors or logs.
 */
@Injectable()
@HandlesJobs(SCENARIO_JOB_KIND)
export class ScenarioRunner implements JobTypeHandler {
  private readonly logger = new Logger('ScenarioRunner');

  constructor(
    private readonly jobs: JobRepository,
    private readonly screenshots: ScreenshotRepository,
    private readonly screenshotStore: ScreenshotKeeper,
    private readonly websites: WebsiteRepository,
    private readonly capturer: PageCapturer,
    private readonly urlPolicy: UrlPolicy,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly secretBox: SecretBox,
    private readonly sessions: SavedSessions,
  ) {}

  async handle(job: JobProps): Promise<void> {
    // Started first: the cap covers the whole attempt, bookkeeping included.
    const budget = ExecutionBudget.start(this.config.scenarioTimeoutMs, Date.now());
    // Secret fill values are sealed in the job's snapshot (ScenariosService.run): opened only here, to be typed.
    const steps = openStepSecrets((job.options as { steps?: StoredStep[] }).steps ?? [], (sealed) => this.secretBox.open(sealed));
    const website = job.websiteId === null ? null : await this.websites.findById(job.websiteId);
    if (!website) {
      await this.jobs.fail(job.id, WEBSITE_DELETED_MESSAGE, this.clock.now());
      return;
    }
    // A retried attempt starts over: what an interrupted attempt stored goes first.
    for (const shot of await this.screenshots.listForExecution(job.id)) await this.screenshotStore.remove(shot);
    const ctx: RunContext = { job, website, steps, budget, lastStepShot: null };
    const records = initialStepRecords(steps);
    let failure: string | null = null;
    let finalShotId: number | null = null;

    // The website's saved capture options apply to the run: its device, user agent, locale and time zone, what
    // it blocks, its media emulation, and its wait_until for navigations and screenshots. (Output options — format,
    // selector, clip, css, scripts, clicks, removals, resizing — are for one-shot captures: a run's screenshots are
    // PNGs of what the steps left on screen.)
    const saved = website.captureOptions;
    // The saved session (session_id) the run starts logged in with: its schedule's, else its scenario's (both
    // snapshotted into the job, ScenariosService.run), else the website's. One that cannot be used fails the run in words.
    const sessionId = sessionOfRun((job.options as { sessionId?: number }).sessionId, saved.sessionId);
    let session;
    try {
      session = sessionId === undefined ? undefined : await this.sessions.resolve(job.accountId, sessionId);
    } catch (err) {
      if (!(err instanceof CaptureFailure) || err.kind !== 'page') throw err;
      await this.jobs.fail(job.id, err.message, this.clock.now());
      return;
    }
    const rendering = renderingFor(saved, { viewportWidth: website.viewportWidth, viewportHeight: website.viewportHeight, deviceScaleFactor: 1 });
    const pageOptions = {
      ...rendering,
      waitUntil: saved.waitUntil,
      blockResources: saved.blockResources,
      blockAds: saved.blockAds,
      blockTrackers: saved.blockTrackers,
      blockChatWidgets: saved.blockChatWidgets,
      blockRequests: saved.blockRequests,
      reducedMotion: saved.reducedMotion,
      mediaType: saved.mediaType,
      // Logged-in flows: the website's headers, cookies and credentials, for its own host only.
      secrets: saved.secrets,
      siteUrl: website.url,
      session: session ? { state: session.state } : undefined,
      openTimeoutMs: this.forSteps(ctx),
    };
    await this.capturer.withPage(pageOptions, async (page) => {
      failure = await this.open(page, ctx);
      for (let i = 0; i < steps.length && failure === null; i++) {
        failure = await this.performStep(page, ctx, records[i], steps[i]);
        await this.jobs.saveResult(job.id, records);
      }
      for (const record of records) if (record.status === 'pending') record.status = 'skipped';
      if (failure === null) finalShotId = reusableFinalShot(ctx, records);
      if (finalShotId !== null) return;
      try {
        const limit = Math.min(this.config.captureTimeoutMs, budget.forFinalScreenshot(Date.now()));
        const result = await within(page.screenshot({ fullPage: website.fullPage }), limit, () => pageFailure('The final screenshot timed out'));
        finalShotId = (await this.storeScreenshot(ctx, result, website.fullPage)).id;
      } catch (err) {
        if (isInfrastructure(err)) throw err;
        failure ??= `Final screenshot failed: ${this.publicMessage(ctx, err)}`;
      }
    });

    await this.jobs.saveResult(job.id, records);
    if (failure !== null) await this.jobs.fail(job.id, failure, this.clock.now());
    else await this.jobs.succeed(job.id, finalShotId, this.clock.now());
  }

  /** Time left for opening the page and the steps (the final screenshot's reserve excluded). */
  private forSteps(ctx: RunContext): number {
    return ctx.budget.forSteps(Date.now());
  }

  /**
   * The text an execution shows for an error. A CaptureFailure comes from the page or the browser (a
   * selector that never appeared, a navigation error, a timeout) and is shown as it is, fill values redacted.
   * Anything else is ours — a database constraint, a storage path, a bug — and must not reach the client:
   * it gets a fixed text, and the detail goes to the log.
   */
  private publicMessage(ctx: RunContext, err: unknown): string {
    if (err instanceof CaptureFailure) return redactFillValues(err.message, ctx.steps);
    const publicText = err instanceof InternalFailure ? err.publicMessage : INTERNAL_ERROR_MESSAGE;
    const cause = err instanceof InternalFailure ? err.detail : err;
    const detail = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
    this.logger.error(`execution ${ctx.job.id}: ${publicText}: ${redactFillValues(detail, ctx.steps)}`);
    return publicText;
  }

  /** Stores a screenshot of the run; a failure is ours, told apart only when the website went away meanwhile. */
  private async storeScreenshot(ctx: RunContext, result: CaptureResult, fullPage: boolean): Promise<ScreenshotProps> {
    try {
      return await this.screenshotStore.store(
        { accountId: ctx.job.accountId, websiteId: ctx.website.id, jobId: null, scenarioId: ctx.job.scenarioId, executionId: ctx.job.id, fullPage },
        result,
        this.clock.now(),
      );
    } catch (err) {
      if (err instanceof SupersededAttemptError) throw err;
      // A website deleted during the run makes the insert fail on its foreign key; say what happened instead.
      const gone = await this.websites.findById(ctx.website.id).then(
        (website) => website === null,
        () => false,
      );
      throw new InternalFailure(gone ? WEBSITE_DELETED_MESSAGE : STORING_FAILED_MESSAGE, err);
    }
  }

  private async checkUrl(url: string): Promise<void> {
    const verdict = await this.urlPolicy.check(url);
    if (!verdict.allowed) throw pageFailure(`blocked by URL policy: ${verdict.reason}`);
  }

  /** Opens the website's URL; returns a failure text or null. */
  private async open(page: ScenarioTab, ctx: RunContext): Promise<string | null> {
    let cutOffAt: number | null = null;
    try {
      await this.checkUrl(ctx.website.url);
      const left = this.forSteps(ctx);
      const timeout = Math.min(this.config.captureTimeoutMs, left);
      // A second's slack lets the page's own timeout speak first, but never past the time left.
      const limit = Math.min(timeout + 1000, left);
      if (limit < timeout + 1000) cutOffAt = Date.now() + limit;
      const reason = cutOffAt !== null ? this.capExceeded() : notAnsweredMessage(timeout);
      await within(page.goto(ctx.website.url, timeout), limit, () => pageFailure(reason));
      return null;
    } catch (err) {
      if (isInfrastructure(err)) throw err;
      return `Opening the website failed: ${this.failureText(ctx, err, cutOffAt)}`;
    }
  }

  /**
   * The public text of a failure. When the time limit cut the operation short (`cutOffAt` set) and it failed
   * at that moment, the limit is the cause — whichever timer happened to fire first, the page's own
   * (clamped to the same time left) or ours.
   */
  private failureText(ctx: RunContext, err: unknown, cutOffAt: number | null): string {
    if (cutOffAt !== null && Date.now() >= cutOffAt - CAP_TIMERS_SLACK_MS) return this.capExceeded();
    return this.publicMessage(ctx, err);
  }

  private capExceeded(): string {
    return `Scenario exceeded its time limit of ${this.config.scenarioTimeoutMs} ms`;
  }

  /** Runs one step, recording status and duration; returns a failure text or null. */
  private async performStep(page: ScenarioTab, ctx: RunContext, record: StepRecord, step: Step): Promise<string | null> {
    record.status = 'running';
    const started = Date.now();
    let cutOffAt: number | null = null;
    try {
      const limit = Math.min(this.stepTimeout(step), this.forSteps(ctx));
      if (limit < this.stepTimeout(step)) cutOffAt = started + limit;
      const reason = cutOffAt !== null ? this.capExceeded() : `Step timed out after ${limit} ms`;
      await within(this.perform(page, ctx, step, record.index), limit, () => pageFailure(reason));
      record.status = 'succeeded';
      return null;
    } catch (err) {
      if (isInfrastructure(err)) throw err;
      record.status = 'failed';
      record.error = this.failureText(ctx, err, cutOffAt);
      return `Step ${record.index} (${step.type}) failed: ${record.error}`;
    } finally {
      record.duration_ms = Date.now() - started;
    }
  }

  private stepTimeout(step: Step): number {
    switch (step.type) {
      case 'navigate':
      case 'screenshot':
        return this.config.captureTimeoutMs + 1000;
      case 'wait':
        return step.duration + 1000;
      case 'wait_for':
        return waitForTimeoutOf(step) + 1000;
      default:
        // Element steps time out inside the page first (with a message naming the selector); this is the backstop.
        return this.config.scenarioStepTimeoutMs + 1000;
    }
  }

  private async perform(page: ScenarioTab, ctx: RunContext, step: Step, index: number): Promise<void> {
    // Element waits end with the step's own budget, so nothing keeps trying in the page after it failed.
    const elementTimeout = Math.min(this.config.scenarioStepTimeoutMs, this.forSteps(ctx));
    switch (step.type) {
      case 'navigate':
        await this.checkUrl(step.url);
        return page.goto(step.url, Math.min(this.config.captureTimeoutMs, this.forSteps(ctx)));
      case 'fill':
        return page.fill(step.selector, step.value, elementTimeout);
      case 'click':
        return page.click(step.selector, elementTimeout);
      case 'wait':
        // Unref'd: a wait the time limit cut short must not keep the process alive for the rest of it.
        return new Promise((resolve) => setTimeout(resolve, step.duration).unref());
      case 'wait_for':
        return page.waitForSelector(step.selector, Math.min(waitForTimeoutOf(step), this.forSteps(ctx)));
      case 'hover':
        return page.hover(step.selector, elementTimeout);
      case 'press':
        return page.press(step.key);
      case 'select':
        return page.select(step.selector, step.value, elementTimeout);
      case 'scroll':
        return page.scrollTo(scrollTargetOf(step), elementTimeout);
      case 'screenshot': {
        const fullPage = step.full_page ?? ctx.website.fullPage;
        const result = await page.screenshot({ fullPage });
        const shot = await this.storeScreenshot(ctx, result, fullPage);
        ctx.lastStepShot = { index, screenshotId: shot.id, fullPage };
        return;
      }
    }
  }
}
