/**
 * The capture report (API.md "Capture report"): what the page answered and how complete the picture is, stored
 * with the screenshot (a JSON column) and shown as its `capture`. Rows from before it was recorded, and scenario
 * step shots, have none (`capture: null`).
 */

import type { CaptureReport, CaptureSessionReport } from '../../../shared/domain/capture-report';
import { type CaptureWarning, mayBeIncomplete, parseCaptureWarnings } from '../../../shared/domain/capture-warnings';

export type { CaptureReport };

/** The Screenshot resource's `capture`. */
export interface CaptureReportView {
  http_status: number | null;
  final_url: string;
  title: string;
  page_height: number;
  truncated: boolean;
  settled: boolean;
  waited_ms: number;
  pending: string[];
  warnings: CaptureWarning[];
  /** The upstream proxy used, masked; null when the page went straight out. */
  proxy: string | null;
  /** The saved session the page started with and whether it was refreshed; null: none. */
  session: CaptureSessionReport | null;
}

function sessionOf(value: unknown): CaptureSessionReport | null {
  if (typeof value !== 'object' || value === null) return null;
  const s = value as Partial<CaptureSessionReport>;
  return typeof s.id === 'number' && typeof s.name === 'string' ? { id: s.id, name: s.name, refreshed: s.refreshed === true } : null;
}

export function captureReportView(report: CaptureReport | null): CaptureReportView | null {
  if (!report) return null;
  return {
    http_status: report.httpStatus,
    final_url: report.finalUrl,
    title: report.title,
    page_height: report.pageHeight,
    truncated: report.truncated,
    settled: report.settled,
    waited_ms: report.waitedMs,
    pending: [...report.pending],
    warnings: report.warnings.map((w) => ({ code: w.code, detail: w.detail })),
    proxy: report.proxy ?? null,
    session: report.session ? { ...report.session } : null,
  };
}

/** Only the report's own fields, in a fixed order: what is stored. */
export function serializeCaptureReport(report: CaptureReport | null | undefined): string | null {
  if (!report) return null;
  return JSON.stringify({
    httpStatus: report.httpStatus,
    finalUrl: report.finalUrl,
    title: report.title,
    pageHeight: report.pageHeight,
    truncated: report.truncated,
    settled: report.settled,
    waitedMs: report.waitedMs,
    pending: report.pending.slice(0, 5),
    warnings: report.warnings,
    proxy: report.proxy ?? null,
    session: report.session ?? null,
  });
}

/** A stored report, or null for none (or one that does not parse: shown as unknown rather than failing the read). */
export function parseCaptureReport(stored: string | null): CaptureReport | null {
  if (!stored) return null;
  try {
    const r = JSON.parse(stored) as Partial<CaptureReport>;
    return {
      httpStatus: typeof r.httpStatus === 'number' ? r.httpStatus : null,
      finalUrl: typeof r.finalUrl === 'string' ? r.finalUrl : '',
      title: typeof r.title === 'string' ? r.title : '',
      pageHeight: typeof r.pageHeight === 'number' ? r.pageHeight : 0,
      truncated: r.truncated === true,
      settled: r.settled !== false,
      waitedMs: typeof r.waitedMs === 'number' ? r.waitedMs : 0,
      pending: Array.isArray(r.pending) ? r.pending.filter((p): p is string => typeof p === 'string') : [],
      warnings: parseCaptureWarnings(r.warnings),
      proxy: typeof r.proxy === 'string' ? r.proxy : null,
      session: sessionOf(r.session),
    };
  } catch {
    return null;
  }
}

/**
 * Why a capture is incomplete, in words for people (the dashboard's "incomplete" badge), or null when it is
 * complete: taken at the cap while the page was still busy, and/or cut at the maximum height.
 */
export function incompleteReasons(report: CaptureReport | null): string[] {
  if (!report) return [];
  const reasons: string[] = [];
  const warned = new Set(report.warnings.map((w) => w.code));
  // Hung requests say it in their own words (the wait did not reach a cap: the page had answered).
  if (!report.settled && !warned.has('hung_requests')) {
    reasons.push(
      report.pending.length > 0
        ? `Taken after ${report.waitedMs} ms at the wait's cap while requests were still loading: ${report.pending.join(', ')}`
        : `Taken after ${report.waitedMs} ms at the wait's cap while the page was still changing`,
    );
  }
  // The warnings say it in their own words; a report from before them says it as before.
  if (report.truncated && !warned.has('truncated')) reasons.push(`Cut at the maximum height: the page is ${report.pageHeight} px tall`);
  return [...reasons, ...report.warnings.filter((w) => mayBeIncomplete(w.code)).map((w) => w.detail)];
}

/** The warnings that are notes on a whole picture (a looping animation, an unfolded scroll area), in words. */
export function captureNotes(report: CaptureReport | null): string[] {
  return report ? report.warnings.filter((w) => !mayBeIncomplete(w.code)).map((w) => w.detail) : [];
}
