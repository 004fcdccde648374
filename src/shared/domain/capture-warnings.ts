/**
 * The capture report's warnings (API.md, fourth round): what a capture noticed that may make its picture differ
 * from what a person would see, each a stable code and a sentence for people. A job that succeeded with a warning
 * still promises a picture, but says what to look at; a clean report promises a whole one. Every warning is worded
 * here, from the facts the capturer gathered, so the API, the dashboard and the alerts say the same thing.
 */
export const CAPTURE_WARNING_CODES = ['hung_requests', 'animation_running', 'scroll_container', 'iframe_unpainted', 'truncated', 'consent_unanswered'] as const;

export type CaptureWarningCode = (typeof CAPTURE_WARNING_CODES)[number];

/**
 * The warnings that say the picture may miss part of the page (the dashboard's "incomplete" badge); the others are
 * notes on a whole picture: a looping animation shows one moment of itself, an app shell's scroll area was unfolded.
 */
export function mayBeIncomplete(code: CaptureWarningCode): boolean {
  return code !== 'animation_running' && code !== 'scroll_container';
}

export interface CaptureWarning {
  code: CaptureWarningCode;
  detail: string;
}

/** What the capturer saw that warnings are made of. */
export interface CaptureObservations {
  /** Requests that never answered (host/path): the navigation went on without them. */
  hungRequests: readonly string[];
  /** false: the document never finished parsing (a blocking script that never answered); captured as painted. */
  parsed: boolean;
  /** An endless animation (a requestAnimationFrame loop past its entry, an infinite CSS animation) was running. */
  animationRunning: boolean;
  /** The page's content scrolls inside an element (an app shell): its selector, and whether its whole content was captured. */
  scrollContainer: { selector: string; whole: boolean } | null;
  /** Frames below the first screen that a full page could not paint. */
  unpaintedIframes: number;
  /** The full page was cut: the page's height and where the picture stops (CSS px). */
  cut: { pageHeight: number; maxHeight: number } | null;
  /** A consent dialog stayed on screen: 'unanswered' (block_cookie_banners found no answer), 'not_asked' (the option was off). */
  consent: 'unanswered' | 'not_asked' | null;
}

const MAX_NAMED_REQUESTS = 3;

function listed(requests: readonly string[]): string {
  const named = requests.slice(0, MAX_NAMED_REQUESTS).join(', ');
  return requests.length > MAX_NAMED_REQUESTS ? `${named} and ${requests.length - MAX_NAMED_REQUESTS} more` : named;
}

export function captureWarnings(seen: CaptureObservations): CaptureWarning[] {
  const warnings: CaptureWarning[] = [];
  if (seen.hungRequests.length > 0 || !seen.parsed) {
    const what = seen.hungRequests.length === 1 ? '1 request' : `${seen.hungRequests.length} requests`;
    const parts = [
      ...(seen.hungRequests.length > 0
        ? [`${what} never answered and the picture was taken without ${seen.hungRequests.length === 1 ? 'it' : 'them'}: ${listed(seen.hungRequests)}`]
        : []),
      ...(!seen.parsed ? ['the page never finished loading (a script it waits for did not answer), so it was captured as far as it had been drawn'] : []),
    ];
    const sentence = parts.join('; ');
    warnings.push({ code: 'hung_requests', detail: sentence.charAt(0).toUpperCase() + sentence.slice(1) + '.' });
  }
  if (seen.animationRunning) {
    warnings.push({ code: 'animation_running', detail: 'An animation was still running (it loops): the picture shows one moment of it.' });
  }
  if (seen.scrollContainer) {
    warnings.push({
      code: 'scroll_container',
      detail: seen.scrollContainer.whole
        ? `The page scrolls inside ${seen.scrollContainer.selector}, not as a whole: that element was captured with all its content.`
        : `The page scrolls inside ${seen.scrollContainer.selector}, not as a whole, and its content could not be unfolded: only what it shows at once is in the picture (name it with full_page_scroll_selector).`,
    });
  }
  if (seen.unpaintedIframes > 0) {
    const frames = seen.unpaintedIframes === 1 ? '1 embedded frame' : `${seen.unpaintedIframes} embedded frames`;
    warnings.push({ code: 'iframe_unpainted', detail: `${frames} below the first screen may be blank in the picture.` });
  }
  if (seen.cut) {
    warnings.push({
      code: 'truncated',
      detail: `The page is ${Math.round(seen.cut.pageHeight)} px tall; the picture stops at ${Math.round(seen.cut.maxHeight)} px (the maximum height).`,
    });
  }
  if (seen.consent === 'unanswered') {
    warnings.push({
      code: 'consent_unanswered',
      detail: 'A cookie-consent dialog could not be answered; it was hidden, and the page may still show its effects.',
    });
  } else if (seen.consent === 'not_asked') {
    warnings.push({ code: 'consent_unanswered', detail: 'A cookie-consent dialog covers part of the page (block_cookie_banners: true answers it).' });
  }
  return warnings;
}

/** A stored warning list, read back leniently: unknown codes and malformed entries are dropped. */
export function parseCaptureWarnings(stored: unknown): CaptureWarning[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((entry: unknown) => {
    if (!entry || typeof entry !== 'object') return [];
    const { code, detail } = entry as { code?: unknown; detail?: unknown };
    return typeof code === 'string' && (CAPTURE_WARNING_CODES as readonly string[]).includes(code) && typeof detail === 'string'
      ? [{ code: code as CaptureWarningCode, detail }]
      : [];
  });
}
