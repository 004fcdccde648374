import { StreamableFile } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { FORMAT_FILES } from '../../../shared/domain/output-format';
import { captureReportView, CaptureReportView } from '../../screenshots/domain/capture-report';
import type { RenderOutcome } from '../application/renders.service';
import type { RenderProps } from '../domain/render';

/**
 * The capture report of an image answer, one header a field (docs/render.md lists them). Header values are
 * latin1: the title, the final URL and the pending requests are percent-encoded (encodeURIComponent), so any
 * page's text arrives intact and decodes with decodeURIComponent.
 */
export const CAPTURE_HEADERS = {
  'X-Capture-Http-Status': 'The main document’s HTTP status after redirects (empty when none was answered)',
  'X-Capture-Final-Url': 'The URL the page ended on, percent-encoded',
  'X-Capture-Title': 'The page’s title, percent-encoded',
  'X-Capture-Page-Height': 'The full page’s height in CSS px before any cut',
  'X-Capture-Truncated': '`true` when the image was cut',
  'X-Capture-Settled': '`false` when the page was still busy at capture time (taken at the cap)',
  'X-Capture-Waited-Ms': 'Load → capture in ms',
  'X-Capture-Pending': 'Up to 5 requests still in flight at the cap, `host/path` each percent-encoded, comma-separated',
  'X-Capture-Warnings': 'The capture report’s warning codes, comma-separated (empty for a clean capture; the words are in the json answer)',
} as const;

function captureHeaders(view: CaptureReportView): Record<keyof typeof CAPTURE_HEADERS, string> {
  return {
    'X-Capture-Http-Status': view.http_status === null ? '' : String(view.http_status),
    'X-Capture-Final-Url': encodeURIComponent(view.final_url),
    'X-Capture-Title': encodeURIComponent(view.title),
    'X-Capture-Page-Height': String(view.page_height),
    'X-Capture-Truncated': String(view.truncated),
    'X-Capture-Settled': String(view.settled),
    'X-Capture-Waited-Ms': String(view.waited_ms),
    'X-Capture-Pending': view.pending.map(encodeURIComponent).join(','),
    'X-Capture-Warnings': view.warnings.map((w) => w.code).join(','),
  };
}

/** The stored file as the answer: its type and length, the render's id, the capture report. */
export function replyWithRender(reply: FastifyReply, render: RenderProps, body: Readable, cacheControl: string): StreamableFile {
  const mimeType = FORMAT_FILES[render.format].mimeType;
  reply.header('Content-Type', mimeType);
  if (render.fileSize !== null) reply.header('Content-Length', String(render.fileSize));
  reply.header('Cache-Control', cacheControl);
  reply.header('X-Render-Id', render.id);
  const view = captureReportView(render.capture);
  if (view) for (const [name, value] of Object.entries(captureHeaders(view))) reply.header(name, value);
  return new StreamableFile(body, { type: mimeType });
}

/**
 * The one Cache-Control of an answer a CDN may keep (a signed link's): `public, max-age=<whole seconds until the
 * earliest of the deadlines>`, never negative (0 when a deadline has passed). A null deadline bounds nothing.
 */
export function publicCacheControl(now: Date, ...deadlines: Array<Date | null>): string {
  const until = Math.min(...deadlines.map((d) => d?.getTime() ?? Infinity));
  const seconds = Number.isFinite(until) ? Math.max(0, Math.floor((until - now.getTime()) / 1000)) : 0;
  return `public, max-age=${seconds}`;
}

/** X-Cache, and Age on a hit (seconds since the entry was made). */
export function cacheHeaders(reply: FastifyReply, outcome: RenderOutcome): void {
  reply.header('X-Cache', outcome.cache);
  if (outcome.cache === 'HIT') reply.header('Age', String(outcome.age));
}

/** The json answer's `data`. */
export function renderView(render: RenderProps, link: { url: string; expiresAt: Date }) {
  return {
    id: render.id,
    url: link.url,
    expires_at: link.expiresAt.toISOString(),
    mime_type: FORMAT_FILES[render.format].mimeType,
    width: render.width,
    height: render.height,
    capture: captureReportView(render.capture),
  };
}
