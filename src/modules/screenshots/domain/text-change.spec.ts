import { isChangeOverall, isTextChanged, normalizeVisibleText, TEXT_RULES, textHash } from './text-change';
import { JsdiffTextDiffer } from '../infrastructure/jsdiff-text-differ';

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
    const older = Array.from({ length: 20_000 }, (_, i) => `old line ${i}`).join('\n') + '\n';
    const newer = Array.from({ length: 20_000 }, (_, i) => `new line ${i}`).join('\n') + '\n';
    const started = Date.now();
    expect(differ.count(older, newer)).toEqual({ added: 20_000, removed: 20_000 });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
