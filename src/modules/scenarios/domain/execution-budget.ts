/**
 * The time limit of one scenario execution (API.md, Scenarios: "Whole execution capped at 120 s", the
 * SCENARIO_TIMEOUT_MS setting). Every phase is bounded by the time left, and opening the page and the steps
 * stop short of the cap by a reserve kept for the final screenshot: a run that times out in a step still
 * stores the screenshot of the page as it was, for debugging, and still ends within the cap.
 */

/** The reserve's ceiling: a viewport screenshot takes well under a second, a tall full page a few. */
export const FINAL_SCREENSHOT_RESERVE_MS = 10_000;
/** With a small cap the reserve shrinks with it, so the steps keep most of the time. */
const RESERVE_SHARE = 0.25;

export class ExecutionBudget {
  private constructor(
    /** The whole execution's limit, in milliseconds. */
    readonly capMs: number,
    /** Epoch milliseconds by which the execution has ended. */
    readonly deadline: number,
    /** The part of the cap only the final screenshot may use. */
    readonly reserveMs: number,
  ) {}

  static start(capMs: number, nowMs: number): ExecutionBudget {
    if (!Number.isFinite(capMs) || capMs <= 0) throw new Error(`An execution's time limit must be positive, got ${capMs}`);
    const reserveMs = Math.min(FINAL_SCREENSHOT_RESERVE_MS, Math.floor(capMs * RESERVE_SHARE));
    return new ExecutionBudget(capMs, nowMs + capMs, reserveMs);
  }

  /**
   * Milliseconds left for opening the page and the steps. Never 0, which puppeteer and timers read as
   * "no limit" or "at once" alike: 1 ms still fails a step at once, with the cap as its reason.
   */
  forSteps(nowMs: number): number {
    return Math.max(1, this.deadline - this.reserveMs - nowMs);
  }

  /** Milliseconds left for the final screenshot: the reserve plus whatever the steps did not use. */
  forFinalScreenshot(nowMs: number): number {
    return Math.max(1, this.deadline - nowMs);
  }
}
