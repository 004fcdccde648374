import type { ScreenshotProps } from '../../../../screenshots/domain/screenshot';
import { captureNotes, incompleteReasons, type CaptureReport } from '../../../../screenshots/domain/capture-report';
import type { GalleryShot, ShotSource, WebsiteChoices } from '../../../application/dashboard-queries';
import type { DashboardViewer } from '../../dashboard-request';
import { noticeBox, PageInfo, pager, websitePicker } from '../components';
import { Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';
import { isImageFormat } from '../../../../../shared/domain/output-format';

/** The gallery's filters as the query string carries them (dates as typed, YYYY-MM-DD). */
export interface GalleryQuery {
  websiteId?: number;
  from?: string;
  to?: string;
  q?: string;
  /** The website picker's search (`site`). */
  site?: string;
}

export interface GalleryView {
  shots: GalleryShot[];
  sources: Map<number, ShotSource>;
  websiteNames: Map<number, string>;
  /** Every website of the account, for the filter. */
  websites: WebsiteChoices;
  query: GalleryQuery;
  page: PageInfo;
  canZip: boolean;
  notice?: string;
}

const SOURCE_LABEL: Record<ShotSource, { text: string; title: string }> = {
  api: { text: 'API', title: 'Taken on request of the API' },
  dashboard: { text: 'Dashboard', title: 'Taken from the dashboard (Take screenshot, playground)' },
  schedule: { text: 'Schedule', title: 'Taken by a schedule' },
  scenario: { text: 'Scenario', title: 'Taken by a scenario run' },
  failure: { text: 'Failed run', title: 'What the page showed when a scenario run failed' },
};

export function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** Where the screenshot came from and whether it is a full page, as badges (words, not only colours). */
export function shotBadges(source: ShotSource | undefined, fullPage: boolean): Html {
  const label = source ? SOURCE_LABEL[source] : undefined;
  return html`<span class="shot-badges">${label ? html`<span class="badge source source-${source}" title="${label.title}">${label.text}</span>` : ''}${
    fullPage ? html`<span class="badge full-page" title="The whole page, not only the first screen">full page</span>` : ''
  }</span>`;
}

function tile(shot: GalleryShot, name: string, source: ShotSource | undefined): Html {
  const caption = `${name} · ${shot.takenAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  // The link opens the screenshot's own page; dashboard.js turns it into the lightbox (images only: a PDF opens as a document).
  const lightbox = !isImageFormat(shot.format)
    ? ''
    : html` data-lightbox data-full="/dashboard/screenshots/${shot.id}/image" data-caption="${caption}" data-size="${shot.width}×${shot.height}"`;
  return html`<li data-screenshot-id="${shot.id}">
  <a href="/dashboard/screenshots/${shot.id}"${lightbox}><img src="/dashboard/screenshots/${shot.id}/thumbnail" alt="Screenshot ${shot.id} of ${name}" width="400" height="250" loading="lazy"></a>
  <div class="meta"><strong class="wrap">${name}</strong>${shotBadges(source, shot.fullPage)}<span class="muted">${utcTime(shot.takenAt)} · ${shot.width}×${shot.height} · ${sizeText(shot.fileSize)}</span></div>
  <div class="actions">
    <label><input type="checkbox" name="ids" value="${shot.id}" form="bulk"> Select</label>
    <a href="/dashboard/screenshots/${shot.id}/download">Download</a>
  </div>
</li>`;
}

function filterForm(view: GalleryView): Html {
  const q = view.query;
  const filtered = Boolean(q.websiteId || q.from || q.to || q.q);
  return html`<form class="toolbar filters" method="get" action="/dashboard/screenshots" role="search">
  ${websitePicker({ select: 'website-filter', search: 'website-search' }, view.websites, q.websiteId, q.site, 'All websites')}
  <div><label for="search">Name or URL contains</label><input type="search" id="search" name="q" maxlength="200" value="${q.q ?? ''}"></div>
  <div><label for="from">From</label><input type="date" id="from" name="from" value="${q.from ?? ''}"></div>
  <div><label for="to">To</label><input type="date" id="to" name="to" value="${q.to ?? ''}"></div>
  <div class="filter-buttons"><button type="submit" class="secondary">Filter</button>${filtered ? html` <a href="/dashboard/screenshots">Clear</a>` : ''}</div>
</form>`;
}

function bulkForm(viewer: DashboardViewer, view: GalleryView): Html {
  return html`<form id="bulk" class="toolbar bulk" method="post" action="/dashboard/screenshots/download">
  ${csrfField(viewer)}
  <label><input type="checkbox" data-select-all> Select all on this page</label>
  <button type="submit" id="download-zip"${view.canZip ? '' : html` disabled aria-disabled="true"`}>Download selected as ZIP</button>
  <button type="submit" class="danger" id="delete-selected" formaction="/dashboard/screenshots/delete" data-confirm="Delete the selected screenshots? This cannot be undone." data-confirmed-field="confirmed">Delete selected</button>
  ${view.canZip ? '' : html`<span class="muted" id="zip-upgrade">Downloading several screenshots as one ZIP needs the Pro or Business plan.</span>`}
</form>`;
}

export function galleryPage(viewer: DashboardViewer, view: GalleryView): Html {
  const q = view.query;
  const items = view.shots.map((s) => tile(s, view.websiteNames.get(s.websiteId) ?? `Website ${s.websiteId}`, view.sources.get(s.id)));
  const empty =
    q.from || q.to || q.q
      ? html`<p class="muted">No screenshots match these filters.</p>`
      : html`<p class="muted">No screenshots${q.websiteId ? ' of this website' : ''} yet.</p>`;
  return layout(
    viewer,
    'screenshots',
    'Screenshots',
    html`${noticeBox(view.notice)}${filterForm(view)}
${
  view.shots.length
    ? html`${bulkForm(viewer, view)}<ul class="gallery">${items}</ul>${pager('/dashboard/screenshots', view.page, {
        website_id: q.websiteId,
        q: q.q,
        from: q.from,
        to: q.to,
      })}`
    : empty
}`,
  );
}

/** "Delete N screenshots?" without JavaScript: the selection again, and the one button that deletes it. */
export function bulkDeleteConfirmPage(viewer: DashboardViewer, shots: GalleryShot[], websiteNames: Map<number, string>): Html {
  return layout(
    viewer,
    'screenshots',
    `Delete ${shots.length} screenshot${shots.length === 1 ? '' : 's'}?`,
    html`<form class="card" method="post" action="/dashboard/screenshots/delete">${csrfField(viewer)}
  <input type="hidden" name="confirmed" value="1">
  ${shots.map((s) => html`<input type="hidden" name="ids" value="${s.id}">`)}
  <p>These screenshots and their files are deleted for good. This cannot be undone.</p>
  <ul class="gallery small">${shots.map(
    (s) =>
      html`<li><img src="/dashboard/screenshots/${s.id}/thumbnail" alt="Screenshot ${s.id} of ${websiteNames.get(s.websiteId) ?? `Website ${s.websiteId}`}" width="400" height="250" loading="lazy"><div class="meta">#${s.id} · ${utcTime(s.takenAt)}</div></li>`,
  )}</ul>
  <p class="form-actions"><button class="danger" type="submit" id="confirm-bulk-delete">Delete ${shots.length} screenshot${shots.length === 1 ? '' : 's'}</button>
  <a class="button secondary" href="/dashboard/screenshots">Cancel</a></p>
</form>`,
  );
}

export interface ScreenshotPageExtra {
  source?: ShotSource;
}

/**
 * The capture report under the title: what the page answered, and — when the picture may be incomplete (taken at
 * the cap with work going on, requests that never answered, cut at the maximum height, frames left blank, a consent
 * dialog left open) — an "incomplete" badge with the reasons in words; the report's notes (a looping animation, an
 * unfolded scroll area) below it.
 */
export function captureReportSection(report: CaptureReport | null): Html {
  if (!report) return html``;
  const reasons = incompleteReasons(report);
  const notes = captureNotes(report);
  const status = report.httpStatus === null ? 'no HTTP status' : `HTTP ${report.httpStatus}`;
  return html`<section class="capture-report" aria-label="Capture report">
  <p>${
    reasons.length > 0
      ? html`<span class="badge badge-incomplete" title="The picture may not show the whole page">incomplete</span>`
      : html`<span class="badge badge-success" title="The page was still and whole when it was taken">complete</span>`
  } <span class="${report.httpStatus !== null && report.httpStatus >= 400 ? 'http-error' : ''}">${status}</span> · ${report.title ? html`“${report.title}” · ` : ''}${
    // Linked only when it is a web address: the page's own URL is not trusted to be one.
    /^https?:\/\//i.test(report.finalUrl)
      ? html`<a class="wrap" href="${report.finalUrl}" rel="noreferrer noopener">${report.finalUrl}</a>`
      : html`<span class="wrap">${report.finalUrl}</span>`
  } · page ${report.pageHeight} px tall · waited ${report.waitedMs} ms after load${
    report.proxy ? html` · <span class="proxy">through proxy <code>${report.proxy}</code></span>` : ''
  }</p>
  ${reasons.length > 0 ? html`<div class="notice warn" role="status"><ul>${reasons.map((reason) => html`<li>${reason}</li>`)}</ul></div>` : ''}
  ${notes.length > 0 ? html`<div class="notice info capture-notes" role="note"><ul>${notes.map((note) => html`<li>${note}</li>`)}</ul></div>` : ''}
</section>`;
}

export function screenshotPage(viewer: DashboardViewer, shot: ScreenshotProps, websiteName: string, extra: ScreenshotPageExtra = {}): Html {
  const origin = shot.executionId
    ? html` · <a href="/dashboard/executions/${shot.executionId}">scenario run</a>`
    : shot.jobId
      ? html` · <a href="/dashboard/jobs/${shot.jobId}">job ${shot.jobId.slice(0, 8)}</a>`
      : '';
  return layout(
    viewer,
    'screenshots',
    `Screenshot ${shot.id}`,
    html`<p><strong>${websiteName}</strong> ${shotBadges(extra.source, shot.fullPage)} · taken ${utcTime(shot.takenAt)} · ${shot.format.toUpperCase()} · ${shot.width}×${shot.height} px · ${sizeText(shot.fileSize)}
  ${shot.scenarioId ? html` · from scenario <a href="/dashboard/scenarios/${shot.scenarioId}/edit">#${shot.scenarioId}</a>` : ''}${origin}</p>
${captureReportSection(shot.capture)}
<p class="toolbar">
  <a class="button" href="/dashboard/screenshots/${shot.id}/download">Download ${shot.format.toUpperCase()}</a>
  <a class="button secondary" href="/dashboard/screenshots?website_id=${shot.websiteId}">More of this website</a>
  <a class="button secondary" href="/dashboard/websites/${shot.websiteId}/history">History</a>
  ${shot.change ? html`<a class="button secondary" href="/dashboard/screenshots/${shot.id}/compare">Compare with the previous capture</a>` : ''}
  <form class="inline" method="post" action="/dashboard/screenshots/${shot.id}/delete" data-confirm="Delete this screenshot? This cannot be undone.">${csrfField(viewer)}
    <button class="danger" type="submit">Delete</button></form>
</p>
${
  // A PDF cannot be an <img>: its first viewport (the thumbnail) links to the document, which the browser opens.
  !isImageFormat(shot.format)
    ? html`<div class="full"><a href="/dashboard/screenshots/${shot.id}/image"><img src="/dashboard/screenshots/${shot.id}/thumbnail" alt="First page of screenshot ${shot.id} of ${websiteName} (PDF, opens the document)" width="400"></a></div>`
    : html`<div class="full"><a href="/dashboard/screenshots/${shot.id}/image"><img src="/dashboard/screenshots/${shot.id}/image" alt="Screenshot ${shot.id} of ${websiteName}, full size" width="${shot.width}" height="${shot.height}"></a></div>`
}`,
  );
}
