import { Injectable, OnModuleInit } from '@nestjs/common';
import { CaptureFailure, CapturePage, CaptureResult, PageCapturer } from '../../../adapters/capture/capture.port';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { UrlPolicy } from '../../../shared/url-policy';
import { JobDispatcher } from '../../screenshots/application/job-dispatcher';
import { JobRepository, ScreenshotRepository } from '../../screenshots/application/ports';
import { ScreenshotStore } from '../../screenshots/application/screenshot-store';
import { JobProps } from '../../screenshots/domain/job';
import { WebsiteRepository } from '../../websites/application/ports';
import { WebsiteProps } from '../../websites/domain/website';
import { initialStepRecords, redactFillValues, StepRecord } from '../domain/execution';
import { scrollTargetOf, Step, waitForTimeoutOf } from '../domain/steps';

/** A page problem during a run: ends the execution `failed`, never retried. */
function pageFailure(message: string): CaptureFailure {
  return new CaptureFailure('page', message);
}

function isInfrastructure(err: unknown): boolean {
  return err instanceof CaptureFailure && err.kind === 'infrastructure';
}

async function bounded<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => undefined);
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(pageFailure(message)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

interface RunContext {
  job: JobProps;
  website: WebsiteProps;
  steps: Step[];
  deadline: number;
}

/**
 * Runs a scenario execution: opens the website at its viewport in a fresh context, performs the steps in
 * order (each bounded, the whole run bounded by SCENARIO_TIMEOUT_MS), stores one screenshot per
 * `screenshot` step and always a final one — also after a failed step, to show what went wrong.
 * Fill values never reach errors or logs.
 */
@Injectable()
export class ScenarioRunner implements OnModuleInit {
  constructor(
    private readonly jobs: JobRepository,
    private readonly screenshots: ScreenshotRepository,
    private readonly screenshotStore: ScreenshotStore,
    private readonly websites: WebsiteRepository,
    private readonly capturer: PageCapturer,
    private readonly dispatcher: JobDispatcher,
    private readonly urlPolicy: UrlPolicy,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.dispatcher.register('scenario', (job) => this.run(job));
  }

  async run(job: JobProps): Promise<void> {
    const steps = ((job.options as { steps?: Step[] }).steps ?? []) as Step[];
    const website = job.websiteId === null ? null : await this.websites.findById(job.websiteId);
    if (!website) {
      await this.jobs.fail(job.id, 'Website was deleted', this.clock.now());
      return;
    }
    // A retried attempt starts over: what an interrupted attempt stored goes first.
    for (const shot of await this.screenshots.listForExecution(job.id)) await this.screenshotStore.remove(shot);
    const ctx: RunContext = { job, website, steps, deadline: Date.now() + this.config.scenarioTimeoutMs };
    const records = initialStepRecords(steps);
    let failure: string | null = null;
    let finalShotId: number | null = null;

    await this.capturer.withPage({ viewportWidth: website.viewportWidth, viewportHeight: website.viewportHeight }, async (page) => {
      failure = await this.open(page, ctx);
      for (let i = 0; i < steps.length && failure === null; i++) {
        failure = await this.performStep(page, ctx, records[i], steps[i]);
        await this.jobs.saveResult(job.id, records);
      }
      for (const record of records) if (record.status === 'pending') record.status = 'skipped';
      try {
        const result = await bounded(page.screenshot({ fullPage: website.fullPage }), this.config.captureTimeoutMs, 'The final screenshot timed out');
        finalShotId = (await this.store(ctx, result)).id;
      } catch (err) {
        if (isInfrastructure(err)) throw err;
        failure ??= `Final screenshot failed: ${this.message(ctx, err)}`;
      }
    });

    await this.jobs.saveResult(job.id, records);
    if (failure !== null) await this.jobs.fail(job.id, failure, this.clock.now());
    else await this.jobs.succeed(job.id, finalShotId, this.clock.now());
  }

  private remaining(ctx: RunContext): number {
    return Math.max(1, ctx.deadline - Date.now());
  }

  private message(ctx: RunContext, err: unknown): string {
    return redactFillValues(err instanceof Error ? err.message : String(err), ctx.steps);
  }

  private async checkUrl(url: string): Promise<void> {
    const verdict = await this.urlPolicy.check(url);
    if (!verdict.allowed) throw pageFailure(`blocked by URL policy: ${verdict.reason}`);
  }

  /** Opens the website's URL; returns a failure text or null. */
  private async open(page: CapturePage, ctx: RunContext): Promise<string | null> {
    try {
      await this.checkUrl(ctx.website.url);
      const timeout = Math.min(this.config.captureTimeoutMs, this.remaining(ctx));
      await bounded(page.goto(ctx.website.url, timeout), timeout + 1000, `Navigation timeout of ${timeout} ms exceeded`);
      return null;
    } catch (err) {
      if (isInfrastructure(err)) throw err;
      return `Opening the website failed: ${this.message(ctx, err)}`;
    }
  }

  /** Runs one step, recording status and duration; returns a failure text or null. */
  private async performStep(page: CapturePage, ctx: RunContext, record: StepRecord, step: Step): Promise<string | null> {
    record.status = 'running';
    const started = Date.now();
    try {
      const limit = Math.min(this.stepTimeout(step), this.remaining(ctx));
      const reason = limit < this.stepTimeout(step) ? `Scenario exceeded its time limit of ${this.config.scenarioTimeoutMs} ms` : `Step timed out after ${limit} ms`;
      await bounded(this.perform(page, ctx, step), limit, reason);
      record.status = 'succeeded';
      return null;
    } catch (err) {
      if (isInfrastructure(err)) throw err;
      record.status = 'failed';
      record.error = this.message(ctx, err);
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

  private async perform(page: CapturePage, ctx: RunContext, step: Step): Promise<void> {
    // Element waits end with the step's own budget, so nothing keeps trying in the page after it failed.
    const elementTimeout = Math.min(this.config.scenarioStepTimeoutMs, this.remaining(ctx));
    switch (step.type) {
      case 'navigate':
        await this.checkUrl(step.url);
        return page.goto(step.url, Math.min(this.config.captureTimeoutMs, this.remaining(ctx)));
      case 'fill':
        return page.fill(step.selector, step.value, elementTimeout);
      case 'click':
        return page.click(step.selector, elementTimeout);
      case 'wait':
        return new Promise((resolve) => setTimeout(resolve, step.duration));
      case 'wait_for':
        return page.waitForSelector(step.selector, waitForTimeoutOf(step));
      case 'hover':
        return page.hover(step.selector, elementTimeout);
      case 'press':
        return page.press(step.key);
      case 'select':
        return page.select(step.selector, step.value, elementTimeout);
      case 'scroll':
        return page.scrollTo(scrollTargetOf(step), elementTimeout);
      case 'screenshot': {
        const result = await page.screenshot({ fullPage: step.full_page ?? ctx.website.fullPage });
        await this.store(ctx, result);
        return;
      }
    }
  }

  private store(ctx: RunContext, result: CaptureResult) {
    return this.screenshotStore.store(
      { accountId: ctx.job.accountId, websiteId: ctx.website.id, jobId: null, scenarioId: ctx.job.scenarioId, executionId: ctx.job.id },
      result,
      this.clock.now(),
    );
  }
}
