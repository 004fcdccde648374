import type { UnifiedDiffLine } from '../../../screenshots/domain/text-change';
import { Html, html } from './html';

/**
 * Text changes in the dashboard: a unified diff (GET /screenshots/{id}/text-diff) as lines people read — added in
 * green with "+", removed in red with "−", context plain, hunks as a thin separator. The sign is text, not only a
 * colour; every line's text goes through `html`, so a page's markup shows as text and never as markup.
 */
/** A line of a unified diff, as screenshots' one diff reader gives it. */
export type TextDiffLine = UnifiedDiffLine;

const SIGN: Record<TextDiffLine['kind'], string> = { added: '+', removed: '−', context: ' ', hunk: '' };
const LABEL: Record<TextDiffLine['kind'], string> = { added: 'added', removed: 'removed', context: '', hunk: '' };

export function textDiffLines(lines: readonly TextDiffLine[]): Html {
  // A hunk marker between hunks says lines were skipped; the one opening the diff says nothing.
  const shown = lines[0]?.kind === 'hunk' ? lines.slice(1) : lines;
  return html`<ol class="td-lines">${shown.map((l) =>
    l.kind === 'hunk'
      ? html`<li class="td-hunk" aria-hidden="true">⋯</li>`
      : html`<li class="td-${l.kind}"${LABEL[l.kind] ? html` title="${LABEL[l.kind]}"` : ''}><span class="td-sign" aria-label="${LABEL[l.kind]}">${SIGN[l.kind]}</span><span class="td-text">${l.text || ' '}</span></li>`,
  )}</ol>`;
}

/** `+1 −1 lines`: the counts of a text diff, as the badge and the facts show them. */
export function textCounts(diff: { added: number; removed: number }): string {
  return `+${diff.added} −${diff.removed} line${diff.added + diff.removed === 1 ? '' : 's'}`;
}
