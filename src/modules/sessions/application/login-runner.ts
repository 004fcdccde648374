import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { renderingFor } from '../../../shared/domain/capture-option-rules';
import { notAnsweredMessage } from '../../../shared/domain/capture-timeout';
import { errorMessage } from '../../../shared/domain/error-message';
import { sessionExpiresAt } from '../../../shared/domain/session-state';
import { within } from '../../../shared/domain/within';
import { UrlPolicy } from '../../../shared/url-policy';
import { ScenariosService } from '../../scenarios/application/scenarios.service';
import { redactFillValues } from '../../scenarios/domain/execution';
import { scrollTargetOf, waitForTimeoutOf, type Step } from '../../scenarios/domain/steps';
import { CaptureFailure, PageCapturer, type ScenarioTab } from '../../screenshots/application/capture.port';
import { WebsiteRepository } from '../../websites/application/ports';
import type { LoginOutcome } from './ports';

/**
 * Runs a login scenario for a saved session: opens its website in a fresh browser context, performs its steps
 * (fill — secret values typed, never shown —, click, wait, …) and keeps the browser state it ends with: every
 * cookie and the storage of the origins it visited. `screenshot` steps take no picture here. The whole login is
 * bounded by SCENARIO_TIMEOUT_MS. A failure of the page is an outcome in words (fill values redacted); a browser
 * failure is thrown (the caller's job retries it).
 */
@Injectable()
export class LoginRunner {
  constructor(
    private readonly scenarios: ScenariosService,
    private readonly websites: WebsiteRepository,
    private readonly capturer: PageCapturer,
    private readonly urlPolicy: UrlPolicy,
    private readonly config: AppConfig,
  ) {}

  async logIn(accountId: number, scenarioId: number | null): Promise<LoginOutcome> {
    const scenario = scenarioId === null ? null : await this.scenarios.get(accountId, scenarioId).catch(() => null);
    if (!scenario) return { error: 'Its login scenario was deleted' };
    const website = await this.websites.findById(scenario.websiteId);
    if (!website) return { error: 'The website of its login scenario was deleted' };
    const steps = scenario.steps;
    const deadline = Date.now() + this.config.scenarioTimeoutMs;
    const left = () => Math.max(1, deadline - Date.now());
    const rendering = renderingFor(website.captureOptions, {
      viewportWidth: website.viewportWidth,
      viewportHeight: website.viewportHeight,
      deviceScaleFactor: 1,
    });
    try {
      return await this.capturer.withPage({ ...rendering, siteUrl: website.url, openTimeoutMs: left() }, async (tab) => {
        await this.checkUrl(website.url);
        const open = Math.min(this.config.captureTimeoutMs, left());
        await within(tab.goto(website.url, open), open + 1000, () => new CaptureFailure('page', notAnsweredMessage(open)));
        for (const [index, step] of steps.entries()) {
          try {
            await within(
              this.perform(tab, step, left),
              left(),
              () => new CaptureFailure('page', `The login exceeded its time limit of ${this.config.scenarioTimeoutMs} ms`),
            );
          } catch (err) {
            if (err instanceof CaptureFailure && err.kind === 'page') throw new CaptureFailure('page', `Step ${index} (${step.type}) failed: ${err.message}`);
            throw err;
          }
        }
        const state = await tab.browserState();
        return { state, expiresAt: sessionExpiresAt(state) };
      });
    } catch (err) {
      if (err instanceof CaptureFailure && err.kind === 'page') return { error: `The login failed: ${redactFillValues(errorMessage(err), steps)}` };
      throw err;
    }
  }

  private async checkUrl(url: string): Promise<void> {
    const verdict = await this.urlPolicy.check(url);
    if (!verdict.allowed) throw new CaptureFailure('page', `blocked by URL policy: ${verdict.reason}`);
  }

  private async perform(tab: ScenarioTab, step: Step, left: () => number): Promise<void> {
    const element = Math.min(this.config.scenarioStepTimeoutMs, left());
    switch (step.type) {
      case 'navigate':
        await this.checkUrl(step.url);
        return tab.goto(step.url, Math.min(this.config.captureTimeoutMs, left()));
      case 'fill':
        return tab.fill(step.selector, step.value, element);
      case 'click':
        return tab.click(step.selector, element);
      case 'wait':
        return new Promise((resolve) => setTimeout(resolve, Math.min(step.duration, left())).unref());
      case 'wait_for':
        return tab.waitForSelector(step.selector, Math.min(waitForTimeoutOf(step), left()));
      case 'hover':
        return tab.hover(step.selector, element);
      case 'press':
        return tab.press(step.key);
      case 'select':
        return tab.select(step.selector, step.value, element);
      case 'scroll':
        return tab.scrollTo(scrollTargetOf(step), element);
      case 'screenshot':
        // A login keeps a state, not pictures.
        return;
    }
  }
}
