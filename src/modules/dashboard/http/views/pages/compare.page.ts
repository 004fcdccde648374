import type { ScreenshotProps } from '../../../../screenshots/domain/screenshot';
import type { WebsiteProps } from '../../../../websites/domain/website';
import type { DashboardViewer } from '../../dashboard-request';
import { Html, html, utcTime } from '../html';
import { bareLayout, layout } from '../layout';
import { changeBadge, changeState, percent, textChanged, thresholdText } from './history.page';
import { unifiedDiffLines } from '../../../../screenshots/domain/text-change';
import { textCounts, textDiffLines } from '../text-diff';
import { isImageFormat } from '../../../../../shared/domain/output-format';

/** The compare page shows at most this many lines of the text diff; the rest is behind the link to the whole diff. */
const TEXT_DIFF_SHOWN_LINES = 400;

/**
 * Change history (issue 20): one capture and the one it was compared with, before/after side by side, and the
 * diff below. dashboard.js turns the pair into a slider (with the diff as an overlay) when scripts run; without
 * them the page shows everything at once.
 */
export interface CompareView {
  shot: ScreenshotProps;
  website: WebsiteProps;
  /** The capture it was compared with; null when there is none, or it was deleted (see previousDeleted). */
  previous: ScreenshotProps | null;
  previousDeleted: boolean;
  /** The next capture of the same history (same settings), null when this is the newest, undefined when not looked up that far. */
  next: ScreenshotProps | null | undefined;
  /** Whether /dashboard/screenshots/:id/diff has an image to serve. */
  diffAvailable: boolean;
  /** The unified diff of the visible text (GET /screenshots/{id}/text-diff); null when there is none to show. */
  textDiff: string | null;
}

/**
 * Where the page's pictures and links point: the dashboard's routes for a signed-in viewer; signed alert links on
 * the read-only page an alert opens (null: a page that needs a session, left out there).
 */
export interface CompareUrls {
  image(id: number): string;
  diff(id: number): string;
  screenshotPage(id: number): string | null;
  text(id: number): string | null;
  textDiff(id: number): string | null;
}

const DASHBOARD_URLS: CompareUrls = {
  image: (id) => `/dashboard/screenshots/${id}/image`,
  diff: (id) => `/dashboard/screenshots/${id}/diff`,
  screenshotPage: (id) => `/dashboard/screenshots/${id}`,
  text: (id) => `/dashboard/screenshots/${id}/text`,
  textDiff: (id) => `/dashboard/screenshots/${id}/text-diff`,
};

function shotImage(shot: ScreenshotProps, label: string, urls: CompareUrls): Html {
  return html`<a href="${urls.image(shot.id)}"><img src="${urls.image(shot.id)}" alt="${label}" width="${shot.width}" height="${shot.height}"></a>`;
}

function caption(role: string, shot: ScreenshotProps, urls: CompareUrls): Html {
  const page = urls.screenshotPage(shot.id);
  return html`<figcaption><strong>${role}</strong> · ${page ? html`<a href="${page}">#${shot.id}</a>` : html`#${shot.id}`} · ${utcTime(shot.takenAt)} · ${shot.width}×${shot.height}</figcaption>`;
}

function facts(view: CompareView): Html {
  const state = changeState(view.shot);
  const rows: Array<[string, Html | string]> = [['Result', changeBadge(state)]];
  if (state.kind === 'changed' || state.kind === 'unchanged') {
    rows.push(['Changed pixels', html`<span id="change-ratio">${percent(state.ratio)}</span> <span class="muted">(ratio ${state.ratio})</span>`]);
    rows.push([
      'Text',
      state.text === null
        ? html`<span class="muted">not compared (a capture from before text changes)</span>`
        : textChanged(state)
          ? html`<span id="text-counts">${textCounts(state.text)}</span> <span class="muted">changed</span>`
          : html`<span id="text-counts">no change</span>`,
    ]);
    rows.push(['Compared', utcTime(state.comparedAt)]);
  }
  rows.push(['Threshold', html`<span id="change-threshold">${thresholdText(view.website.changeThreshold)}</span> <span class="muted">changed above it</span>`]);
  if (view.website.changeIgnoreSelectors.length) {
    rows.push(['Ignored selectors', html`<code class="break">${view.website.changeIgnoreSelectors.join(', ')}</code>`]);
  }
  return html`<dl class="facts ch-facts">${rows.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;
}

function navigation(view: CompareView): Html {
  const { shot, previous, next } = view;
  const history = `/dashboard/websites/${shot.websiteId}/history`;
  return html`<nav class="page-actions ch-nav" aria-label="Captures">
  ${previous ? html`<a class="button secondary" rel="prev" href="/dashboard/screenshots/${previous.id}/compare">← Previous capture</a>` : ''}
  ${next ? html`<a class="button secondary" rel="next" href="/dashboard/screenshots/${next.id}/compare">Next capture →</a>` : ''}
  <a href="${history}">History of ${view.website.name}</a>
  <a href="/dashboard/screenshots/${shot.id}">Screenshot page</a>
</nav>`;
}

function diffFigure(view: CompareView, urls: CompareUrls): Html {
  const { shot } = view;
  return html`<figure class="ch-diff" id="diff">
  <figcaption><strong>Diff</strong> · changed pixels in red, unchanged ones dimmed, ignored areas in light blue${
    view.previous ? '' : ' (made before the previous capture was deleted)'
  }</figcaption>
  <div class="ch-frame"><a href="${urls.diff(shot.id)}"><img src="${urls.diff(shot.id)}" alt="Diff of capture ${shot.id} with the previous capture" width="${shot.width}" height="${shot.height}" loading="lazy"></a></div>
</figure>`;
}

function textFigure(view: CompareView, urls: CompareUrls): Html {
  if (view.textDiff === null) return html``;
  const { shot } = view;
  const lines = [...unifiedDiffLines(view.textDiff)];
  const shown = lines.slice(0, TEXT_DIFF_SHOWN_LINES);
  const whole = urls.textDiff(shot.id);
  const text = urls.text(shot.id);
  return html`<figure class="ch-text" id="text-diff">
  <figcaption><strong>Text</strong> · added lines in green (+), removed ones in red (−)${whole ? html` · <a href="${whole}">whole diff</a>` : ''}${
    text ? html` · <a href="${text}">this capture's text</a>` : ''
  }</figcaption>
  <div class="ch-frame ch-text-frame">${
    lines.length ? textDiffLines(shown) : html`<p class="muted td-same" id="text-same">The visible text is the same as in the previous capture.</p>`
  }${
    lines.length > shown.length
      ? html`<p class="muted td-more">… ${lines.length - shown.length} more lines${whole ? html` in the <a href="${whole}">whole diff</a>` : ' (the whole diff is in the dashboard)'}.</p>`
      : ''
  }</div>
</figure>`;
}

function comparison(view: CompareView, previousId: number, urls: CompareUrls): Html {
  const { shot, previous } = view;
  const name = view.website.name;
  const before = previous
    ? html`<figure class="ch-before">${caption('Before', previous, urls)}<div class="ch-frame">${shotImage(previous, `Before: capture ${previous.id} of ${name}`, urls)}</div></figure>`
    : html`<figure class="ch-before ch-gone"><figcaption><strong>Before</strong> · #${previousId}</figcaption>
  <div class="ch-frame ch-missing"><p id="previous-deleted">The previous capture (screenshot ${previousId}) was deleted. ${
    view.diffAvailable ? 'The comparison and its diff were kept.' : 'The comparison’s result was kept, but no diff was made before it was deleted.'
  }</p></div></figure>`;
  return html`<section class="ch-compare-view" data-compare aria-label="Before and after">
  <div class="ch-pair">
    ${before}
    <figure class="ch-after">${caption('After', shot, urls)}<div class="ch-frame">${shotImage(shot, `After: capture ${shot.id} of ${name}`, urls)}</div></figure>
  </div>
  <div class="ch-diffs">${view.diffAvailable ? diffFigure(view, urls) : ''}${textFigure(view, urls)}</div>
</section>`;
}

/** The page's body below its facts: the pair and the diffs, or why there is nothing to compare. */
function compareBody(view: CompareView, urls: CompareUrls): Html {
  const { shot } = view;
  const state = changeState(shot);
  if (state.kind === 'first' || state.kind === 'not-compared') {
    const why =
      state.kind === 'first'
        ? 'This is the first capture of this website with these settings: there is nothing earlier to compare it with.'
        : shot.scenarioId
          ? 'Scenario step shots are not compared with earlier captures.'
          : shot.format === 'pdf'
            ? 'PDFs are not compared with earlier captures.'
            : !isImageFormat(shot.format)
              ? 'Page content (HTML, markdown, text, metadata) is not compared with earlier captures.'
              : 'This capture was taken before change history existed, so it was not compared.';
    const page = urls.screenshotPage(shot.id);
    return html`<div class="notice info" id="no-previous" role="note">${why}</div>
<div class="full">${
      !isImageFormat(shot.format)
        ? page
          ? html`<a href="${page}">Open the screenshot</a>`
          : ''
        : shotImage(shot, `Capture ${shot.id} of ${view.website.name}`, urls)
    }</div>`;
  }
  return html`${
    state.kind === 'pending'
      ? html`<div class="notice info" role="status">Comparing with the previous capture… this page refreshes until it is done.</div>`
      : ''
  }${comparison(view, state.previousId, urls)}`;
}

function subtitle(shot: ScreenshotProps): Html {
  return html`<p class="muted">Taken ${utcTime(shot.takenAt)} · ${shot.format.toUpperCase()} · ${shot.width}×${shot.height}${shot.fullPage ? ' · full page' : ''}</p>`;
}

export function comparePage(viewer: DashboardViewer, view: CompareView): Html {
  const { shot } = view;
  const state = changeState(shot);
  return layout(
    viewer,
    'screenshots',
    `Capture ${shot.id} of ${view.website.name}`,
    html`${subtitle(shot)}
${facts(view)}
${navigation(view)}
${compareBody(view, DASHBOARD_URLS)}`,
    { refreshSeconds: state.kind === 'pending' ? 3 : undefined },
  );
}

/**
 * The compare page an alert's link opens without a session (issue 46): the same facts, pictures and diffs, read
 * only — no navigation, no link that needs a session; its pictures are signed links that expire with it.
 */
export function sharedComparePage(view: CompareView, urls: CompareUrls, expires: Date): Html {
  const { shot } = view;
  return bareLayout(
    `Capture ${shot.id} of ${view.website.name}`,
    html`<h1>Capture ${shot.id} of ${view.website.name}</h1>
<p class="notice info shared-link" role="note">A read-only view from an alert, for whoever holds the link; it opens until ${utcTime(expires)}. <a href="/dashboard/screenshots/${shot.id}/compare">Open it in the dashboard</a> to see the history (sign-in needed).</p>
${subtitle(shot)}
${facts(view)}
${compareBody(view, urls)}`,
  );
}
