import type { BatchItemProps, BatchProps } from '../../../../batches/domain/batch';
import { batchEntryName, remaining } from '../../../../batches/domain/batch';
import type { DashboardViewer } from '../../dashboard-request';
import { accessNotice, dataTable, pager, PageInfo, tableBox } from '../components';
import { Html, html, utcTime } from '../html';
import { csrfField, layout } from '../layout';

export interface BatchFormValues {
  urls: string;
  csv: string;
  name: string;
  format: string;
  fullPage: boolean;
}

export interface BatchesView {
  batches: BatchProps[];
  page: PageInfo;
  hasAccess: boolean;
  /** The plan's batch size. */
  limit: number;
  values: BatchFormValues;
  /** What was wrong with the last post, in words (field: message). */
  errors: string[];
}

export const EMPTY_BATCH_FORM: BatchFormValues = { urls: '', csv: '', name: '', format: 'png', fullPage: false };

const FORMATS: Array<[string, string]> = [
  ['png', 'PNG'],
  ['jpeg', 'JPEG'],
  ['webp', 'WebP'],
  ['pdf', 'PDF'],
];

/** Playground's two ways to capture without a website, one tab each: one URL tried, or many at once. */
export function captureTabs(current: 'playground' | 'batches'): Html {
  const tab = (key: typeof current, href: string, label: string) => html`<a href="${href}"${key === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="subnav" aria-label="Capture">${tab('playground', '/dashboard/playground', 'One URL')}${tab('batches', '/dashboard/batches', 'Batches')}</nav>`;
}

const STATUS_LABELS: Record<string, string> = { running: 'Running', completed: 'Completed', cancelled: 'Cancelled' };

function progress(batch: BatchProps): Html {
  const ended = batch.total - remaining(batch);
  return html`<progress max="${batch.total}" value="${ended}" aria-label="${ended} of ${batch.total} ended"></progress>`;
}

function counts(batch: BatchProps): Html {
  return html`<span class="batch-counts">${batch.succeeded} succeeded · ${batch.failed} failed${batch.cancelled ? html` · ${batch.cancelled} cancelled` : ''} · ${remaining(batch)} to go</span>`;
}

function form(viewer: DashboardViewer, view: BatchesView): Html {
  const v = view.values;
  return html`<form class="card wform batch-form" method="post" action="/dashboard/batches">
  ${csrfField(viewer)}
  ${view.errors.length ? html`<div class="notice error" role="alert" id="batch-errors"><p>Nothing was queued:</p><ul>${view.errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : ''}
  <label for="batch-urls">URLs, one per line (at most ${view.limit} on your plan)</label>
  <textarea id="batch-urls" name="urls" rows="6" spellcheck="false" placeholder="https://example.com/&#10;https://example.org/pricing">${v.urls}</textarea>
  <label for="batch-csv-file">Or a CSV file (a <code>url</code> column, or URLs in the first column)</label>
  <input type="file" id="batch-csv-file" accept=".csv,text/csv" data-csv-into="batch-csv">
  <details${v.csv ? html` open` : ''}><summary>CSV text</summary>
    <label for="batch-csv" class="sr-only">CSV text</label>
    <textarea id="batch-csv" name="csv" rows="4" spellcheck="false" placeholder="url,note&#10;https://example.com/,home">${v.csv}</textarea>
  </details>
  <div class="row">
    <div><label for="batch-name">Name (optional)</label>
    <input type="text" id="batch-name" name="name" maxlength="255" value="${v.name}" placeholder="e.g. competitors"></div>
    <div><label for="batch-format">Format</label>
    <select id="batch-format" name="format">${FORMATS.map(([value, label]) => html`<option value="${value}"${v.format === value ? ' selected' : ''}>${label}</option>`)}</select></div>
  </div>
  <label class="check"><input type="checkbox" name="full_page" value="true"${v.fullPage ? ' checked' : ''}> Full page</label>
  <p><button type="submit" id="create-batch"${view.hasAccess ? '' : html` disabled aria-disabled="true"`}>Capture all</button></p>
</form>`;
}

export function batchesPage(viewer: DashboardViewer, view: BatchesView): Html {
  const row = (b: BatchProps) => html`<tr data-batch-id="${b.id}">
  <td><a href="/dashboard/batches/${b.id}">${b.name ?? html`<span class="muted">unnamed</span>`}</a></td>
  <td>${STATUS_LABELS[b.status] ?? b.status}</td>
  <td>${progress(b)} ${counts(b)}</td>
  <td>${utcTime(b.createdAt)}</td>
</tr>`;
  return layout(
    viewer,
    'playground',
    'Batches',
    html`${captureTabs('batches')}
<p class="muted">Capture many pages at once: paste URLs or upload a CSV, watch the progress, download a ZIP of the results with a <code>results.csv</code>. The same as <code>POST /batches</code> (<a href="/docs#/Batches">API docs</a>).</p>
${accessNotice(view.hasAccess, viewer.account.plan, viewer.account.subscriptionStatus)}
${form(viewer, view)}
<h2>Your batches</h2>
${view.batches.length ? tableBox('Batches', dataTable(['Name', 'Status', 'Progress', 'Created'], view.batches.map(row)), 'batch-cards') : html`<p class="muted">No batches yet.</p>`}
${pager('/dashboard/batches', view.page)}`,
  );
}

export interface BatchView {
  batch: BatchProps;
  items: BatchItemProps[];
  running: Set<string>;
  page: PageInfo;
}

export function batchPage(viewer: DashboardViewer, view: BatchView): Html {
  const b = view.batch;
  const item = (i: BatchItemProps) => {
    const status = i.status === 'queued' && view.running.has(i.jobId) ? 'running' : i.status;
    return html`<tr data-item="${i.position}" class="item-${status}">
  <td>${i.position + 1}</td>
  <td class="url"><a href="${i.url}" rel="noopener noreferrer nofollow">${i.url}</a></td>
  <td>${status}</td>
  <td>${i.file ? html`<span class="mono">${batchEntryName(i.position, b.total, i.url, i.file.format)}</span>` : i.error ? html`<span class="error-text">${i.error}</span>` : html`<span class="muted">—</span>`}</td>
</tr>`;
  };
  return layout(
    viewer,
    'playground',
    `Batch ${b.name ?? ''}`.trim(),
    html`${captureTabs('batches')}
<p><a href="/dashboard/batches">← All batches</a></p>
<div class="card batch-progress">
  <p><strong>${STATUS_LABELS[b.status] ?? b.status}</strong> · ${b.total} URL${b.total === 1 ? '' : 's'} · created ${utcTime(b.createdAt)}${b.completedAt ? html` · ended ${utcTime(b.completedAt)}` : ''}</p>
  <p>${progress(b)}</p>
  <p>${counts(b)}</p>
  <div class="actions">
    <a class="button" id="download-batch" href="/dashboard/batches/${b.id}/download" download>Download ZIP${b.status === 'running' ? ' (so far)' : ''}</a>
    ${
      b.status === 'running' && !b.cancelRequestedAt
        ? html`<form method="post" action="/dashboard/batches/${b.id}/cancel">${csrfField(viewer)}<button type="submit" class="danger" id="cancel-batch">Cancel what has not started</button></form>`
        : ''
    }
  </div>
  ${b.status === 'running' ? html`<p class="muted">This page refreshes every 3 s until the batch has ended.</p>` : ''}
</div>
<h2>Items</h2>
${tableBox('Items', dataTable(['#', 'URL', 'Status', 'File or error'], view.items.map(item)), 'batch-items')}
${pager(`/dashboard/batches/${b.id}`, view.page)}`,
    b.status === 'running' ? { refreshSeconds: 3 } : {},
  );
}
