import type { JobProps } from '../../../../jobs/domain/job';
import type { ScreenshotProps } from '../../../../screenshots/domain/screenshot';
import { thumbnailSize } from '../../../../screenshots/domain/thumbnail';
import type { WebsiteProps } from '../../../../websites/domain/website';
import type { DashboardViewer } from '../../dashboard-request';
import { accessNotice, dataTable, hiddenHeading, noticeBox, PageInfo, pager, tableBox } from '../components';
import { badge, Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';
import { PLAYGROUND_WEBSITE_NAME } from '../../website-form';
import { jobErrorCell } from './automation-parts';
import { isImageFormat } from '../../../../../shared/domain/output-format';

export interface WebsiteRow {
  website: WebsiteProps;
  latest: ScreenshotProps | null;
  /** The newest job of the website, when it is still queued or running. */
  activeJob: JobProps | null;
  lastJob: JobProps | null;
}

export interface WebsitesView {
  rows: WebsiteRow[];
  page: PageInfo;
  hasAccess: boolean;
  notice?: string;
}

/** The websites table shows thumbnails this wide (CSS px). */
const THUMB_WIDTH = 160;

/**
 * The thumbnail's height at THUMB_WIDTH, as an attribute, so the row has its final height before the image
 * arrives (thumbnails are made on their first request, often after the page's load): nothing moves under the
 * pointer while the page fills in. A PDF's thumbnail is of its first viewport, whose size the row does not know.
 */
function thumbHeight(shot: ScreenshotProps): Html | string {
  if (!isImageFormat(shot.format)) return '';
  const thumb = thumbnailSize(shot);
  return html` height="${Math.round((thumb.height * THUMB_WIDTH) / thumb.width)}"`;
}

/** The saved options that change what a capture looks like, in a few words (` · jpeg · iPhone 15 Pro`). */
function optionSummary(w: WebsiteProps): string {
  const o = w.captureOptions;
  const parts = [
    o.format,
    o.device,
    o.selector !== undefined ? 'one element' : undefined,
    o.clip ? 'a rectangle' : undefined,
    o.blockAds || o.blockTrackers || o.blockCookieBanners || o.blockResources?.length ? 'blocking' : undefined,
    o.secrets ? 'headers/cookies/credentials' : undefined,
  ].filter((p): p is string => !!p);
  return parts.map((p) => ` · ${p}`).join('');
}

export function websitesPage(viewer: DashboardViewer, view: WebsitesView): Html {
  const busy = view.rows.some((r) => r.activeJob);
  const rows = view.rows.map(({ website: w, latest, activeJob, lastJob }) => {
    const job = activeJob ?? lastJob;
    return html`<tr data-website-id="${w.id}">
  <td class="thumb-cell">${
    latest
      ? html`<a href="/dashboard/screenshots/${latest.id}"><img src="/dashboard/screenshots/${latest.id}/thumbnail" alt="Latest screenshot of ${w.name}" width="${THUMB_WIDTH}"${thumbHeight(latest)} loading="lazy"></a>`
      : html`<span class="muted">no screenshot yet</span>`
  }</td>
  <td><strong>${w.name}</strong>${w.name === PLAYGROUND_WEBSITE_NAME ? html` <a class="badge" href="/dashboard/playground">playground</a>` : ''}<br><a class="mono" href="${w.url}" rel="noopener noreferrer nofollow">${w.url}</a><br>
    <span class="muted">${w.viewportWidth}×${w.viewportHeight}${w.fullPage ? ', full page' : ''}${optionSummary(w)}</span></td>
  <td>${badge(w.status)}</td>
  <td>${utcTime(w.lastScreenshotAt, 'never')}</td>
  <td class="job-status">${job ? html`${badge(job.status)}${job.status === 'failed' && job.error ? html`<br><span class="muted">${jobErrorCell(job)}</span>` : ''}` : html`<span class="muted">—</span>`}</td>
  <td class="row-actions"><form class="inline" method="post" action="/dashboard/websites/${w.id}/screenshot">${csrfField(viewer)}
    <button type="submit"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>Take screenshot</button></form>
    <a href="/dashboard/screenshots?website_id=${w.id}">All screenshots</a>
    <span class="more-actions"><a href="/dashboard/websites/${w.id}/screenshot">With options…</a>
    <a href="/dashboard/websites/${w.id}/edit">Edit</a>
    <a href="/dashboard/websites/${w.id}/history">History</a>
    <form class="inline" method="post" action="/dashboard/websites/${w.id}/${w.status === 'paused' ? 'resume' : 'pause'}">${csrfField(viewer)}<button type="submit" class="link"${
      view.hasAccess ? '' : html` disabled aria-disabled="true"`
    }>${w.status === 'paused' ? 'Resume' : 'Pause'}</button></form>
    <a class="danger-link" href="/dashboard/websites/${w.id}/delete">Delete</a></span></td>
</tr>`;
  });
  return layout(
    viewer,
    'websites',
    'Websites',
    html`${noticeBox(view.notice, !busy)}
${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
${view.rows.length ? html`<p class="page-actions"><a class="button" id="new-website" href="/dashboard/websites/new">Add a website</a> <a class="button" id="monitor-page" href="/dashboard/monitors/new">Monitor a page</a> <a class="button secondary" href="/dashboard/playground">Playground</a></p>` : ''}
${
  view.rows.length
    ? html`<div class="website-cards">${tableBox('Websites', dataTable(['Latest', 'Website', 'Status', 'Last screenshot', 'Last job', hiddenHeading('Actions')], rows))}</div>
${pager('/dashboard/websites', view.page)}`
    : html`<div class="card empty-state"><p><strong>No websites yet.</strong> Add the first page you want to capture: its URL, viewport and capture options.</p>
  <p><a class="button" href="/dashboard/websites/new">Add a website</a> <a class="button" href="/dashboard/monitors/new">Monitor a page</a> <a class="button secondary" href="/dashboard/playground">Try a URL in the playground</a></p>
  <p class="muted">Or with the API: <code>POST /websites</code> (see the <a href="/docs">API docs</a>).</p></div>`
}`,
    { refreshSeconds: busy ? 3 : undefined },
  );
}
