import type { AppConfig } from '../../../config/app-config';
import { ProxyRouter, UnknownProxyPoolError, type ProxyChoice } from '../../proxies/application/proxy-router';
import { CaptureFailure, ProxyFailure, type CaptureRequest, type CaptureResult, type PageCapturer } from './capture.port';
import type { SavedSessions } from './saved-sessions.port';
import { captureWithSession } from './session-capture';

/** How a capture reaches its page: the account's saved session it starts with (none: as it is) and the proxy asked for. */
export interface CaptureVia {
  /** One of the account's saved sessions (`session_id`). */
  sessionId?: number;
  /** The proxy, the pool or neither (then the operator's CAPTURE_PROXY, unless the page's host bypasses it). */
  proxy: ProxyChoice;
}

/**
 * The longest a capture through the route legitimately runs: its own time limit, or, when it starts with a saved
 * session, also one login run (SCENARIO_TIMEOUT_MS, shared with captures that found the session logged out at the
 * same time) and the capture again. The lease of every capturing job kind covers the longer (job-lease.ts), so a
 * worker that is logging in again is never taken for dead and its job handed to another worker.
 */
export function captureRunMs(config: Pick<AppConfig, 'captureTimeoutMs' | 'scenarioTimeoutMs'>, withSession: boolean): number {
  return withSession ? 2 * config.captureTimeoutMs + config.scenarioTimeoutMs : config.captureTimeoutMs;
}

/**
 * The one way every job kind (website screenshots, renders, batch items) captures a page: started with its saved
 * session — refreshed once when found logged out (session-capture.ts) — and sent through the proxy it asked for.
 * A pool's proxy that could not be reached or refused its credentials cools down and the next one is tried; the
 * last failure, naming its proxy, fails the capture (`proxy_failed`). An unknown pool fails it in words.
 */
export class CaptureRoute {
  constructor(
    private readonly capturer: PageCapturer,
    private readonly proxies: ProxyRouter,
    private readonly sessions: SavedSessions,
  ) {}

  capture(request: CaptureRequest, via: CaptureVia): Promise<CaptureResult> {
    return captureWithSession(this.sessions, via.proxy.accountId, via.sessionId, (session) =>
      this.throughProxies(session ? { ...request, session } : request, via.proxy),
    );
  }

  private async throughProxies(request: CaptureRequest, choice: ProxyChoice): Promise<CaptureResult> {
    let candidates;
    try {
      candidates = await this.proxies.candidates(choice);
    } catch (err) {
      if (err instanceof UnknownProxyPoolError) throw new CaptureFailure('page', err.message);
      throw err;
    }
    if (candidates.length === 0) return this.capturer.capture(request);
    let failure: ProxyFailure | null = null;
    for (const candidate of candidates) {
      try {
        const result = await this.capturer.capture({ ...request, proxy: candidate.proxy });
        this.proxies.succeeded(candidate);
        return result;
      } catch (err) {
        if (!(err instanceof ProxyFailure)) throw err;
        if (err.fault === 'destination') throw err;
        this.proxies.failed(candidate);
        failure = err;
      }
    }
    throw failure ?? new CaptureFailure('page', 'No proxy could be used');
  }
}
