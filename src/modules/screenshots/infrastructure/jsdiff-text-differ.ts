import { Injectable } from '@nestjs/common';
import { createTwoFilesPatch, diffLines } from 'diff';
import { TextDiffer } from '../application/ports';
import type { TextDiffCounts } from '../domain/text-change';

/**
 * Myers' diff is O((N+M)·D): two 1 MB texts that share nothing would take seconds. Past this jsdiff gives up and
 * the counts come from comparing the lines as multisets (exact for every line added or removed, blind only to lines
 * that merely moved), and the unified diff becomes "all removed, all added".
 */
const DIFF_TIMEOUT_MS = 2_000;

/** TextDiffer on jsdiff (the `diff` package): Myers' line diff, the algorithm of `diff -u` and git. */
@Injectable()
export class JsdiffTextDiffer extends TextDiffer {
  /** A unit test shortens it to reach the fallback without waiting the production bound out. */
  protected readonly timeoutMs: number = DIFF_TIMEOUT_MS;

  count(older: string, newer: string): TextDiffCounts {
    const parts = diffLines(older, newer, { timeout: this.timeoutMs });
    if (!parts) return multisetCounts(older, newer);
    let added = 0;
    let removed = 0;
    for (const part of parts) {
      if (part.added) added += part.count;
      else if (part.removed) removed += part.count;
    }
    return { added, removed };
  }

  unified(older: string, newer: string, labels: { older: string; newer: string }): string {
    const patch = createTwoFilesPatch(labels.older, labels.newer, older, newer, undefined, undefined, { context: 3, timeout: this.timeoutMs });
    return (
      patch ?? createTwoFilesPatch(labels.older, labels.newer, older, '', undefined, undefined) + createTwoFilesPatch(labels.older, labels.newer, '', newer)
    );
  }
}

function lines(text: string): string[] {
  return text ? text.replace(/\n$/, '').split('\n') : [];
}

function multisetCounts(older: string, newer: string): TextDiffCounts {
  const left = new Map<string, number>();
  for (const line of lines(older)) left.set(line, (left.get(line) ?? 0) + 1);
  let added = 0;
  for (const line of lines(newer)) {
    const n = left.get(line) ?? 0;
    if (n > 0) left.set(line, n - 1);
    else added += 1;
  }
  let removed = 0;
  for (const n of left.values()) removed += n;
  return { added, removed };
}
