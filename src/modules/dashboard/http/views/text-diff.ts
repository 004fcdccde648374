import { Html, html } from './html';

/**
 * Text changes in the dashboard: a unified diff (GET /screenshots/{id}/text-diff) as lines people read — added in
 * green with "+", removed in red with "−", context plain, hunks as a thin separator. The sign is text, not only a
 * colour; every line's text goes through `html`, so a page's markup shows as text and never as markup.
 */
export interface TextDiffLine {
  kind: 'added' | 'removed' | 'context' | 'hunk';
  text: string;
}

/** The lines of a unified diff, without its `---`/`+++` header and jsdiff's `===` and `\ No newline` notes. */
export function parseUnifiedDiff(patch: string): TextDiffLine[] {
  const lines: TextDiffLine[] = [];
  let inHunk = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('@@')) {
      inHunk = true;
      lines.push({ kind: 'hunk', text: line });
    } else if (!inHunk || line.startsWith('\\')) {
      continue;
    } else if (line.startsWith('+')) lines.push({ kind: 'added', text: line.slice(1) });
    else if (line.startsWith('-')) lines.push({ kind: 'removed', text: line.slice(1) });
    else if (line.startsWith(' ')) lines.push({ kind: 'context', text: line.slice(1) });
  }
  return lines;
}

/** Only the added and removed lines, the first `max` of them (a history entry's preview). */
export function changedLines(patch: string, max: number): TextDiffLine[] {
  return parseUnifiedDiff(patch)
    .filter((l) => l.kind === 'added' || l.kind === 'removed')
    .slice(0, max);
}

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
