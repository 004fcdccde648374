import type { ScreenshotProps } from '../../../../screenshots/domain/screenshot';
import { thumbnailSize } from '../../../../screenshots/domain/thumbnail';
import type { WebsiteProps } from '../../../../websites/domain/website';
import type { DashboardViewer } from '../../dashboard-request';
import type { WebsiteChecks } from '../../../application/dashboard-queries';
import { noticeBox, PageInfo, pager } from '../components';
import { badge, Html, html, utcTime } from '../html';
import { layout } from '../layout';
import { TextDiffLine, textCounts, textDiffLines } from '../text-diff';
import { isImageFormat } from '../../../../../shared/domain/output-format';

/**
 * Change history (issue 20): a website's captures as a timeline, each with the outcome of its comparison with the
 * previous comparable capture (API.md "Change history"), and a link to the compare view.
 */

/** What a capture's comparison says, in the words of the badge. */
export type ChangeState =
  | { kind: 'not-compared' } // scenario step shots, PDFs, rows from before change history: never compared
  | { kind: 'first' } // nothing earlier to compare with (or every earlier comparable capture was deleted)
  | { kind: 'pending'; previousId: number }
  | { kind: 'unchanged' | 'changed'; previousId: number; ratio: number; comparedAt: Date; text: { added: number; removed: number } | null };

export function changeState(shot: ScreenshotProps): ChangeState {
  const change = shot.change;
  if (!change) return shot.compareKey ? { kind: 'first' } : { kind: 'not-compared' };
  if (change.status === 'pending' || change.changedRatio === null || change.comparedAt === null) return { kind: 'pending', previousId: change.previousId };
  return {
    kind: change.changed ? 'changed' : 'unchanged',
    previousId: change.previousId,
    ratio: change.changedRatio,
    comparedAt: change.comparedAt,
    text: change.textDiff,
  };
}

/** Whether the comparison found the visible text changed (a line added or removed). */
export function textChanged(state: ChangeState): boolean {
  return 'text' in state && state.text !== null && state.text.added + state.text.removed > 0;
}

/** A ratio (0..1) as a percentage with two decimals; a change too small for that still reads as more than zero. */
export function percent(ratio: number): string {
  if (ratio > 0 && ratio < 0.00005) return '<0.01%';
  return `${(ratio * 100).toFixed(2)}%`;
}

/** The change badge: first capture / no change / changed N.NN% / comparing… (the word is always there, not just a colour). */
export function changeBadge(state: ChangeState): Html {
  switch (state.kind) {
    case 'first':
      return html`<span class="badge ch-badge ch-first">first capture</span>`;
    case 'not-compared':
      return html`<span class="badge ch-badge ch-none">not compared</span>`;
    case 'pending':
      return html`<span class="badge ch-badge ch-pending">comparing…</span>`;
    case 'unchanged':
      return html`<span class="badge ch-badge ch-unchanged">no change</span>`;
    case 'changed':
      return html`<span class="badge ch-badge ch-changed">changed ${percent(state.ratio)}${textChanged(state) && state.text ? ` · text ${textCounts(state.text)}` : ''}</span>`;
  }
}

/** A threshold (0..1) as people read it: `0.1% (0.001)`. */
export function thresholdText(threshold: number): string {
  return `${percent(threshold)} (${threshold})`;
}

export interface HistoryView {
  website: WebsiteProps;
  shots: ScreenshotProps[];
  changesOnly: boolean;
  page: PageInfo;
  /** The first changed lines of the text diff of captures whose text changed, by screenshot id. */
  textPreviews: ReadonlyMap<number, TextDiffLine[]>;
  /** When it was last checked and last changed (whatever page of the timeline is shown). */
  checks: WebsiteChecks;
  notice?: string;
}

/** Last checked (and how it went) and last changed, above the timeline: what a monitor's owner looks for first. */
function checksLine(checks: WebsiteChecks): Html {
  const checked = checks.lastChecked ? html`${utcTime(checks.lastChecked.at)} ${badge(checks.lastChecked.status)}` : html`<span class="muted">not yet</span>`;
  const changed = checks.lastChanged
    ? html`${utcTime(checks.lastChanged.at)} <a href="/dashboard/screenshots/${checks.lastChanged.screenshotId}/compare">compare</a>`
    : html`<span class="muted">no change yet</span>`;
  return html`<dl class="ch-checks" id="website-checks"><div><dt>Last checked</dt><dd id="last-checked">${checked}</dd></div><div><dt>Last changed</dt><dd id="last-changed">${changed}</dd></div></dl>`;
}

/** The thumbnails are shown this wide (CSS px); their height is given too, so rows never move as they arrive. */
const THUMB_WIDTH = 200;

function thumbnail(shot: ScreenshotProps, name: string): Html {
  const height = !isImageFormat(shot.format) ? 125 : Math.round((thumbnailSize(shot).height * THUMB_WIDTH) / thumbnailSize(shot).width);
  return html`<img src="/dashboard/screenshots/${shot.id}/thumbnail" alt="Capture ${shot.id} of ${name}" width="${THUMB_WIDTH}" height="${height}" loading="lazy">`;
}

function entry(shot: ScreenshotProps, name: string, preview: TextDiffLine[] | undefined): Html {
  const state = changeState(shot);
  const compareLink =
    state.kind === 'not-compared'
      ? html`<a href="/dashboard/screenshots/${shot.id}">View</a>`
      : html`<a class="ch-compare" href="/dashboard/screenshots/${shot.id}/compare">${state.kind === 'first' ? 'View' : 'Compare with previous'}</a>`;
  const detail =
    state.kind === 'unchanged' && state.ratio > 0
      ? html`<span class="muted">${percent(state.ratio)} of pixels differ, under the threshold</span>`
      : state.kind === 'not-compared'
        ? html`<span class="muted">${shot.scenarioId ? 'scenario step shot' : !isImageFormat(shot.format) ? (shot.format === 'pdf' ? 'PDF' : shot.format) : 'taken before change history'}</span>`
        : '';
  return html`<li class="ch-entry ch-entry-${state.kind}" data-screenshot-id="${shot.id}" data-change="${state.kind}">
  <a class="ch-thumb" href="${state.kind === 'not-compared' ? `/dashboard/screenshots/${shot.id}` : `/dashboard/screenshots/${shot.id}/compare`}">${thumbnail(shot, name)}</a>
  <div class="ch-body">
    <div class="ch-head">${changeBadge(state)} ${utcTime(shot.takenAt)}</div>
    <div class="ch-meta muted">#${shot.id} · ${shot.format.toUpperCase()} · ${shot.width}×${shot.height}${shot.fullPage ? ' · full page' : ''}${
      'previousId' in state ? ` · compared with #${state.previousId}` : ''
    }</div>
    ${detail ? html`<div class="ch-meta">${detail}</div>` : ''}
    ${preview?.length ? html`<div class="ch-text-preview" aria-label="Text changes">${textDiffLines(preview)}</div>` : ''}
    <div class="ch-links">${compareLink}</div>
  </div>
</li>`;
}

export function historyPage(viewer: DashboardViewer, view: HistoryView): Html {
  const w = view.website;
  const pending = view.shots.some((s) => changeState(s).kind === 'pending');
  const base = `/dashboard/websites/${w.id}/history`;
  const filter = html`<form class="toolbar ch-filter" method="get" action="${base}">
  <label class="ch-check"><input type="checkbox" name="changes" value="1" data-autosubmit${view.changesOnly ? html` checked` : ''}> Changes only</label>
  <button type="submit" class="secondary">Apply</button>
</form>`;
  const empty =
    view.page.total > 0
      ? html`<p class="muted" id="history-empty">Nothing on this page. <a href="${base}${view.changesOnly ? '?changes=1' : ''}">Go to the newest</a>.</p>`
      : view.changesOnly
        ? html`<p class="muted" id="history-empty">No capture of this website has changed.</p>`
        : html`<p class="muted" id="history-empty">No captures of this website yet.</p>`;
  return layout(
    viewer,
    'websites',
    `History of ${w.name}`,
    html`${noticeBox(view.notice)}
<p class="ch-site"><a class="mono break" href="${w.url}" rel="noopener noreferrer nofollow">${w.url}</a></p>
<p class="muted ch-rules">Each capture is compared with the previous one taken with the same settings (viewport, device, full page, element,
  hidden or removed elements, CSS, blocking…). Changed means more than <strong>${thresholdText(w.changeThreshold)}</strong> of the pixels differ,
  or the page's visible text changed${
    w.changeIgnoreSelectors.length
      ? html`; ${w.changeIgnoreSelectors.length} ignored selector${w.changeIgnoreSelectors.length === 1 ? '' : 's'} masked out`
      : ''
  }.</p>
${checksLine(view.checks)}
<p class="page-actions"><a class="button secondary" href="/dashboard/screenshots?website_id=${w.id}">All screenshots of this website</a> <a href="/dashboard/websites">Websites</a></p>
${filter}
${
  view.shots.length
    ? html`<ol class="ch-timeline" id="history">${view.shots.map((s) => entry(s, w.name, view.textPreviews.get(s.id)))}</ol>${pager(base, view.page, { changes: view.changesOnly ? '1' : undefined })}`
    : empty
}`,
    // A comparison still running is done within seconds: show its outcome without a script.
    { refreshSeconds: pending || (view.notice === 'monitor-created' && !view.checks.lastChecked) ? 5 : undefined },
  );
}
