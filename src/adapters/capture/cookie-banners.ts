/**
 * block_cookie_banners: consent dialogs answered with "reject" (or hidden where no reject exists) by DuckDuckGo's
 * autoconsent — its content script and rule set ship in the npm package, so nothing is downloaded at run time.
 * Wiring as the package documents for puppeteer (docs/puppeteer.md): the script runs before the page's own, and
 * talks to Node through an exposed function.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Page } from 'puppeteer';

import { hideConsentLeftoversScript } from './in-page-scripts';

// The package's exports map names its entry and rule files, not package.json: find the folder from the entry.
const DIST_DIR = dirname(require.resolve('@duckduckgo/autoconsent'));
let script: string | null = null;
let rules: unknown = null;

/** Read on first use: most captures never ask for it. */
function assets(): { script: string; rules: unknown } {
  script ??= readFileSync(join(DIST_DIR, 'autoconsent.playwright.js'), 'utf8');
  // The compact bundle is the package's opt-out-only encoding: a third of the full rules' size.
  rules ??= JSON.parse(readFileSync(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8')) as unknown;
  return { script, rules };
}

const CONFIG = {
  enabled: true,
  autoAction: 'optOut',
  disabledCmps: [],
  enablePrehide: true,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  enableHeuristicDetection: true,
  heuristicMode: 'tier2',
  detectRetries: 20,
  isMainWorld: false,
  prehideTimeout: 2000,
  logs: { lifecycle: false, rulesteps: false, detectionsteps: false, evals: false, errors: false, messages: false, waits: false },
};

interface Message {
  type?: string;
  id?: string;
  code?: string;
}

/** A popup found and not yet answered holds the capture at most this long. */
const ANSWER_WAIT_MS = 3_000;

export class CookieBanners {
  private popupOpen = false;
  /** A popup was found in this page: what is left of it after the answer is hidden. */
  private popupSeen = false;
  private onAnswered: (() => void) | null = null;

  private constructor(private readonly page: Page) {}

  /** Must run before the first navigation. */
  static async install(page: Page): Promise<CookieBanners> {
    const banners = new CookieBanners(page);
    const { script: content } = assets();
    await page.exposeFunction('autoconsentSendMessage', (message: Message) => banners.receive(message));
    await page.evaluateOnNewDocument(content);
    return banners;
  }

  /**
   * Resolves once a popup that was found has been answered, or at once when none is open; bounded: to false when
   * one was still open at the end of the wait. A dialog
   * still on screen after the answer (its Reject did nothing, the rule clicked the wrong thing, the wait ran
   * out) is then hidden, with its backdrop: the picture shows the page, as the option promises.
   */
  async answered(maxWaitMs = ANSWER_WAIT_MS): Promise<boolean> {
    if (this.popupOpen) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, maxWaitMs);
        this.onAnswered = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    // Still open: no answer came within the wait (the warning consent_unanswered).
    const answered = !this.popupOpen;
    if (this.popupSeen) await this.page.evaluate(hideConsentLeftoversScript).catch(() => undefined);
    return answered;
  }

  private async receive(message: Message): Promise<void> {
    if (!message || typeof message !== 'object') return;
    switch (message.type) {
      case 'init':
        return this.send({ type: 'initResp', config: CONFIG, rules: assets().rules });
      case 'eval': {
        // The rules' own snippets, run in the page's main world (the page's code, the page's context).
        const result = await this.page.evaluate(message.code ?? 'undefined').catch(() => false);
        return this.send({ type: 'evalResp', id: message.id, result });
      }
      case 'popupFound':
        this.popupOpen = true;
        this.popupSeen = true;
        return;
      case 'optOutResult':
      case 'autoconsentDone':
      case 'autoconsentError':
        this.popupOpen = false;
        this.onAnswered?.();
        return;
    }
  }

  private async send(message: unknown): Promise<void> {
    await this.page
      .evaluate((msg) => {
        const w = globalThis as unknown as { autoconsentReceiveMessage?: (m: unknown) => unknown };
        return w.autoconsentReceiveMessage?.(msg);
      }, message)
      .catch(() => undefined);
  }
}
