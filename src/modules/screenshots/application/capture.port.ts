/**
 * The capture port: what the rest of the product knows about rendering a page.
 * Deliberately free of puppeteer types so that only adapters/capture (which implements it) depends on puppeteer.
 */
import type { ContentFormat, OutputFormat } from '../../../shared/domain/output-format';
import type { CaptureSecrets } from '../../../shared/domain/capture-secrets';
import type { PlainCaptureChoices } from '../../../shared/domain/capture-option-table';
import type { Emulation, ResolvedOutput } from '../../../shared/domain/capture-option-rules';
import type { CaptureReport } from '../../../shared/domain/capture-report';
import type { ProxyUrl } from '../../../shared/domain/proxy-url';
import type { SessionState } from '../../../shared/domain/session-state';

export type { CaptureReport };

export type { Emulation };
import type { WaitUntil } from '../../../shared/domain/wait-until';
import { JobFailure } from '../../jobs/application/job-failure';

/**
 * One capture as the capturer takes it: the request laid over the website's defaults, every default applied.
 * The options the capturer uses as they are come from the capture-option table (PlainCaptureChoices: full_page,
 * delay_ms, wait_for_selector, hide_selectors, dark_mode, selector, clip, block_*, css, timeout_ms —
 * a new plain option appears here by its row); the rest is computed from options (viewport, emulation, output).
 */
export interface CaptureRequest extends PlainCaptureChoices {
  url: string;
  /** The viewport: a device preset's, else the request's, else the website's. */
  viewportWidth: number;
  viewportHeight: number;
  /** 1..3 */
  deviceScaleFactor: number;
  /** When the capture is taken after navigating (default 'stable'). */
  waitUntil?: WaitUntil;
  /** What to produce (default: a PNG with the page's background). */
  output?: ResolvedOutput;
  /** Device and browser emulation beyond the viewport (a device preset, user_agent, locale, timezone). */
  emulation?: Emulation;
  /** Headers, cookies and Basic credentials for the website's host and its subdomains only. Never logged. */
  secrets?: CaptureSecrets;
  /** Change history: the boxes of these elements are measured into the result (ignoreBoxes). Images only. */
  ignoreSelectors?: readonly string[];
  /**
   * fail_on_status: the main document answering one of these HTTP statuses (after redirects) fails the capture as
   * the page's fault ("The page answered HTTP 404"); `true` is every 4xx and 5xx. Default: an error page is captured.
   */
  failOnStatus?: true | readonly number[];
  /**
   * Text changes: read the page's visible text (innerText, without ignoreSelectors' elements) right after the
   * picture, in the same visit, into CaptureResult.text. Images only; renders leave it off (it costs a layout pass).
   */
  keepText?: boolean;
  /**
   * The upstream proxy every request of the page goes through, behind the egress guard (resolved by the caller
   * from `proxy`, `proxy_pool` or CAPTURE_PROXY; never an id). Absent: straight out. Never logged.
   */
  proxy?: ProxyUrl;
  /**
   * A saved session's state the page starts with (resolved by the caller from `session_id`; never an id), and the
   * selector that tells it is still logged in. Never logged.
   */
  session?: SessionStart;
  /**
   * Page content read in the same visit besides the output (a render's `formats`, docs/outputs.md), into
   * CaptureResult.contents.
   */
  contents?: readonly ContentFormat[];
}

export interface CaptureResult {
  /** The file's bytes in `format`. */
  data: Buffer;
  format: OutputFormat;
  /**
   * Images: the real pixel size (viewport × deviceScaleFactor; read from the PNG's IHDR for PNG). PDF: the
   * paper's size in CSS px (96 per inch).
   */
  width: number;
  height: number;
  /** PDF only: a PNG of the first viewport, from which the thumbnail is made (nothing can decode the PDF). */
  preview?: Buffer;
  /** The page content asked for in CaptureRequest.contents, by format (UTF-8 text; metadata as its JSON). */
  contents?: Partial<Record<ContentFormat, string>>;
  /**
   * Time spent waiting after the navigation event (wait_until), added up over every wait before this
   * picture, and whether a cap cut a wait short (a page that never settled). Logged; not part of the API.
   */
  settle?: { ms: number; capped: boolean };
  /** Where the capture's time went (the metrics' capture phases); captures of scenario steps leave it out. */
  timing?: CaptureTiming;
  /** Where the elements of request.ignoreSelectors were in the image, [x, y, width, height] in its pixels. */
  ignoreBoxes?: Array<[number, number, number, number]>;
  /** One-shot captures always report; scenario step shots leave it out. */
  report?: CaptureReport;
  /** request.keepText: the visible text as the page gave it (at most VISIBLE_TEXT_MAX_CHARS), not yet normalized. */
  text?: string;
}

/**
 * Milliseconds per part of one capture, from opening its tab to the picture: reaching the page (tab, navigation,
 * redirects), waiting for it (wait_until, selectors, lazy content, delay_ms) and making the picture (hiding, CSS,
 * the screenshot itself). Waiting for admission comes before and is in none of them.
 */
export interface CaptureTiming {
  navigationMs: number;
  settleMs: number;
  renderMs: number;
}

/** How busy this process's capture engine is right now (read when metrics are scraped). */
export interface CaptureLoad {
  /** Browsers running at least one capture or scenario page. */
  busyBrowsers: number;
  /** Browsers up (or starting) with nothing to do. */
  idleBrowsers: number;
  /** Captures and scenario pages admitted and running. */
  inFlight: number;
  /** Captures and scenario pages waiting to be admitted. */
  waiting: number;
}

/**
 * 'page': the page's own fault (DNS failure, connection refused, load failure, timeout,
 *   selector never appeared, renderer crashed on this page). Retrying would not help.
 * 'infrastructure': our browser crashed, disconnected or could not launch. The caller retries.
 */
export type CaptureFailureKind = 'page' | 'infrastructure';

/**
 * A capture's failure as a job sees it (JobFailure): a page failure fails the job at once with this message; an
 * infrastructure one is retried, and should it end the job the client reads a fixed phrase, not the message.
 */
export class CaptureFailure extends JobFailure {
  constructor(
    readonly kind: CaptureFailureKind,
    message: string,
  ) {
    super(kind === 'infrastructure', message, kind === 'page' ? message : 'the browser crashed or could not be started');
    this.name = 'CaptureFailure';
  }
}

/**
 * The capture's upstream proxy failed (API.md fourth round: `proxy_failed`): refused the connection, rejected its
 * credentials, is refused by the URL policy, or could not reach the page. A page failure (not retried as such);
 * `fault` tells a caller holding a pool whether another proxy may do better ('unreachable', 'credentials').
 */
export class ProxyFailure extends CaptureFailure {
  constructor(
    message: string,
    /** The proxy, masked (`http://********@host:port`). */
    readonly proxy: string,
    readonly fault: 'unreachable' | 'credentials' | 'destination' | 'policy',
  ) {
    super('page', message);
    this.name = 'ProxyFailure';
  }
}

/**
 * A page's start from a saved session (docs/sessions.md): its cookies go to their own hosts (the browser's cookie
 * jar decides, as for any cookie), its storage is set for its origin before the page's scripts run.
 */
export interface SessionStart {
  state: SessionState;
  /** Checked after the page loaded and settled: missing, the capture fails with LoggedOutFailure. */
  loggedInSelector?: string | null;
}

/**
 * The page loaded without the session's logged-in selector: the session no longer logs in. A page failure; the
 * caller decides whether the session is refreshed and the capture tried again, or the job fails `session_expired`.
 */
export class LoggedOutFailure extends CaptureFailure {
  constructor(readonly selector: string) {
    super('page', `The page has no element matching "${selector}" after loading: logged out`);
    this.name = 'LoggedOutFailure';
  }
}

export type ScrollTarget = 'bottom' | { selector: string };

/**
 * A browser tab as scenario steps see it. Every method fails with a CaptureFailure, so scenario code
 * can tell a broken page from a broken browser without knowing puppeteer.
 */
export interface ScenarioTab {
  goto(url: string, timeoutMs?: number): Promise<void>;
  /** Replaces the value of an input, textarea or contenteditable element. */
  fill(selector: string, value: string, timeoutMs?: number): Promise<void>;
  /** Clicks once the element is visible and enabled; if the click starts a navigation, waits for it to load. */
  click(selector: string, timeoutMs?: number): Promise<void>;
  waitForSelector(selector: string, timeoutMs?: number): Promise<void>;
  hover(selector: string, timeoutMs?: number): Promise<void>;
  /** A key name as in KeyboardEvent.key, e.g. "Enter", "Tab", "a". */
  press(key: string): Promise<void>;
  /** Selects the option with the given value in a <select>. */
  select(selector: string, value: string, timeoutMs?: number): Promise<void>;
  scrollTo(target: ScrollTarget, timeoutMs?: number): Promise<void>;
  screenshot(opts: { fullPage: boolean }): Promise<CaptureResult>;
  url(): string;
  /**
   * The tab's browser state as a saved session keeps it: every cookie of its browser context, and the
   * localStorage and sessionStorage of the origins its main frame visited (read when it left each, and now).
   */
  browserState(): Promise<SessionState>;
}

export interface PageOptions {
  viewportWidth: number;
  viewportHeight: number;
  deviceScaleFactor?: number;
  darkMode?: boolean;
  /** When navigations and screenshot steps are taken (default 'stable'). */
  waitUntil?: WaitUntil;
  /** Device and browser emulation beyond the viewport. */
  emulation?: Emulation;
  /** Resource types not loaded at all. */
  blockResources?: readonly string[];
  /** Requests to advertising hosts, analytics trackers and chat widgets never made. */
  blockAds?: boolean;
  blockTrackers?: boolean;
  blockChatWidgets?: boolean;
  /** URL patterns (`*` for any characters) never requested. */
  blockRequests?: readonly string[];
  /** prefers-reduced-motion: reduce; the CSS media type (default screen). */
  reducedMotion?: boolean;
  mediaType?: 'screen' | 'print';
  /** Headers, cookies and Basic credentials for siteUrl's host and its subdomains only. */
  secrets?: CaptureSecrets;
  siteUrl?: string;
  /** A saved session's cookies and storage, set before the first navigation. */
  session?: SessionStart;
  /**
   * How long getting the page ready (a browser context, the tab) may take: the caller's time left, so a
   * wedged browser cannot hold a scenario past its cap. A fixed bound of milliseconds-scale work applies too.
   */
  openTimeoutMs?: number;
}

/** Abstract class rather than interface so it doubles as the Nest DI token. */
export abstract class PageCapturer {
  abstract capture(req: CaptureRequest): Promise<CaptureResult>;
  /**
   * Runs fn with a fresh page in a fresh incognito context at the given viewport (scenario runs);
   * the context is closed afterwards whatever happens.
   */
  abstract withPage<T>(opts: PageOptions, fn: (page: ScenarioTab) => Promise<T>): Promise<T>;
  /** A cheap synchronous reading, safe to call at any time (before the first capture, after close). */
  abstract load(): CaptureLoad;
}
