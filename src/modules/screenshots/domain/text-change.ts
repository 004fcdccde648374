/**
 * Text changes (API.md "Text changes"): each image capture keeps the page's visible text, and a comparison counts
 * the lines added and removed since the previous comparable capture. What counts as the text, how big it may be
 * and when it "changed" live here; the lines are diffed by the TextDiffer port (jsdiff).
 */
import { createHash } from 'node:crypto';

export const TEXT_RULES = {
  /**
   * The kept text is cut at this many bytes of UTF-8 (1 MiB), at a line's end: a page of text is 10–100 kB, and a
   * bound keeps a hostile page from filling the storage or the comparison's memory.
   */
  maxBytes: 1024 * 1024,
  /** Lines of the diff shown in a notice or a history entry (the whole diff is at GET /screenshots/{id}/text-diff). */
  previewLines: 6,
  /**
   * At most this much of a stored diff is read to quote its first changed lines (a notification): the first lines
   * are near its start, while a diff of two 1 MiB texts can be 2 MiB.
   */
  previewBytes: 64 * 1024,
} as const;

/**
 * The page's text as kept: one line per rendered line (innerText), each trimmed, blank lines and runs of spaces
 * dropped, non-breaking spaces as spaces, cut at TEXT_RULES.maxBytes on a line's end. Layout noise (indentation,
 * blank lines a stylesheet adds) is then never a "change"; a word that changes is.
 */
export function normalizeVisibleText(raw: string): string {
  const lines: string[] = [];
  let bytes = 0;
  for (const line of raw.replace(/\r\n?/g, '\n').split('\n')) {
    const clean = line.replace(/[\u00a0\t\f\v ]+/g, ' ').trim();
    if (!clean) continue;
    const size = Buffer.byteLength(clean, 'utf8') + 1;
    if (bytes + size > TEXT_RULES.maxBytes) break;
    lines.push(clean);
    bytes += size;
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** A digest of the kept text (stored as text_hash): equal digests, equal texts; the store-time shortcut. */
export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 32);
}

/** Lines added and removed between two kept texts (a changed line is one removed and one added). */
export interface TextDiffCounts {
  added: number;
  removed: number;
}

export function isTextChanged(counts: TextDiffCounts): boolean {
  return counts.added > 0 || counts.removed > 0;
}

/**
 * A comparison's overall verdict: the pixels changed over the website's threshold, OR the visible text changed.
 * A two-letter headline edit is a few hundredths of a percent of the pixels, under any useful threshold, while
 * anti-aliasing noise changes no text: the text catches what pixels alone cannot tell from noise.
 */
export function isChangeOverall(pixelsChanged: boolean, text: TextDiffCounts | null): boolean {
  return pixelsChanged || (text !== null && isTextChanged(text));
}

/** One line of a unified diff: an added, removed or context line (its text without the sign), or a hunk header. */
export interface UnifiedDiffLine {
  kind: 'added' | 'removed' | 'context' | 'hunk';
  text: string;
}

/**
 * The lines of a unified diff, read by its hunk headers: headers (`===`, `---`, `+++`) and `\ No newline` notes are
 * skipped, and the hunk header's counts say where a hunk ends, so a removed line that itself starts with `--` is never
 * taken for a file header (nor the second patch's header, in the "all removed, all added" fallback, for a removed
 * line). A patch cut short (only its head was read, `cut`) may end mid-line: an unterminated last line is dropped,
 * never quoted half.
 */
export function* unifiedDiffLines(patch: string, cut = false): Generator<UnifiedDiffLine> {
  const all = patch.split('\n');
  if (cut || patch.endsWith('\n')) all.pop(); // '' after the final newline, or the unterminated piece of a cut patch
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of all) {
    if (oldLeft > 0 || newLeft > 0) {
      const sign = line[0];
      if (sign === '\\') continue;
      if (sign === '-') {
        oldLeft -= 1;
        yield { kind: 'removed', text: line.slice(1) };
      } else if (sign === '+') {
        newLeft -= 1;
        yield { kind: 'added', text: line.slice(1) };
      } else {
        oldLeft -= 1;
        newLeft -= 1;
        yield { kind: 'context', text: line.slice(1) };
      }
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      yield { kind: 'hunk', text: line };
    }
  }
}

/** The first `max` added or removed lines of a unified diff, in diff order (read no further than needed). */
export function changedDiffLines(patch: string, max: number, cut = false): UnifiedDiffLine[] {
  const out: UnifiedDiffLine[] = [];
  if (max <= 0) return out;
  for (const line of unifiedDiffLines(patch, cut)) {
    if (line.kind !== 'added' && line.kind !== 'removed') continue;
    out.push(line);
    if (out.length >= max) break;
  }
  return out;
}

/** The first `max` changed lines of a unified diff as `+ line` / `- line`, the way a notification quotes them. */
export function firstChangedLines(patch: string, max: number, cut = false): string[] {
  return changedDiffLines(patch, max, cut).map((line) => `${line.kind === 'added' ? '+' : '-'} ${line.text}`);
}
