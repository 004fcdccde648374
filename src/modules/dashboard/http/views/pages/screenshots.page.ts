import type { ScreenshotProps } from '../../../../screenshots/domain/screenshot';
import type { DashboardViewer } from '../../dashboard-request';
import { noticeBox, PageInfo, pager } from '../components';
import { Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';

export interface GalleryView {
  shots: ScreenshotProps[];
  websiteNames: Map<number, string>;
  /** Every website of the account, for the filter. */
  websites: Array<{ id: number; name: string }>;
  websiteId?: number;
  page: PageInfo;
  canZip: boolean;
  notice?: string;
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

export function galleryPage(viewer: DashboardViewer, view: GalleryView): Html {
  const items = view.shots.map((s) => {
    const name = view.websiteNames.get(s.websiteId) ?? `Website ${s.websiteId}`;
    return html`<li data-screenshot-id="${s.id}">
  <a href="/dashboard/screenshots/${s.id}"><img src="/dashboard/screenshots/${s.id}/thumbnail" alt="Screenshot ${s.id} of ${name}" width="400" height="250" loading="lazy"></a>
  <div class="meta"><strong>${name}</strong><span class="muted">${utcTime(s.takenAt)} · ${s.width}×${s.height} · ${sizeText(s.fileSize)}</span></div>
  <div class="actions">
    <label><input type="checkbox" name="ids" value="${s.id}" form="bulk"> Select</label>
    <a href="/dashboard/screenshots/${s.id}/download">Download</a>
  </div>
</li>`;
  });
  const filter = html`<form class="toolbar" method="get" action="/dashboard/screenshots">
  <div><label for="website-filter">Website</label>
  <select id="website-filter" name="website_id">
    <option value="">All websites</option>
    ${view.websites.map((w) => html`<option value="${w.id}"${w.id === view.websiteId ? html` selected` : ''}>${w.name}</option>`)}
  </select></div>
  <button type="submit" class="secondary">Filter</button>
</form>`;
  const bulk = html`<form id="bulk" class="toolbar" method="post" action="/dashboard/screenshots/download">
  ${csrfField(viewer)}
  <label><input type="checkbox" data-select-all> Select all on this page</label>
  <button type="submit" id="download-zip"${view.canZip ? '' : html` disabled aria-disabled="true"`}>Download selected as ZIP</button>
  ${view.canZip ? '' : html`<span class="muted" id="zip-upgrade">Downloading several screenshots as one ZIP needs the Pro or Business plan.</span>`}
</form>`;
  return layout(
    viewer,
    'screenshots',
    'Screenshots',
    html`${noticeBox(view.notice)}${filter}
${
  view.shots.length
    ? html`${bulk}<ul class="gallery">${items}</ul>${pager('/dashboard/screenshots', view.page, { website_id: view.websiteId })}`
    : html`<p class="muted">No screenshots${view.websiteId ? ' of this website' : ''} yet.</p>`
}`,
  );
}

export function screenshotPage(viewer: DashboardViewer, shot: ScreenshotProps, websiteName: string): Html {
  return layout(
    viewer,
    'screenshots',
    `Screenshot ${shot.id}`,
    html`<p><strong>${websiteName}</strong> · taken ${utcTime(shot.takenAt)} · ${shot.format.toUpperCase()} · ${shot.width}×${shot.height} px · ${sizeText(shot.fileSize)}
  ${shot.scenarioId ? html` · from scenario #${shot.scenarioId}` : ''}</p>
<p class="toolbar">
  <a class="button" href="/dashboard/screenshots/${shot.id}/download">Download ${shot.format.toUpperCase()}</a>
  <a class="button secondary" href="/dashboard/screenshots?website_id=${shot.websiteId}">More of this website</a>
  <form class="inline" method="post" action="/dashboard/screenshots/${shot.id}/delete" data-confirm="Delete this screenshot? This cannot be undone.">${csrfField(viewer)}
    <button class="danger" type="submit">Delete</button></form>
</p>
${
  // A PDF cannot be an <img>: its first viewport (the thumbnail) links to the document, which the browser opens.
  shot.format === 'pdf'
    ? html`<div class="full"><a href="/dashboard/screenshots/${shot.id}/image"><img src="/dashboard/screenshots/${shot.id}/thumbnail" alt="First page of screenshot ${shot.id} of ${websiteName} (PDF, opens the document)" width="400"></a></div>`
    : html`<div class="full"><a href="/dashboard/screenshots/${shot.id}/image"><img src="/dashboard/screenshots/${shot.id}/image" alt="Screenshot ${shot.id} of ${websiteName}, full size" width="${shot.width}" height="${shot.height}"></a></div>`
}`,
  );
}
