import {
  changedDiffLines,
  firstChangedLines,
  isChangeOverall,
  isTextChanged,
  normalizeVisibleText,
  TEXT_RULES,
  textHash,
  unifiedDiffLines,
} from '../domain/text-change';
import { JsdiffTextDiffer } from './jsdiff-text-differ';

describe('text changes: what the kept text is', () => {
  it('normalizeVisibleText: lines trimmed, runs of spaces and nbsp as one space, blank lines dropped, CRLF as LF, ends with a newline', () => {
    expect(normalizeVisibleText('  Ship faster,\u00a0\u00a0v1 \r\n\r\n\n\t Pricing\t\n   \n')).toBe('Ship faster, v1\nPricing\n');
    expect(normalizeVisibleText('')).toBe('');
    expect(normalizeVisibleText(' \n\n ')).toBe('');
  });

  it('normalizeVisibleText: cut at 1 MiB of UTF-8 on a line end, multi-byte characters counted as bytes', () => {
    const line = 'é'.repeat(999); // 1998 bytes + newline
    const text = normalizeVisibleText(`${line}\n`.repeat(1000));
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(TEXT_RULES.maxBytes);
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .every((l) => l === line),
    ).toBe(true);
    expect(text.split('\n').filter(Boolean)).toHaveLength(Math.floor(TEXT_RULES.maxBytes / 1999));
  });

  it('textHash: equal texts one digest, a two-letter edit another', () => {
    expect(textHash('Ship faster, v1\n')).toBe(textHash('Ship faster, v1\n'));
    expect(textHash('Ship faster, v1\n')).not.toBe(textHash('Ship faster, v2\n'));
    expect(textHash('a')).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('isChangeOverall: pixels over the threshold OR a text line added/removed; no text (null) never changes it', () => {
    expect(isChangeOverall(false, { added: 1, removed: 1 })).toBe(true);
    expect(isChangeOverall(false, { added: 0, removed: 0 })).toBe(false);
    expect(isChangeOverall(true, { added: 0, removed: 0 })).toBe(true);
    expect(isChangeOverall(false, null)).toBe(false);
    expect(isChangeOverall(true, null)).toBe(true);
    expect([isTextChanged({ added: 0, removed: 3 }), isTextChanged({ added: 2, removed: 0 })]).toEqual([true, true]);
  });
});

describe('JsdiffTextDiffer (jsdiff)', () => {
  const differ = new JsdiffTextDiffer();
  const page = (headline: string) => `Acme\n${headline}\nPricing\nDocs\nContact\n`;

  it('a changed headline is one line removed and one added; equal texts are 0/0; lines added at the end count as added only', () => {
    expect(differ.count(page('Ship faster, v1'), page('Ship faster, v2'))).toEqual({ added: 1, removed: 1 });
    expect(differ.count(page('x'), page('x'))).toEqual({ added: 0, removed: 0 });
    expect(differ.count('a\nb\n', 'a\nb\nc\nd\n')).toEqual({ added: 2, removed: 0 });
    expect(differ.count('a\nb\nc\n', 'a\n')).toEqual({ added: 0, removed: 2 });
    expect(differ.count('', 'a\n')).toEqual({ added: 1, removed: 0 });
  });

  it('unified: the labels, one hunk with 3 lines of context, - and + lines', () => {
    const patch = differ.unified(page('Ship faster, v1'), page('Ship faster, v2'), { older: 'screenshot 1', newer: 'screenshot 2' });
    expect(patch).toContain('--- screenshot 1\n+++ screenshot 2\n');
    expect(patch).toContain('@@ -1,5 +1,5 @@\n Acme\n-Ship faster, v1\n+Ship faster, v2\n Pricing\n Docs\n Contact\n');
    expect(differ.unified('same\n', 'same\n', { older: 'a', newer: 'b' })).not.toContain('@@');
  });

  it('two large unrelated texts are counted within the time bound (multiset fallback), exactly', () => {
    // The bound shortened from 2 s to 100 ms: Myers' diff of these texts takes far longer than either, so the
    // fallback is reached all the same, without waiting the production bound out.
    class QuickJsdiffTextDiffer extends JsdiffTextDiffer {
      protected override readonly timeoutMs = 100;
    }
    const older = Array.from({ length: 20_000 }, (_, i) => `old line ${i}`).join('\n') + '\n';
    const newer = Array.from({ length: 20_000 }, (_, i) => `new line ${i}`).join('\n') + '\n';
    // jsdiff reads its clock with Date.now(): a clock that moves 1 ms a read reaches the bound after ~100 reads,
    // whatever the machine's load (no wall-clock ceiling here). Without the bound, Myers' diff of these texts runs
    // past the test's own timeout.
    let now = 0;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => ++now);
    try {
      expect(new QuickJsdiffTextDiffer().count(older, newer)).toEqual({ added: 20_000, removed: 20_000 });
    } finally {
      clock.mockRestore();
    }
  });
});

describe('text changes: the first changed lines a notification quotes', () => {
  const differ = new JsdiffTextDiffer();
  const labels = { older: 'screenshot 1', newer: 'screenshot 2' };

  it('"+ line" / "- line" in diff order; headers, hunk markers and context lines skipped', () => {
    const patch = differ.unified(
      'Ship faster, v1\nBuild, test and deploy\nPricing\n',
      'Ship faster, v2\nBuild, test and deploy\nPricing\nNew footer\n',
      labels,
    );
    expect(patch).toContain('--- screenshot 1');
    expect(firstChangedLines(patch, 5)).toEqual(['- Ship faster, v1', '+ Ship faster, v2', '+ New footer']);
  });

  it('at most `max` lines, across hunks', () => {
    const older = Array.from({ length: 40 }, (_, i) => `line ${i}`);
    const newer = older.map((l, i) => (i % 10 === 0 ? `${l} edited` : l));
    const patch = differ.unified(`${older.join('\n')}\n`, `${newer.join('\n')}\n`, labels);
    expect(patch.match(/^@@/gm)?.length).toBeGreaterThan(1);
    expect(firstChangedLines(patch, 3)).toEqual(['- line 0', '+ line 0 edited', '- line 10']);
    expect(firstChangedLines(patch, 100)).toHaveLength(8);
  });

  it('a removed line that starts with "--" or "++" is a line, not a header; "\\ No newline" notes are skipped', () => {
    const patch = differ.unified('-- signature\n++counter\nold', 'new', labels);
    expect(patch).toContain('\\ No newline');
    expect(firstChangedLines(patch, 5)).toEqual(['- -- signature', '- ++counter', '- old', '+ new']);
  });

  it('the fallback "all removed, all added" (two patches) and an empty diff', () => {
    const patch = differ.unified('a\n', '', labels) + differ.unified('', 'b\n', labels);
    expect(firstChangedLines(patch, 5)).toEqual(['- a', '+ b']);
    expect(firstChangedLines(differ.unified('same\n', 'same\n', labels), 5)).toEqual([]);
    expect(firstChangedLines('', 5)).toEqual([]);
  });

  it('a cut patch (only its head read) never quotes its unterminated last line', () => {
    const patch = differ.unified('old one\nold two\n', 'new one\nnew two\n', labels);
    const cut = patch.slice(0, patch.indexOf('new two') + 3);
    expect(firstChangedLines(cut, 5, true)).toEqual(['- old one', '- old two', '+ new one']);
    expect(firstChangedLines(patch.slice(0, patch.indexOf('new two') + 8), 5, true)).toEqual(['- old one', '- old two', '+ new one', '+ new two']);
  });
});

describe('text changes: the one reader of a unified diff (the dashboard shows it, a notification quotes it)', () => {
  const differ = new JsdiffTextDiffer();
  const labels = { older: 'screenshot 1', newer: 'screenshot 2' };

  it('hunk headers, context, removed and added lines in diff order; file headers and "\\ No newline" notes left out', () => {
    const patch = differ.unified('keep\n-- signature\nold', 'keep\nnew', labels);
    expect([...unifiedDiffLines(patch)]).toEqual([
      { kind: 'hunk', text: '@@ -1,3 +1,2 @@' },
      { kind: 'context', text: 'keep' },
      { kind: 'removed', text: '-- signature' },
      { kind: 'removed', text: 'old' },
      { kind: 'added', text: 'new' },
    ]);
  });

  it('the fallback "all removed, all added": the second patch\'s header is no removed line', () => {
    const patch = differ.unified('a\n', '', labels) + differ.unified('', 'b\n', labels);
    expect([...unifiedDiffLines(patch)].map((l) => l.kind)).toEqual(['hunk', 'removed', 'hunk', 'added']);
  });

  it('changedDiffLines: the first `max` added or removed lines only', () => {
    const patch = differ.unified('a\nb\nc\n', 'a\nB\nc\nd\n', labels);
    expect(changedDiffLines(patch, 2)).toEqual([
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'B' },
    ]);
    expect(changedDiffLines(patch, 0)).toEqual([]);
  });
});
