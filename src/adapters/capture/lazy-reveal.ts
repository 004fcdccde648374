/**
 * The full-page reveal: before a full-page image or a PDF, the page is walked a viewport at a time the way a
 * reader scrolls, and each step waits until what it started is done — the images it brought into view
 * (downloaded and decoded), the data-src a lazy library has still to copy, and the requests it started (a lazy
 * iframe's document, an infinite list's fetch) — then the page goes back to where it was.
 *
 * Jumping on after a frame (the reveal before) let IntersectionObserver libraries that cancel an image leaving
 * the viewport (vanilla-lazyload) drop most of them: 2 of 8 came out. Waiting per step costs nothing on a page
 * whose steps start nothing (two frames a step), and is bounded per step and in total.
 */
import type { HTTPRequest, Page } from 'puppeteer';

import { revealEndScript, revealStartScript, revealStepScript } from './in-page-scripts';

/** The whole walk (the caller may give less: what is left of the capture's time). */
export const LAZY_SCROLL_BUDGET_MS = 8_000;
/** One viewport: its images and requests get this long before the walk moves on. */
export const REVEAL_STEP_MAX_MS = 2_000;
/** How long a visible data-src may wait for its library (lazysizes throttles its checks to 125 ms). */
const SWAP_GRACE_MS = 400;
/** Loaded images of a step are decoded before it ends, at most this long. */
const DECODE_WAIT_MS = 500;
const POLL_MS = 25;
/** How long a part of a stitched page gives throttled scroll handlers to react (AOS checks every 99 ms). */
const SCROLL_REACTION_MS = 150;
/** Requests that may never end by design, or stream: they do not hold a step. */
const UNBOUNDED_TYPES = new Set(['eventsource', 'websocket', 'media', 'ping']);

interface RevealStart {
  height: number;
  step: number;
  x: number;
  y: number;
}

interface StepState {
  loading: number;
  unswapped: number;
  /** Elements in view revealed on scroll and still fading in. */
  animating: number;
  height: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The evaluation, or null after ms: a page whose main thread is stuck ends the step instead of holding it. */
async function evaluateWithin<T>(page: Page, script: string, ms: number): Promise<T | null> {
  const evaluation = page.evaluate(script) as Promise<T>;
  evaluation.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), Math.max(1, ms))));
  try {
    return await Promise.race([evaluation, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The requests started since the current step began and not yet finished. */
class StepRequests {
  private current = new Set<HTTPRequest>();
  private readonly onRequest = (request: HTTPRequest): void => {
    if (!UNBOUNDED_TYPES.has(request.resourceType())) this.current.add(request);
  };
  private readonly onDone = (request: HTTPRequest): void => {
    this.current.delete(request);
  };

  constructor(private readonly page: Page) {
    page.on('request', this.onRequest);
    page.on('requestfinished', this.onDone);
    page.on('requestfailed', this.onDone);
  }

  /** A request of an earlier step still running (a long poll) holds that step only, not every later one. */
  nextStep(): void {
    this.current = new Set();
  }

  get busy(): boolean {
    return this.current.size > 0;
  }

  dispose(): void {
    this.page.off('request', this.onRequest);
    this.page.off('requestfinished', this.onDone);
    this.page.off('requestfailed', this.onDone);
  }
}

/**
 * Walks the page down to maxHeight (or its end, which may grow meanwhile) within budgetMs, then back to where
 * it was. Resolves to whether it scrolled at all: a page no taller than the viewport is left alone.
 */
export async function revealLazyContent(page: Page, maxHeight: number, budgetMs: number): Promise<boolean> {
  if (budgetMs <= 0) return false;
  const until = Date.now() + budgetMs;
  const start = (await page.evaluate(revealStartScript)) as RevealStart;
  if (Math.min(maxHeight, start.height) <= start.step) return false;
  const requests = new StepRequests(page);
  try {
    let height = start.height;
    for (let top = start.step; top < Math.min(maxHeight, height) && Date.now() < until; top += start.step) {
      requests.nextStep();
      const reached = await settleStep(page, top, requests, Math.min(until, Date.now() + REVEAL_STEP_MAX_MS));
      if (reached === null) break;
      height = reached;
    }
  } finally {
    requests.dispose();
  }
  await evaluateWithin(page, revealEndScript(start.x, start.y), 1_000);
  return true;
}

/**
 * Scrolls to `top` and waits, until the deadline, for what is then in view to be done: its images loaded and
 * decoded, lazy sources swapped, content revealed on scroll faded in. The stitched full page's step for each part.
 */
export async function settleViewport(page: Page, top: number, deadline: number): Promise<void> {
  const requests = new StepRequests(page);
  try {
    await settleStep(page, top, requests, deadline);
    // Scroll handlers are often throttled (AOS: 99 ms): what they reveal starts a moment after the scroll.
    await sleep(Math.max(0, Math.min(SCROLL_REACTION_MS, deadline - Date.now())));
    await settleStep(page, null, requests, deadline);
  } finally {
    requests.dispose();
  }
}

/** Scrolls to top (null: stays) and waits for the step's work, until the deadline. Resolves to the document's height (null: no answer). */
async function settleStep(page: Page, top: number | null, requests: StepRequests, deadline: number): Promise<number | null> {
  const startedAt = Date.now();
  let state = await evaluateWithin<StepState>(page, revealStepScript(top, DECODE_WAIT_MS), deadline - Date.now());
  if (!state) return null;
  for (;;) {
    const waitingForSwap = state.unswapped > 0 && Date.now() - startedAt < SWAP_GRACE_MS;
    if (state.loading === 0 && state.animating === 0 && !waitingForSwap && !requests.busy) return state.height;
    if (Date.now() + POLL_MS >= deadline) return state.height;
    await sleep(POLL_MS);
    const next = await evaluateWithin<StepState>(page, revealStepScript(null, DECODE_WAIT_MS), deadline - Date.now());
    if (!next) return state.height;
    state = next;
  }
}
