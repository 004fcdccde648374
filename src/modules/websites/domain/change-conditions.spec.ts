import { ComparisonFacts, decideChange, IgnoredLines, patternProblem } from './change-conditions';

const none = new IgnoredLines([]);

function facts(over: Partial<ComparisonFacts> & { older?: string; newer?: string }): ComparisonFacts {
  const texts = over.older !== undefined && over.newer !== undefined ? { older: over.older, newer: over.newer } : (over.texts ?? null);
  return { changedRatio: 0, threshold: 0.001, rawTextChanged: false, textChanged: false, ...over, texts };
}

describe('patternProblem', () => {
  it('accepts RE2 patterns and refuses the rest with RE2’s reason', () => {
    expect(patternProblem('Updated at \\d+:\\d+')).toBeNull();
    expect(patternProblem('(a+)+$')).toBeNull();
    expect(patternProblem('(a)\\1')).toMatch(/RE2 syntax.*invalid escape sequence: \\1$/);
    expect(patternProblem('(?=x)y')).toMatch(/RE2 syntax/);
    expect(patternProblem('(')).toMatch(/missing \)/);
    expect(patternProblem('')).toBe('must not be empty');
    expect(patternProblem('a'.repeat(201))).toBe('must be at most 200 characters');
  });
});

describe('IgnoredLines', () => {
  it('leaves out every line one of the patterns matches, case-insensitively, anywhere in the line', () => {
    const ignored = new IgnoredLines(['^updated at \\d{2}:\\d{2}', 'visitors: \\d+']);
    expect(ignored.strip('Price 12\nUpdated at 10:31:07\nWe had Visitors: 42 today\nEnd\n')).toBe('Price 12\nEnd\n');
    expect(ignored.strip('Updated at 10:31\n')).toBe('');
    expect(none.strip('a\nb\n')).toBe('a\nb\n');
  });

  it('runs a hostile pattern in linear time: (a+)+$ on a long line', () => {
    // Counted, not timed (unit tests never assert wall-clock time): RE2 has no backtracking to blow up; the e2e
    // spec times the same pattern on a real comparison.
    const ignored = new IgnoredLines(['(a+)+$']);
    const line = `${'a'.repeat(50_000)}!`;
    expect(ignored.strip(`${line}\nkept\n`)).toBe(`${line}\nkept\n`);
    expect(ignored.strip('aaaa\nkept\n')).toBe('kept\n');
  });
});

describe('decideChange', () => {
  it('without conditions: pixels over the threshold or a text change, as before', () => {
    expect(decideChange(facts({ changedRatio: 0.01 }), {}, none).changed).toBe(true);
    expect(decideChange(facts({ changedRatio: 0.0005 }), {}, none).changed).toBe(false);
    expect(decideChange(facts({ changedRatio: 0.0005, rawTextChanged: true, textChanged: true }), {}, none).changed).toBe(true);
  });

  it('a change made only of ignored lines is no change, its pixels with it', () => {
    const clock = facts({ changedRatio: 0.004, rawTextChanged: true, textChanged: false });
    expect(decideChange(clock, {}, none)).toEqual({ changed: false, heldBack: 'only ignored lines changed' });
    // …unless the picture changed at least min_changed_ratio: a big visual change beside the clock still counts.
    expect(decideChange(clock, { min_changed_ratio: 0.003 }, none).changed).toBe(true);
    expect(decideChange(clock, { min_changed_ratio: 0.005 }, none).changed).toBe(false);
    // A picture change with no text change at all is not blamed on the ignored lines.
    expect(decideChange(facts({ changedRatio: 0.004 }), {}, none).changed).toBe(true);
  });

  it('text_only: pixels alone never count', () => {
    expect(decideChange(facts({ changedRatio: 0.5 }), { text_only: true }, none)).toEqual({ changed: false, heldBack: 'text_only: the text did not change' });
    expect(decideChange(facts({ changedRatio: 0, rawTextChanged: true, textChanged: true }), { text_only: true }, none).changed).toBe(true);
  });

  it('min_changed_ratio: at least this share of the pixels, text change or not', () => {
    expect(decideChange(facts({ changedRatio: 0.02 }), { min_changed_ratio: 0.05 }, none).changed).toBe(false);
    expect(decideChange(facts({ changedRatio: 0.05 }), { min_changed_ratio: 0.05 }, none).changed).toBe(true);
    expect(decideChange(facts({ changedRatio: 0.0004, rawTextChanged: true, textChanged: true }), { min_changed_ratio: 0.05 }, none).changed).toBe(false);
  });

  it('text_contains: the phrase appears (in the new text, not in the old), case and spaces aside', () => {
    const when = { text_contains: 'Price: $9.99' };
    const changedText = { rawTextChanged: true, textChanged: true };
    expect(decideChange(facts({ ...changedText, older: 'Price: $12.99\n', newer: 'Price: $10.99\n' }), when, none).changed).toBe(false);
    expect(decideChange(facts({ ...changedText, older: 'Price: $10.99\n', newer: 'PRICE:  $9.99\n' }), when, none).changed).toBe(true);
    // Already there before: not an appearance.
    expect(decideChange(facts({ ...changedText, older: 'Price: $9.99\nA\n', newer: 'Price: $9.99\nB\n' }), when, none).changed).toBe(false);
    // No text kept (a PDF, an old row): the condition cannot hold.
    expect(decideChange(facts({ changedRatio: 0.5 }), when, none).changed).toBe(false);
    // A phrase only on an ignored line does not appear.
    const ignoreIt = new IgnoredLines(['^price']);
    expect(decideChange(facts({ ...changedText, older: 'x\n', newer: 'x\nPrice: $9.99\n' }), when, ignoreIt).changed).toBe(false);
  });

  it('text_missing: the phrase disappears (in the old text, not in the new)', () => {
    const when = { text_missing: 'sold out' };
    const changedText = { rawTextChanged: true, textChanged: true };
    expect(decideChange(facts({ ...changedText, older: 'Sold out\n', newer: 'In stock\n' }), when, none).changed).toBe(true);
    expect(decideChange(facts({ ...changedText, older: 'Sold out\n', newer: 'Sold out soon\n' }), when, none).changed).toBe(false);
    expect(decideChange(facts({ ...changedText, older: 'In stock\n', newer: 'Back soon\n' }), when, none).changed).toBe(false);
  });

  it('every condition set must hold, and nothing holds without a change', () => {
    const when = { text_contains: 'in stock', text_missing: 'sold out' };
    const changedText = { rawTextChanged: true, textChanged: true };
    expect(decideChange(facts({ ...changedText, older: 'Sold out\n', newer: 'In stock\n' }), when, none).changed).toBe(true);
    expect(decideChange(facts({ ...changedText, older: 'Sold out\n', newer: 'Back soon\n' }), when, none).changed).toBe(false);
    expect(decideChange(facts({ older: 'In stock\n', newer: 'In stock\n' }), { text_contains: 'in stock' }, none)).toEqual({ changed: false, heldBack: null });
  });
});
