import type { Readable } from 'node:stream';
import { FORMAT_FILES } from '../../../shared/domain/output-format';
import { captureReportView, CaptureReportView } from '../../screenshots/domain/capture-report';
import type { RenderProps } from '../domain/render';

/** A file answer as data: its type, its headers, its bytes. */
export interface FileAnswer {
  mimeType: string;
  headers: Record<string, string>;
  body: Readable;
}

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

/**
 * A stored render as an HTTP answer: its type and length, the render's id, the capture report. Plain data: the render
 * endpoints and the dashboard's playground send it the same way (shared/http/file-reply.ts), neither importing the
 * other's http/.
 */
export function renderFile(render: RenderProps, body: Readable, cacheControl: string): FileAnswer {
  const mimeType = FORMAT_FILES[render.format].mimeType;
  const headers: Record<string, string> = { 'Content-Type': mimeType };
  if (render.fileSize !== null) headers['Content-Length'] = String(render.fileSize);
  headers['Cache-Control'] = cacheControl;
  headers['X-Render-Id'] = render.id;
  const view = captureReportView(render.capture);
  if (view) Object.assign(headers, captureHeaders(view));
  return { mimeType, headers, body };
}
