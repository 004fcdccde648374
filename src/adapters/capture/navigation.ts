/**
 * Navigation in two moments: "the document answered" and "everything loaded". On the open web one sub-resource
 * that never answers (a tracking pixel, an async tag, an embed, a font on a blocked CDN) holds the `load` event
 * forever, while the page itself is there to see. So a navigation whose main document answered ends either at the
 * navigation event (`load`, or `DOMContentLoaded` for that wait), or — when requests hang — once no request has
 * started or ended for HUNG_QUIET_MS (nothing else is moving), and at the latest HUNG_GRACE_MS after the
 * document's DOMContentLoaded (or its answer, when a hung blocking script keeps it from ever parsing to the end).
 * The requests then in flight are the hung ones: the capture goes on without them and says so (warning
 * `hung_requests`). Only a document that never answers fails the capture, in words (see capture-run.ts).
 */
import type { HTTPRequest, HTTPResponse, Page } from 'puppeteer';

/** After the document's DOMContentLoaded (or its answer), how long sub-resources get before they count as hung. */
export const HUNG_GRACE_MS = 10_000;
/**
 * Requests still in flight when no request has started or ended for this long are taken as hung: the page is not
 * waiting for a chain of work or a queue (Chromium's six connections per host answer one after another), only for
 * something that does not answer.
 */
export const HUNG_QUIET_MS = 4_000;
/** What the rest of a capture (settle, picture) keeps of its time when the navigation ends on hung requests. */
export const PICTURE_RESERVE_MS = 3_000;
const POLL_MS = 100;

export interface Navigation {
  /** The main document's response (after redirects), or null when none was seen (about:blank, data:). */
  response: HTTPResponse | null;
  /** Requests still in flight when the navigation ended without its event: they never answered. */
  hung: HTTPRequest[];
  /** false when the document never fired DOMContentLoaded: a hung blocking script kept it from parsing to the end. */
  parsed: boolean;
  /** Whether the navigation event itself was reached (false: the navigation ended on hung requests). */
  complete: boolean;
}

export interface NavigationOptions {
  waitUntil: 'load' | 'domcontentloaded';
  /** Date.now() by which the whole capture must be over. */
  deadline: number;
  /** What the rest of the capture keeps of its time when requests hang (default PICTURE_RESERVE_MS). */
  reserveMs?: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * page.goto with the two moments. Rejects as goto does (a network error, a refusal) and with goto's TimeoutError when
 * the main document never answered before the deadline.
 */
export async function navigate(page: Page, url: string, options: NavigationOptions): Promise<Navigation> {
  const inFlight = new Set<HTTPRequest>();
  let answered: HTTPResponse | null = null;
  let answeredAt = 0;
  let parsedAt = 0;
  let lastActivity = Date.now();
  const onRequest = (request: HTTPRequest): void => {
    inFlight.add(request);
    lastActivity = Date.now();
  };
  const onDone = (request: HTTPRequest): void => {
    inFlight.delete(request);
    lastActivity = Date.now();
  };
  const onResponse = (response: HTTPResponse): void => {
    const status = response.status();
    if (response.request().isNavigationRequest() && response.frame() === page.mainFrame() && (status < 300 || status > 399)) {
      answered = response;
      answeredAt = Date.now();
    }
  };
  const onParsed = (): void => {
    parsedAt = Date.now();
  };
  page.on('request', onRequest);
  page.on('requestfinished', onDone);
  page.on('requestfailed', onDone);
  page.on('response', onResponse);
  page.on('domcontentloaded', onParsed);
  let finished = false;
  try {
    const goto = page.goto(url, { waitUntil: options.waitUntil, timeout: Math.max(1, options.deadline - Date.now()) });
    goto.catch(() => undefined);
    const watch = async (): Promise<Navigation | null> => {
      for (;;) {
        await sleep(POLL_MS);
        if (finished) return null;
        if (!answered) continue;
        const now = Date.now();
        const since = parsedAt || answeredAt;
        const lastCall = Math.min(since + HUNG_GRACE_MS, options.deadline - (options.reserveMs ?? PICTURE_RESERVE_MS));
        const onlyHung = inFlight.size > 0 && now - lastActivity >= HUNG_QUIET_MS;
        if (onlyHung || now >= lastCall) {
          return { response: answered, hung: [...inFlight.keys()], parsed: parsedAt > 0, complete: false };
        }
      }
    };
    const outcome = await Promise.race([goto.then((response): Navigation => ({ response, hung: [], parsed: true, complete: true })), watch()]);
    // watch() resolves to null only once goto has settled, which the race has then already taken.
    return outcome!;
  } finally {
    finished = true;
    page.off('request', onRequest);
    page.off('requestfinished', onDone);
    page.off('requestfailed', onDone);
    page.off('response', onResponse);
    page.off('domcontentloaded', onParsed);
  }
}
