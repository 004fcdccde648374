import type { HTTPRequest, HTTPResponse, Page } from 'puppeteer';

import { CaptureFailure, ProxyFailure } from '../../modules/screenshots/application/capture.port';
import { errorMessage } from '../../shared/domain/error-message';
import { EGRESS_ERROR_HEADER, EGRESS_PROXY_ERROR_HEADER, URL_POLICY_BLOCK_HEADER, type EgressOutcome } from './egress-proxy';

/** The part of the egress proxy a page needs: why the latest connection to a URL's host:port was refused. */
export interface EgressExplainer {
  explain(url: string): EgressOutcome | undefined;
}

export function urlPolicyFailure(reason: string): CaptureFailure {
  return new CaptureFailure('page', `blocked by URL policy: ${reason}`);
}

function failureFor(outcome: EgressOutcome): CaptureFailure {
  if (outcome.kind === 'proxy') return new ProxyFailure(outcome.message, outcome.proxy, outcome.fault);
  return outcome.kind === 'blocked' ? urlPolicyFailure(outcome.reason) : new CaptureFailure('page', outcome.error);
}

/** The proxy's verdict carried by a response it wrote itself (it strips these headers from real responses). */
function failureFromHeaders(response: HTTPResponse, egress: EgressExplainer): CaptureFailure | null {
  const headers = response.headers();
  const blocked = headers[URL_POLICY_BLOCK_HEADER];
  if (blocked !== undefined) return urlPolicyFailure(blocked);
  const failed = headers[EGRESS_ERROR_HEADER];
  if (failed !== undefined) return new CaptureFailure('page', failed);
  if (headers[EGRESS_PROXY_ERROR_HEADER] !== undefined) {
    // The route remembers the whole outcome (whose fault); the header carries its words.
    const outcome = egress.explain(response.url());
    return outcome?.kind === 'proxy' ? failureFor(outcome) : new ProxyFailure(headers[EGRESS_PROXY_ERROR_HEADER], '', 'unreachable');
  }
  return null;
}

/** What Chromium reports when the proxy refuses a CONNECT (https, wss, ws), whatever the proxy said. */
const TUNNEL_FAILED = 'net::ERR_TUNNEL_CONNECTION_FAILED';

/**
 * Follows the main frame's navigations on one page, so a capture can tell whether the document it is
 * about to photograph is the proxy's refusal rather than the page. Plain-HTTP refusals arrive as a
 * response with the proxy's header; refused tunnels only as net::ERR_TUNNEL_CONNECTION_FAILED for the
 * last URL of the redirect chain, which the proxy's recent-outcome memory then explains.
 * Listening costs nothing extra: puppeteer receives these network events anyway.
 */
export class NavigationEgress {
  private lastNavigationUrl: string | null = null;
  /** Set when the main frame's current document is a refusal or a proxy error page. */
  private refusal: CaptureFailure | null = null;

  constructor(
    private readonly page: Page,
    private readonly egress: EgressExplainer,
  ) {
    page.on('request', (request) => {
      if (this.isMainNavigation(request)) this.lastNavigationUrl = request.url();
    });
    page.on('response', (response) => {
      if (this.isMainNavigation(response.request())) this.refusal = failureFromHeaders(response, this.egress);
    });
    page.on('requestfailed', (request) => {
      if (!this.isMainNavigation(request)) return;
      const explained = this.explainFailure(request.url(), request.failure()?.errorText ?? '');
      // Other failures (a navigation cancelled by the next, a download) leave the old document in place.
      if (explained) this.refusal = explained;
    });
  }

  /** Throws when the navigation that produced `response` was refused or failed at the proxy. */
  checkResponse(response: HTTPResponse | null): void {
    const failure = response ? failureFromHeaders(response, this.egress) : null;
    if (failure) throw failure;
  }

  /** For a failed goto(): the policy's explanation of the failure, when the proxy has one. */
  explainNavigationError(error: unknown, requestedUrl: string): CaptureFailure | null {
    return this.explainFailure(this.lastNavigationUrl ?? requestedUrl, errorMessage(error));
  }

  /** Throws when the document now in the main frame is not the page but the proxy's refusal. */
  assertDocumentAllowed(): void {
    if (this.refusal) throw this.refusal;
  }

  private explainFailure(url: string, errorText: string): CaptureFailure | null {
    if (!errorText.includes(TUNNEL_FAILED)) return null;
    const outcome = this.egress.explain(url);
    return outcome ? failureFor(outcome) : null;
  }

  private isMainNavigation(request: HTTPRequest): boolean {
    return request.isNavigationRequest() && request.frame() === this.page.mainFrame();
  }
}
