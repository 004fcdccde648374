import type { CaptureWarning } from './capture-warnings';

/**
 * The capture report (API.md "Capture report"): what the page answered and how complete the picture is. Made by
 * the capturer, stored on the screenshot and shown as its `capture` (screenshots/domain/capture-report.ts).
 */
export interface CaptureReport {
  /** The main document's HTTP status after redirects; null when no HTTP response was seen (a page served from memory). */
  httpStatus: number | null;
  /** The URL the main document ended on (after redirects and script navigations). */
  finalUrl: string;
  title: string;
  /** The full page's height in CSS px, before any cut. */
  pageHeight: number;
  /** The full-page image was cut short of pageHeight (the maximum height). */
  truncated: boolean;
  /** false: the picture was taken at the cap while the page was still loading or changing. */
  settled: boolean;
  /** From the navigation event (load) to the picture. */
  waitedMs: number;
  /** Up to 5 requests still in flight at the cap, as host/path (no query string); [] when settled. */
  pending: string[];
  /** What may make the picture differ from what a person sees (shared/domain/capture-warnings.ts); [] for a clean capture. */
  warnings: CaptureWarning[];
  /** The upstream proxy the page went through, masked (`http://********@host:port`); null when it went straight out. */
  proxy?: string | null;
  /** The saved session the page started with (`session_id`), and whether it was found logged out and logged in again; null: none. */
  session?: CaptureSessionReport | null;
}

export interface CaptureSessionReport {
  id: number;
  name: string;
  refreshed: boolean;
}
